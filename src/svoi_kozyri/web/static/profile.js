// A player's profile page (#/u/<name>): ratings per player count, the rating
// history chart (SVG drawn here, no library), results and the games played,
// each with its date, players and the account's result, opening its replay view.
// Bots are labelled accounts.  Ratings read on the server's Elo-like display scale
// (1500 for a new account, "?" while provisional; docs/web.md), never as the raw
// OpenSkill ordinal, whose small negative values mean nothing to a newcomer.
import { h, request as call, t } from "./accounts_common.js";
import { botName } from "./cards.js";
import { language } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = { 2: "#0b5cad", 3: "#c8102e", 4: "#1f7a3f" };

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** A point's or rating's value on the display scale (older servers: the ordinal). */
const shown = (r) => (typeof r.display === "number" ? r.display : r.rating);

/** A rating as shown: "1500?" while provisional, "1623" after. */
export function ratingLabel(r) {
  return `${Math.round(shown(r))}${r.provisional ? "?" : ""}`;
}

/** A date in the page's language. */
function dateText(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(language());
}

// One line per player count: the display rating after each rated game.
export function historyChart(history, width = 340, height = 180) {
  const series = Object.entries(history).filter(([, pts]) => pts.length);
  const pad = { l: 40, r: 8, t: 10, b: 22 };
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", id: "rating-chart", role: "img" });
  svg.append(s("title", {}, t("profile.history")));
  if (!series.length) return svg;
  const all = series.flatMap(([, pts]) => pts.map(shown));
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (hi - lo < 40) {
    lo -= 20;
    hi += 20;
  }
  const maxN = Math.max(...series.map(([, pts]) => pts.length));
  const x = (i) => pad.l + (maxN <= 1 ? (width - pad.l - pad.r) / 2 : (i * (width - pad.l - pad.r)) / (maxN - 1));
  const y = (v) => pad.t + ((hi - v) * (height - pad.t - pad.b)) / (hi - lo);
  for (const v of [lo, (lo + hi) / 2, hi]) {
    svg.append(s("line", { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), stroke: "#d0d5dd", "stroke-width": 1 }));
    svg.append(s("text", { x: 2, y: y(v) + 4, "font-size": 10, fill: "#667085" }, Math.round(v)));
  }
  svg.append(s("text", { x: pad.l, y: height - 6, "font-size": 10, fill: "#667085" }, t("profile.history_axis", { n: maxN })));
  for (const [n, pts] of series) {
    const color = COLORS[n] || "#333";
    const d = pts.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(shown(p)).toFixed(1)}`).join(" ");
    svg.append(s("path", { d, fill: "none", stroke: color, "stroke-width": 2, class: `series series-${n}` }));
    pts.forEach((p, i) => {
      const dot = s("circle", { cx: x(i), cy: y(shown(p)), r: 3, fill: color });
      dot.append(s("title", {}, `${t("profile.players", { n })}: ${Math.round(shown(p))} (${dateText(p.t)})`));
      svg.append(dot);
    });
  }
  return svg;
}

/** One seat of a game as the list shows it: "B: бот · лёгкий", "A: Ann (вы)". */
export function seatText(p) {
  let who;
  if (p.kind === "bot") who = t("table.botLevel", { bot: botName(p.bot, t) });
  else if (!p.name) who = t("table.freeSeat");
  else who = p.you ? t("table.youName", { name: p.name }) : p.name;
  return `${p.seat}: ${who}`;
}

/** The account's result in a game: "won", "durak", "draw", "place 2 of 4", "running". */
export function outcomeText(g) {
  if (g.outcome === "won") return t("profile.won");
  if (g.outcome === "lost") return t("profile.lost");
  if (g.outcome === "draw") return t("profile.draw");
  if ((g.place ?? null) === null) return t("profile.running");
  return t("profile.place", { p: g.place, n: g.players });
}

/** A game's name: its own title, else its host's ("Ann's table", as in the lobby),
 * never the server's fallback "table <id>". */
function gameTitle(g) {
  if (g.title && g.title !== `table ${g.table_id}`) return g.title;
  const host = (g.lineup || []).find((p) => p.kind === "human" && p.name);
  return host ? t("lobby.tableOf", { name: host.name }) : t("profile.replay");
}

function gameRow(g) {
  const delta = typeof g.display_change === "number" ? g.display_change : null;
  const change = delta === null ? null : h("span", { class: delta >= 0 ? "tag good" : "tag warn" }, `${delta >= 0 ? "+" : "−"}${Math.abs(delta)}`);
  const lineup = g.lineup || [];
  // the replay link first: the game's own name opens it
  return h(
    "li",
    { class: "profile-game", "data-table": g.table_id },
    h("a", { href: g.replay }, gameTitle(g)),
    h("span", { class: "muted small profile-date" }, ` ${dateText(g.finished ?? g.created)} · `),
    h("strong", { class: "profile-outcome" }, outcomeText(g)),
    g.rated ? h("span", { class: "muted small" }, ` · ${t("profile.rated")} `) : " ",
    change,
    h(
      "div",
      { class: "small profile-lineup" },
      lineup.length
        ? lineup.map((p, i) => [i ? " · " : "", p.account && !p.you ? h("a", { href: `#/u/${encodeURIComponent(p.account)}` }, seatText(p)) : seatText(p)])
        : t("profile.players", { n: g.players }),
    ),
  );
}

// On the player's own profile: end every session of the account (every device).
function logoutEverywhere() {
  const note = h("span", { id: "logout-all-note", class: "small", role: "status" });
  const btn = h("button", {
    id: "logout-all-btn",
    onclick: async () => {
      try {
        const r = await call("POST", "/api/account/logout-all", {});
        note.textContent = t("account.logged_out_all", { n: r.sessions });
        btn.disabled = true;
        window.dispatchEvent(new CustomEvent("sk-account", { detail: null }));
      } catch (e) {
        note.textContent = e.message;
      }
    },
  }, t("account.logout_all"));
  return h("p", { class: "row" }, btn, note);
}

export function profilePage(app, username) {
  let stopped = false;
  const games = h("ul", { id: "profile-games", class: "profile-games" });
  const more = h("button", { id: "profile-more", hidden: true }, t("profile.more"));
  let offset = 0;
  const path = `/api/users/${encodeURIComponent(username)}`;

  async function loadGames() {
    const page = await call("GET", `${path}/games?offset=${offset}&limit=20`);
    if (stopped) return;
    if (!page.total) games.replaceChildren(h("li", { class: "muted" }, t("profile.no_games")));
    else games.append(...page.games.map(gameRow));
    offset += page.games.length;
    more.hidden = offset >= page.total;
  }
  more.addEventListener("click", () => loadGames().catch(() => {}));

  app.replaceChildren(h("p", {}, "…"));
  call("GET", path)
    .then((p) => {
      if (stopped) return;
      const ratings = p.ratings.length
        ? h(
            "table",
            { id: "profile-ratings", class: "ratings" },
            h("tr", {}, h("th", {}, ""), h("th", {}, t("profile.rating")), h("th", {}, t("profile.games_n"))),
            ...p.ratings.map((r) =>
              h(
                "tr",
                { "data-players": r.players },
                h("td", {}, t("profile.players", { n: r.players })),
                // the model's own numbers stay one hover away for the curious
                h("td", { class: "profile-rating", title: `μ ${r.mu.toFixed(1)}, σ ${r.sigma.toFixed(1)}` }, ratingLabel(r), r.provisional ? h("span", { class: "sr-only" }, ` (${t("profile.provisional_short")})`) : null),
                h("td", {}, r.arena_hands ? `${r.games} · ${t("profile.arena", { n: r.arena_hands })}` : r.games),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("profile.no_ratings"));
      const note = h("p", { class: "muted small", id: "rating-note" }, t("profile.rating_note", { n: p.provisional_games ?? 10 }));
      app.replaceChildren(
        h(
          "div",
          { class: "profile" },
          h(
            "section",
            { class: "panel" },
            h("h2", { id: "profile-name" }, p.username, p.bot ? h("span", { class: "tag", id: "bot-badge" }, t("profile.bot")) : null, p.online ? h("span", { class: "tag good" }, t("profile.online")) : null),
            h("p", { class: "muted small" }, t("profile.joined", { date: dateText(p.created) }), " · ", t("profile.wins", { w: p.wins, g: p.games })),
            h("h3", {}, t("profile.ratings")),
            ratings,
            p.ratings.length ? note : null,
            ...(Object.keys(p.history).length
              ? [
                  h("h3", {}, t("profile.history")),
                  historyChart(p.history),
                  h("div", { class: "row small" }, ...Object.keys(p.history).map((n) => h("span", { class: `legend legend-${n}` }, t("profile.players", { n })))),
                ]
              : []),
            p.me ? logoutEverywhere() : null,
          ),
          h("section", { class: "panel" }, h("h3", {}, t("profile.games")), games, more),
        ),
      );
      return loadGames();
    })
    .catch((e) => {
      if (!stopped) app.replaceChildren(h("p", { class: "error" }, e.status === 404 ? t("profile.not_found") : e.message), h("a", { href: "#/" }, "Lobby"));
    });
  return () => {
    stopped = true;
  };
}
