// @ts-check
// Tournaments (#/tournaments and #/tournaments/<id>, docs/web.md "Tournaments"):
// the list (running, upcoming, finished) with the form that creates one, and a
// tournament's page (standings, the tables being played with watch links, the
// results, join and withdraw).  Talks to /api/tournaments*.
//
// Joining gives the entry's secret once; the page keeps it in the browser's
// storage.  Each table of the tournament seats the entry by that secret, so
// when the page (polling) sees the entrant's new table it stores the secret as
// that table's seat token and opens it; a hidden tab is called back the way a
// table calls for "your turn" (pwa.js).  An arena pairs only entrants whose
// tournament page is open: coming back here after a game is what asks for the
// next one.
import { useAccount } from "./account.js";
import { api, request } from "./api.js";
import { botName } from "./cards.js";
import { html, useEffect, useState } from "./html.js";
import { language, t } from "./i18n.js";
import { callBack } from "./pwa.js";
import { store } from "./store.js";

/**
 * @typedef {object} Summary
 * @property {string} id
 * @property {string} name
 * @property {"arena" | "swiss"} kind
 * @property {number} players
 * @property {boolean} rated
 * @property {string} preset
 * @property {number} starts
 * @property {number | null} ends
 * @property {number | null} rounds
 * @property {number} round
 * @property {"scheduled" | "running" | "finished"} state
 * @property {number} entries
 * @property {number} max_entries
 * @property {boolean} builtin
 * @property {string | null} [creator]
 */
/** @typedef {{name: string, bot: boolean, points: number | null}} Seat */
/** @typedef {{table_id: string | null, round: number, state: string, entrants: Seat[]}} Game */
/**
 * @typedef {object} Standing
 * @property {number} rank
 * @property {string} name
 * @property {boolean} bot
 * @property {number} score
 * @property {number} games
 * @property {number} wins
 * @property {boolean} fire
 * @property {boolean} withdrawn
 * @property {boolean} playing
 */
/**
 * @typedef {object} Page
 * @property {Summary} tournament
 * @property {number} now
 * @property {Standing[]} standings
 * @property {Game[]} tables
 * @property {Game[]} results
 * @property {{state: string, table_id: string | null, score: number} | null} me
 */

const PRESETS = ["standard", "whole_pile", "blind", "short"];
const LIST_POLL_MS = 10000;
const PAGE_POLL_MS = 2500;

/** The entry's secret and the last table it was sent to, in the browser's storage
 * (missing or full storage: nothing is kept, and the page offers to join again). */
const keep = {
  /** @param {string} id */
  secret(id) {
    try {
      return localStorage.getItem(`sk.tournament.${id}`);
    } catch {
      return null;
    }
  },
  /** @param {string} id @param {string | null} value */
  setSecret(id, value) {
    try {
      if (value) localStorage.setItem(`sk.tournament.${id}`, value);
      else localStorage.removeItem(`sk.tournament.${id}`);
    } catch {
      /* not kept */
    }
  },
  /** @param {string} id */
  lastTable(id) {
    try {
      return localStorage.getItem(`sk.tournament.${id}.table`);
    } catch {
      return null;
    }
  },
  /** @param {string} id @param {string} table */
  setLastTable(id, table) {
    try {
      localStorage.setItem(`sk.tournament.${id}.table`, table);
    } catch {
      /* not kept */
    }
  },
};

/** @param {number} epoch seconds */
function when(epoch) {
  return new Date(epoch * 1000).toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" });
}

/** The name to show: built-in tournaments are named from the catalogue.
 * @param {Summary} s */
export function tournamentName(s) {
  if (!s.builtin) return s.name;
  return t(`tour.builtin.${s.kind}`, { players: t("lobby.playersN", { count: s.players }) });
}

/** One line about a tournament's format.
 * @param {Summary} s */
export function formatLine(s) {
  const parts = [t(`tour.kind.${s.kind}`), t("tour.perTable", { count: s.players })];
  if (s.kind === "arena" && s.ends) parts.push(t("tour.minutes", { count: Math.round((s.ends - s.starts) / 60) }));
  if (s.kind === "swiss" && s.rounds) parts.push(t("tour.rounds", { count: s.rounds }));
  parts.push(t(s.rated ? "tour.rated" : "tour.casual"));
  if (s.preset !== "standard") parts.push(t(`tour.preset.${s.preset}`));
  return parts.join(" · ");
}

/** @param {{s: Summary}} props */
function Card({ s }) {
  const time = s.state === "finished" ? null : s.state === "running" ? (s.kind === "swiss" ? t("tour.roundOf", { round: s.round, rounds: s.rounds }) : t("tour.until", { time: when(s.ends || s.starts) })) : t("tour.starts", { time: when(s.starts) });
  return html`<li class="tour-card" data-state=${s.state}>
    <a class="tour-card-name" href=${`#/tournaments/${s.id}`}>${tournamentName(s)}</a>
    <span class="muted small">${formatLine(s)}</span>
    <span class="small">${time ? html`${time} · ` : null}${t("tour.entrants", { count: s.entries })}</span>
  </li>`;
}

/** @param {{title: string, id: string, items: Summary[], empty: string}} props */
function Section({ title, id, items, empty }) {
  return html`<section class="panel" aria-labelledby=${`${id}-title`}>
    <h2 id=${`${id}-title`}>${title}</h2>
    ${items.length ? html`<ul class="tour-list" id=${id}>${items.map((s) => html`<${Card} key=${s.id} s=${s} />`)}</ul>` : html`<p class="muted">${empty}</p>`}
  </section>`;
}

/** A date-time input's value (local time) `minutes` from now. @param {number} minutes */
function localInput(minutes) {
  const d = new Date(Date.now() + minutes * 60000);
  d.setSeconds(0, 0);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The form that creates a tournament (accounts only). */
function CreateForm() {
  const [name, setName] = useState("");
  const [kind, setKind] = useState("arena");
  const [players, setPlayers] = useState(2);
  const [start, setStart] = useState(localInput(10));
  const [minutes, setMinutes] = useState(30);
  const [rounds, setRounds] = useState(5);
  const [rated, setRated] = useState(false);
  const [preset, setPreset] = useState("standard");
  const [bots, setBots] = useState(/** @type {string[]} */ ([]));
  const [chosen, setChosen] = useState(/** @type {string[]} */ ([]));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.bots().then((b) => setBots(b.bots)).catch(() => setBots([]));
  }, []);
  const submit = async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    setBusy(true);
    setError("");
    try {
      const starts = new Date(start).getTime() / 1000;
      /** @type {Record<string, unknown>} */
      const body = { name: name.trim(), kind, players, starts, rated, preset, bots: chosen };
      if (kind === "arena") body.minutes = minutes;
      else body.rounds = rounds;
      const got = await request("POST", "/api/tournaments", body);
      location.hash = `#/tournaments/${got.tournament.id}`;
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    } finally {
      setBusy(false);
    }
  };
  const toggleBot = (/** @type {string} */ b) => setChosen(chosen.includes(b) ? chosen.filter((x) => x !== b) : [...chosen, b]);
  return html`<section class="panel" aria-labelledby="tour-create-title">
    <h2 id="tour-create-title">${t("tour.create")}</h2>
    <form id="tour-form" class="tour-form" onSubmit=${submit}>
      <label class="field" for="tour-name">${t("tour.name")}
        <input id="tour-name" required maxlength="40" value=${name} onInput=${(/** @type {any} */ e) => setName(e.target.value)} /></label>
      <fieldset class="tour-kinds"><legend>${t("tour.kindLabel")}</legend>
        ${["arena", "swiss"].map(
          (k) => html`<label class="check"><input type="radio" name="tour-kind" value=${k} checked=${kind === k} onChange=${() => setKind(k)} />${t(`tour.kind.${k}`)}</label>`,
        )}
        <p class="muted small">${t(`tour.kindHelp.${kind}`)}</p>
      </fieldset>
      <label class="field" for="tour-players">${t("tour.playersLabel")}
        <select id="tour-players" value=${String(players)} onChange=${(/** @type {any} */ e) => setPlayers(Number(e.target.value))}>
          ${[2, 3, 4].map((n) => html`<option value=${String(n)}>${t("lobby.playersN", { count: n })}</option>`)}
        </select></label>
      <label class="field" for="tour-start">${t("tour.start")}
        <input id="tour-start" type="datetime-local" required value=${start} onInput=${(/** @type {any} */ e) => setStart(e.target.value)} /></label>
      ${kind === "arena"
        ? html`<label class="field" for="tour-minutes">${t("tour.length")}
            <input id="tour-minutes" type="number" min="1" max="240" value=${minutes} onInput=${(/** @type {any} */ e) => setMinutes(Number(e.target.value))} /></label>`
        : html`<label class="field" for="tour-rounds">${t("tour.roundsLabel")}
            <input id="tour-rounds" type="number" min="1" max="15" value=${rounds} onInput=${(/** @type {any} */ e) => setRounds(Number(e.target.value))} /></label>`}
      <label class="field" for="tour-preset">${t("tour.presetLabel")}
        <select id="tour-preset" value=${preset} onChange=${(/** @type {any} */ e) => setPreset(e.target.value)}>
          ${PRESETS.map((p) => html`<option value=${p}>${t(`tour.preset.${p}`)}</option>`)}
        </select></label>
      <label class="check"><input id="tour-rated" type="checkbox" checked=${rated} onChange=${(/** @type {any} */ e) => setRated(e.target.checked)} />${t("tour.ratedLabel")}</label>
      ${bots.length
        ? html`<fieldset class="tour-bots"><legend>${t("tour.botsLabel")}</legend>
            ${bots.map((b) => html`<label class="check"><input type="checkbox" checked=${chosen.includes(b)} onChange=${() => toggleBot(b)} />${botName(b, t)}</label>`)}
          </fieldset>`
        : null}
      <p class="muted small">${t("tour.oneHand")}</p>
      <button type="submit" class="primary" disabled=${busy}>${t("tour.createButton")}</button>
      <p class="error" role="alert">${error}</p>
    </form>
  </section>`;
}

/** #/tournaments: the lists and, for an account, the form. */
function TournamentList() {
  const user = useAccount();
  const [data, setData] = useState(/** @type {{upcoming: Summary[], running: Summary[], finished: Summary[]} | null} */ (null));
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    const load = () =>
      request("GET", "/api/tournaments")
        .then((d) => live && (setData(d), setError("")))
        .catch((e) => live && setError(e.message));
    load();
    const timer = setInterval(load, LIST_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  return html`<div id="tournaments-page" class="tour-page">
    <section class="panel">
      <h1 class="tour-title">${t("tour.title")}</h1>
      <p class="muted">${t("tour.intro")}</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    </section>
    ${data
      ? html`<${Section} id="tour-running" title=${t("tour.running")} items=${data.running} empty=${t("tour.noneRunning")} />
          <${Section} id="tour-upcoming" title=${t("tour.upcoming")} items=${data.upcoming} empty=${t("tour.noneUpcoming")} />
          <${Section} id="tour-finished" title=${t("tour.finished")} items=${data.finished} empty=${t("tour.noneFinished")} />`
      : html`<section class="panel"><p>${t("app.loading")}</p></section>`}
    ${user ? html`<${CreateForm} />` : html`<p class="panel muted" id="tour-login-note">${t("tour.loginToCreate")}</p>`}
  </div>`;
}

/** A name in the standings or at a table: a link to the profile, bots labelled.
 * @param {{name: string, bot: boolean}} props */
function Who({ name, bot }) {
  return html`<a href=${`#/u/${encodeURIComponent(name)}`}>${bot ? botName(name, t) : name}</a>${bot ? html` <span class="tag">${t("tour.bot")}</span>` : null}`;
}

/** @param {{rows: Standing[]}} props */
function Standings({ rows }) {
  if (!rows.length) return html`<p class="muted">${t("tour.noEntrants")}</p>`;
  return html`<div class="tour-scroll"><table class="tour-standings" id="tour-standings">
    <thead><tr><th scope="col">#</th><th scope="col">${t("tour.player")}</th><th scope="col" class="num">${t("tour.score")}</th><th scope="col" class="num">${t("tour.games")}</th></tr></thead>
    <tbody>${rows.map(
      (r) => html`<tr class=${r.withdrawn ? "withdrawn" : ""}>
        <td>${r.rank}</td>
        <td><${Who} name=${r.name} bot=${r.bot} />${r.fire ? html` <span class="tour-fire" title=${t("tour.fire")} role="img" aria-label=${t("tour.fire")}>🔥</span>` : null}${r.withdrawn ? html` <span class="muted small">${t("tour.withdrawn")}</span>` : null}</td>
        <td class="num">${r.score}</td>
        <td class="num">${r.games}</td>
      </tr>`,
    )}</tbody>
  </table></div>`;
}

/** @param {{games: Game[], running: boolean}} props */
function Games({ games, running }) {
  return html`<ul class="tour-games">${games.map(
    (g) => html`<li class="tour-game">
      ${g.round ? html`<span class="muted small">${t("tour.round", { round: g.round })}</span>` : null}
      <span class="tour-game-who">${g.entrants.map(
        (e, i) => html`${i ? ", " : ""}<${Who} name=${e.name} bot=${e.bot} />${e.points !== null && !running ? html` <b>${t("tour.points", { count: e.points })}</b>` : null}`,
      )}</span>
      ${g.state === "bye" ? html`<span class="muted small">${t("tour.bye")}</span>` : g.state === "void" ? html`<span class="muted small">${t("tour.void")}</span>` : null}
      ${g.table_id && running ? html`<a class="button small-button" href=${`#/t/${g.table_id}?watch`}>${t("tour.watch")}</a>` : null}
      ${g.table_id && !running && g.state === "done" ? html`<a class="small" href=${`#/r/${g.table_id}`}>${t("tour.replay")}</a>` : null}
    </li>`,
  )}</ul>`;
}

/** Send the entrant to their new table (once per table): the entry's secret
 * becomes the table's seat token.
 * @param {string} id @param {Page} page */
function followTable(id, page) {
  const table = page.me && page.me.table_id;
  const secret = keep.secret(id);
  if (!table || !secret || keep.lastTable(id) === table) return;
  keep.setLastTable(id, table);
  store.setToken(table, secret);
  store.setTournamentOf(table, id);
  // a hidden tab: its title, its icon, a notification (pwa.js)
  callBack({ headline: t("tour.gameStarts"), title: t("tour.gameStarts"), body: t("tour.gameStartsBody"), tag: "sk-tournament-game" });
  location.hash = `#/t/${table}`;
}

/** #/tournaments/<id>
 * @param {{id: string}} props */
function TournamentPage({ id }) {
  const user = useAccount();
  const [page, setPage] = useState(/** @type {Page | null} */ (null));
  const [error, setError] = useState(/** @type {{status?: number, message: string} | null} */ (null));
  const [note, setNote] = useState("");
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    const load = () =>
      request("GET", `/api/tournaments/${id}`)
        .then((/** @type {Page} */ p) => {
          if (!live) return;
          setPage(p);
          setError(null);
          followTable(id, p);
        })
        .catch((/** @type {Error & {status?: number}} */ e) => live && setError({ status: e.status, message: e.message }));
    load();
    const timer = setInterval(load, PAGE_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [id, tick]);
  if (error && !page)
    return html`<div id="tournament-page" class="tour-page"><section class="panel"><p class="error">${error.status === 404 ? t("tour.notFound") : error.message}</p><a href="#/tournaments">${t("tour.all")}</a></section></div>`;
  if (!page) return html`<div id="tournament-page" class="tour-page"><section class="panel"><p>${t("app.loading")}</p></section></div>`;
  const s = page.tournament;
  const act = async (/** @type {"join" | "withdraw"} */ what) => {
    setNote("");
    try {
      const got = await request("POST", `/api/tournaments/${id}/${what}`, {});
      if (what === "join") keep.setSecret(id, got.secret);
      else keep.setSecret(id, null);
      setTick(tick + 1);
    } catch (e) {
      setNote(/** @type {Error} */ (e).message);
    }
  };
  const me = page.me;
  const open = s.state === "scheduled" || (s.state === "running" && s.kind === "arena");
  let action = null;
  if (!user && s.state !== "finished") action = html`<p class="muted" id="tour-login-join">${t("tour.loginToJoin")}</p>`;
  else if (user && me && me.state === "active" && s.state !== "finished")
    action = html`${keep.secret(id) ? null : html`<button type="button" id="tour-rejoin" onClick=${() => act("join")}>${t("tour.rejoin")}</button>`}
      <button type="button" id="tour-withdraw" onClick=${() => act("withdraw")}>${t("tour.withdraw")}</button>`;
  else if (user && open) action = html`<button type="button" class="primary" id="tour-join" onClick=${() => act("join")}>${t("tour.join")}</button>`;
  const status =
    s.state === "scheduled"
      ? t("tour.starts", { time: when(s.starts) })
      : s.state === "running"
        ? s.kind === "arena"
          ? t("tour.until", { time: when(s.ends || s.starts) })
          : t("tour.roundOf", { round: s.round, rounds: s.rounds })
        : t("tour.over");
  return html`<div id="tournament-page" class="tour-page">
    <section class="panel">
      <p class="small"><a href="#/tournaments">${t("tour.all")}</a></p>
      <h1 class="tour-title" id="tour-name-title">${tournamentName(s)}</h1>
      <p class="muted small">${formatLine(s)}${s.creator ? ` · ${t("tour.by", { name: s.creator })}` : ""}</p>
      <p><span class=${`tag tour-state-${s.state}`}>${t(`tour.state.${s.state}`)}</span> ${status} · ${t("tour.entrants", { count: s.entries })}</p>
      ${me ? html`<p id="tour-me" class="small">${me.state === "active" ? (me.table_id ? t("tour.atTable") : s.state === "finished" ? t("tour.thanks") : t(s.kind === "arena" ? "tour.waitingArena" : "tour.waitingSwiss")) : t("tour.youWithdrew")}
          ${me.table_id ? html` <a href=${`#/t/${me.table_id}`}>${t("tour.toTable")}</a>` : null}</p>` : null}
      ${action ? html`<div class="row tour-actions">${action}</div>` : null}
      <p class="error" role="alert">${note}</p>
      <p class="muted small">${t(`tour.scoring.${s.kind}`)}</p>
    </section>
    <section class="panel" aria-labelledby="tour-standings-title">
      <h2 id="tour-standings-title">${t("tour.standings")}</h2>
      <${Standings} rows=${page.standings} />
    </section>
    ${page.tables.length
      ? html`<section class="panel" aria-labelledby="tour-tables-title"><h2 id="tour-tables-title">${t("tour.tables")}</h2><${Games} games=${page.tables} running=${true} /></section>`
      : null}
    ${page.results.length
      ? html`<section class="panel" aria-labelledby="tour-results-title"><h2 id="tour-results-title">${t("tour.results")}</h2><${Games} games=${page.results} running=${false} /></section>`
      : null}
  </div>`;
}

/** The tournaments' route: the list, or one tournament.
 * @param {{id?: string | null}} props */
export function Tournaments({ id = null }) {
  return id ? html`<${TournamentPage} id=${id} />` : html`<${TournamentList} />`;
}
