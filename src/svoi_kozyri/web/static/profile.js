// @ts-check
// A player's profile page (#/u/<name>): ratings per player count, the rating
// history chart (SVG drawn here, no library), results and the games played,
// each with its date, players and the account's result, opening its replay view.
// Bots are labelled accounts.  Ratings read on the server's Elo-like display scale
// (1500 for a new account, "?" while provisional; docs/web.md), never as the raw
// OpenSkill ordinal, whose small negative values mean nothing to a newcomer.
import { accountApi, setUser } from "./account.js";
import { request as call } from "./api.js";
import { botName } from "./cards.js";
import { html, useEffect, useState } from "./html.js";
import { language, t } from "./i18n.js";

/** @typedef {import("./wire.js").RatingPoint} RatingPoint */
/** @typedef {import("./wire.js").ProfileRating} ProfileRating */
/** @typedef {import("./wire.js").Profile} ProfileData */
/** @typedef {import("./wire.js").ProfileGame} ProfileGame */
/** @typedef {import("./wire.js").LineupSeat} LineupSeat */
/** @typedef {import("./wire.js").GamesPage} GamesPage */

/** @type {Record<string, string>} */
const COLORS = { 2: "#0b5cad", 3: "#c8102e", 4: "#1f7a3f" };

/** A point's or rating's value on the display scale (older servers: the ordinal).
 * @param {{display?: number, rating: number}} r */
const shown = (r) => (typeof r.display === "number" ? r.display : r.rating);

/** A rating as shown: "1500?" while provisional, "1623" after.
 * @param {{display?: number, rating: number, provisional?: boolean}} r */
export function ratingLabel(r) {
  return `${Math.round(shown(r))}${r.provisional ? "?" : ""}`;
}

/** A date in the page's language.
 * @param {number} seconds */
function dateText(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(language());
}

/** One line per player count: the display rating after each rated game.
 * @param {{history: Record<string, RatingPoint[]>, width?: number, height?: number}} props */
export function HistoryChart({ history, width = 340, height = 180 }) {
  const series = Object.entries(history).filter(([, pts]) => pts.length);
  const pad = { l: 40, r: 8, t: 10, b: 22 };
  if (!series.length) return html`<svg viewBox=${`0 0 ${width} ${height}`} class="rating-chart" id="rating-chart" role="img"><title>${t("profile.history")}</title></svg>`;
  const all = series.flatMap(([, pts]) => pts.map(shown));
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (hi - lo < 40) {
    lo -= 20;
    hi += 20;
  }
  const maxN = Math.max(...series.map(([, pts]) => pts.length));
  const x = (/** @type {number} */ i) => pad.l + (maxN <= 1 ? (width - pad.l - pad.r) / 2 : (i * (width - pad.l - pad.r)) / (maxN - 1));
  const y = (/** @type {number} */ v) => pad.t + ((hi - v) * (height - pad.t - pad.b)) / (hi - lo);
  return html`<svg viewBox=${`0 0 ${width} ${height}`} class="rating-chart" id="rating-chart" role="img">
    <title>${t("profile.history")}</title>
    ${[lo, (lo + hi) / 2, hi].map(
      (v) => html`<line x1=${pad.l} x2=${width - pad.r} y1=${y(v)} y2=${y(v)} stroke="#d0d5dd" stroke-width="1" />
        <text x="2" y=${y(v) + 4} font-size="10" fill="#667085">${Math.round(v)}</text>`,
    )}
    <text x=${pad.l} y=${height - 6} font-size="10" fill="#667085">${t("profile.history_axis", { n: maxN })}</text>
    ${series.map(([n, pts]) => {
      const color = COLORS[n] || "#333";
      const d = pts.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(shown(p)).toFixed(1)}`).join(" ");
      return html`<path d=${d} fill="none" stroke=${color} stroke-width="2" class=${`series series-${n}`} />
        ${pts.map(
          (p, i) => html`<circle cx=${x(i)} cy=${y(shown(p))} r="3" fill=${color}>
            <title>${`${t("profile.players", { count: Number(n) })}: ${Math.round(shown(p))} (${dateText(p.t)})`}</title>
          </circle>`,
        )}`;
    })}
  </svg>`;
}

/** One seat of a game as the list shows it: "B: бот · лёгкий", "A: Ann (вы)".
 * @param {LineupSeat} p */
export function seatText(p) {
  let who;
  if (p.kind === "bot") who = t("table.botLevel", { bot: botName(p.bot, t) });
  else if (!p.name) who = t("table.freeSeat");
  else who = p.you ? t("table.youName", { name: p.name }) : p.name;
  return `${p.seat}: ${who}`;
}

/** The account's result in a game: "won", "durak", "draw", "place 2 of 4", "running".
 * @param {ProfileGame} g */
export function outcomeText(g) {
  if (g.outcome === "won") return t("profile.won");
  if (g.outcome === "lost") return t("profile.lost");
  if (g.outcome === "draw") return t("profile.draw");
  if ((g.place ?? null) === null) return t("profile.running");
  return t("profile.place", { p: g.place, n: g.players });
}

/** A game's name: its own title, else its host's ("Ann's table", as in the lobby),
 * never the server's fallback "table <id>".
 * @param {ProfileGame} g */
function gameTitle(g) {
  if (g.title && g.title !== `table ${g.table_id}`) return g.title;
  const host = (g.lineup || []).find((p) => p.kind === "human" && p.name);
  return host ? t("lobby.tableOf", { name: host.name }) : t("profile.replay");
}

/** @param {{game: ProfileGame}} props */
function GameRow({ game: g }) {
  const delta = typeof g.display_change === "number" ? g.display_change : null;
  const lineup = g.lineup || [];
  // the replay link first: the game's own name opens it
  return html`<li class="profile-game" data-table=${g.table_id}>
    <a href=${g.replay}>${gameTitle(g)}</a>
    <span class="muted small profile-date">${` ${dateText(g.finished ?? g.created)} · `}</span>
    <strong class="profile-outcome">${outcomeText(g)}</strong>
    ${g.rated ? html`<span class="muted small">${` · ${t("profile.rated")} `}</span>` : " "}
    ${delta === null ? null : html`<span class=${delta >= 0 ? "tag good" : "tag warn"}>${`${delta >= 0 ? "+" : "−"}${Math.abs(delta)}`}</span>`}
    <div class="small profile-lineup">
      ${lineup.length
        ? lineup.map((p, i) => html`${i ? " · " : ""}${p.account && !p.you ? html`<a href=${`#/u/${encodeURIComponent(p.account)}`}>${seatText(p)}</a>` : seatText(p)}`)
        : t("profile.players", { count: g.players })}
    </div>
  </li>`;
}

/** On the player's own profile: end every session of the account (every device). */
function LogoutEverywhere() {
  const [note, setNote] = useState("");
  const [done, setDone] = useState(false);
  const run = async () => {
    try {
      const r = await accountApi.logoutAll();
      setNote(t("account.logged_out_all", { count: r.sessions }));
      setDone(true);
      // the session's CSRF cookie is gone with it: a guest's one first, then the bar
      await accountApi.me().catch(() => {});
      setUser(null);
    } catch (e) {
      setNote(/** @type {Error} */ (e).message);
    }
  };
  return html`<p class="row">
    <button id="logout-all-btn" disabled=${done} onClick=${run}>${t("account.logout_all")}</button>
    <span id="logout-all-note" class="small" role="status">${note}</span>
  </p>`;
}

/** The ratings table, one row per player count.
 * @param {{ratings: ProfileRating[]}} props */
function Ratings({ ratings }) {
  return html`<table id="profile-ratings" class="ratings">
    <tr><th></th><th>${t("profile.rating")}</th><th>${t("profile.games_n")}</th></tr>
    ${ratings.map(
      (r) => html`<tr data-players=${r.players}>
        <td>${t("profile.players", { count: r.players })}</td>
        <td class="profile-rating" title=${`μ ${r.mu.toFixed(1)}, σ ${r.sigma.toFixed(1)}`}>${ratingLabel(r)}${r.provisional ? html`<span class="sr-only">${` (${t("profile.provisional_short")})`}</span>` : null}</td>
        <td>${r.arena_hands ? `${r.games} · ${t("profile.arena", { count: r.arena_hands })}` : r.games}</td>
      </tr>`,
    )}
  </table>`;
}

/** The profile of `name`; its games come 20 at a time ("More games").
 * @param {{name: string}} props */
export function Profile({ name }) {
  const [p, setP] = useState(/** @type {ProfileData | null} */ (null));
  const [error, setError] = useState(/** @type {{status?: number, message: string} | null} */ (null));
  const [games, setGames] = useState(/** @type {ProfileGame[]} */ ([]));
  const [total, setTotal] = useState(/** @type {number | null} */ (null));
  const path = `/api/users/${encodeURIComponent(name)}`;
  const loadGames = async (/** @type {number} */ offset) => {
    /** @type {GamesPage} */
    const page = await call("GET", `${path}/games?offset=${offset}&limit=20`);
    setGames((old) => [...old, ...page.games]);
    setTotal(page.total);
  };
  useEffect(() => {
    let live = true;
    call("GET", path)
      .then((/** @type {ProfileData} */ got) => {
        if (!live) return;
        setP(got);
        return loadGames(0);
      })
      .catch((/** @type {Error & {status?: number}} */ e) => live && setError({ status: e.status, message: e.message }));
    return () => {
      live = false;
    };
  }, [path]);
  if (error)
    return html`<div id="profile-page"><p class="error">${error.status === 404 ? t("profile.not_found") : error.message}</p><a href="#/">${t("table.lobby")}</a></div>`;
  if (!p) return html`<div id="profile-page"><p>${t("app.loading")}</p></div>`;
  const counts = Object.keys(p.history);
  return html`<div id="profile-page"><div class="profile">
    <section class="panel">
      <h2 id="profile-name">${p.username}${p.bot ? html`<span class="tag" id="bot-badge">${t("profile.bot")}</span>` : null}${p.online ? html`<span class="tag good">${t("profile.online")}</span>` : null}</h2>
      <p class="muted small">${t("profile.joined", { date: dateText(p.created) })} · ${t("profile.wins", { w: p.wins, count: p.games })}</p>
      <h3>${t("profile.ratings")}</h3>
      ${p.ratings.length ? html`<${Ratings} ratings=${p.ratings} />` : html`<p class="muted">${t("profile.no_ratings")}</p>`}
      ${p.ratings.length ? html`<p class="muted small" id="rating-note">${t("profile.rating_note", { n: p.provisional_games ?? 10 })}</p>` : null}
      ${counts.length
        ? html`<h3>${t("profile.history")}</h3>
            <${HistoryChart} history=${p.history} />
            <div class="row small">${counts.map((n) => html`<span class=${`legend legend-${n}`}>${t("profile.players", { count: Number(n) })}</span>`)}</div>`
        : null}
      ${p.me ? html`<${LogoutEverywhere} />` : null}
    </section>
    <section class="panel">
      <h3>${t("profile.games")}</h3>
      <ul id="profile-games" class="profile-games">
        ${total === 0 ? html`<li class="muted">${t("profile.no_games")}</li>` : games.map((g) => html`<${GameRow} key=${g.table_id} game=${g} />`)}
      </ul>
      <button id="profile-more" hidden=${total === null || games.length >= total} onClick=${() => loadGames(games.length).catch(() => {})}>${t("profile.more")}</button>
    </section>
  </div></div>`;
}
