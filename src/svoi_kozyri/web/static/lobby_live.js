// @ts-check
// The live lobby: tables (open seats first) with their players, spectators and
// rules; filters (players, rated, open or in play) and paging; who is online.
// <LiveLobby/> polls /api/lobby every 4 seconds and on every log-in or log-out.
import { request as call } from "./api.js";
import { botName } from "./cards.js";
import { html, useEffect, useState } from "./html.js";
import { t } from "./i18n.js";

/** @typedef {import("./wire.js").LobbyPage} LobbyPage */
/** @typedef {import("./wire.js").LobbyTable} LobbyTable */
/** @typedef {import("./wire.js").LobbySeat} LobbySeat */
/** @typedef {import("./wire.js").RatingsPage} RatingsPage */

const PAGE = 10;

/** @param {string} name */
const userLink = (name) => `#/u/${encodeURIComponent(name)}`;

/** A filter: a labelled select.
 * @param {{id: string, label: string, value: string, options: [string, string][], onChange: (v: string) => void}} props */
function Choice({ id, label, value, options, onChange }) {
  return html`<label class="inline">${`${label} `}<select id=${id} value=${value} onChange=${(/** @type {Event} */ e) => onChange(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
    ${options.map(([v, text]) => html`<option value=${v} selected=${v === value}>${text}</option>`)}
  </select></label>`;
}

/** @param {{seat: LobbySeat}} props */
function SeatLine({ seat }) {
  const name = seat.account
    ? html`<a href=${userLink(seat.account)}>${seat.account}</a>`
    : seat.bot
      ? html`<a href=${userLink(seat.bot)}>${t("table.botLevel", { bot: botName(seat.bot, t) })}</a>`
      : seat.taken
        ? seat.label
        : t("table.freeSeat");
  return html`<span class=${seat.connected ? "seat-on" : "seat-off"}>${`${seat.letter}: `}${name}</span>`;
}

/** A table without a title of its own is named after its host ("Ann's table", in
 * the page's language), not by the server's fallback "table <id>".
 * @param {LobbyTable} tb */
function tableTitle(tb) {
  if (tb.title !== `table ${tb.table_id}`) return tb.title;
  const host = tb.seats.find((s) => !s.bot && s.taken);
  return host ? t("lobby.tableOf", { name: host.account || host.label }) : tb.title;
}

/** @param {{table: LobbyTable}} props */
function Entry({ table: tb }) {
  const status = t(`lobby.status.${tb.status}`);
  return html`<div class="lobby-entry" data-table=${tb.table_id}>
    <strong>${tableTitle(tb)}</strong>
    ${tb.rated ? html`<span class="tag good">${t("lobby.live.rated_tag")}</span>` : null}
    <span class="muted">${` ${tb.players} · ${status}${tb.hand ? ` · ${t("lobby.live.hand", { n: tb.hand })}` : ""}`}</span>
    ${tb.spectators ? html`<span class="tag">${t("lobby.live.spectators", { count: tb.spectators })}</span>` : null}
    <div class="small seats-line">${tb.seats.map((s, i) => html`${i ? " · " : ""}<${SeatLine} seat=${s} />`)}</div>
    <div class="row">
      ${tb.free_seats > 0 ? html`<a class="button" href=${`#/t/${tb.table_id}`}>${t("lobby.live.join", { count: tb.free_seats })}</a>` : null}
      <a class="button" href=${`#/t/${tb.table_id}?watch`}>${t("lobby.live.watch")}</a>
    </div>
  </div>`;
}

/** Who is online: the accounts by name, then the counts.
 * @param {{online: LobbyPage["online"]}} props */
function Online({ online: o }) {
  const counts = [
    t("lobby.live.n_accounts", { count: o.accounts.length }),
    t("lobby.live.n_guests", { count: o.guests }),
    t("lobby.live.n_spectators", { count: o.spectators }),
    t("lobby.live.n_tables", { count: o.tables }),
  ];
  return html`<strong>${`${t("lobby.live.online")}: `}</strong>
    ${o.accounts.length
      ? o.accounts.map((a, i) => html`${i ? ", " : ""}<a href=${userLink(a)}>${a}</a>`)
      : html`<span class="muted">${t("lobby.live.nobody")}</span>`}
    <div class="muted">${counts.join(", ")}</div>`;
}

/** How strong each bot level plays (their accounts' ratings), for newcomers.
 * @param {{ratings: RatingsPage | null}} props */
function BotLine({ ratings: r }) {
  if (!r || !r.ratings.length) return html`<div id="lobby-bots" class="small muted"></div>`;
  return html`<div id="lobby-bots" class="small muted">
    ${`${t("lobby.live.bots", { count: r.players })} `}
    ${r.ratings.map((b, i) => html`${i ? " · " : ""}<a href=${userLink(b.username)}>${b.username}</a>${` ${b.display ?? b.rating.toFixed(1)}${b.provisional ? "?" : ""}`}`)}
  </div>`;
}

export function LiveLobby() {
  const [offset, setOffset] = useState(0);
  const [players, setPlayers] = useState("");
  const [rated, setRated] = useState("");
  const [status, setStatus] = useState("any");
  const [page, setPage] = useState(/** @type {LobbyPage | null} */ (null));
  const [error, setError] = useState("");
  const [bots, setBots] = useState(/** @type {RatingsPage | null} */ (null));
  useEffect(() => {
    let live = true;
    call("GET", "/api/ratings?players=4&bots=true&limit=10")
      .then((/** @type {RatingsPage} */ r) => live && setBots(r))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);
  useEffect(() => {
    let live = true;
    const refresh = async () => {
      const q = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
      if (players) q.set("players", players);
      if (rated) q.set("rated", rated);
      q.set("status", status || "any");
      try {
        /** @type {LobbyPage} */
        const got = await call("GET", `/api/lobby?${q}`);
        if (!live) return;
        setPage(got);
        setError("");
      } catch (e) {
        if (live) setError(t("lobby.live.error", { e: /** @type {Error} */ (e).message }));
      }
    };
    refresh();
    const timer = setInterval(refresh, 4000);
    window.addEventListener("sk-account", refresh);
    return () => {
      live = false;
      clearInterval(timer);
      window.removeEventListener("sk-account", refresh);
    };
  }, [offset, players, rated, status]);
  const filter = (/** @type {(v: string) => void} */ set) => (/** @type {string} */ v) => {
    setOffset(0);
    set(v);
  };
  const any = t("lobby.live.any");
  const to = page ? Math.min(page.total, offset + page.tables.length) : 0;
  return html`<div id="lobby-live">
    <h2>${t("lobby.live.title")}</h2>
    <div id="lobby-online" class="small">${page ? html`<${Online} online=${page.online} />` : null}</div>
    <${BotLine} ratings=${bots} />
    <div class="row small lobby-filters">
      <${Choice} id="filter-players" label=${t("lobby.live.players")} value=${players} onChange=${filter(setPlayers)} options=${[["", any], ["2", "2"], ["3", "3"], ["4", "4"]]} />
      <${Choice} id="filter-rated" label=${t("lobby.live.rated")} value=${rated} onChange=${filter(setRated)}
        options=${[["", any], ["true", t("lobby.live.rated_only")], ["false", t("lobby.live.unrated_only")]]} />
      <${Choice} id="filter-status" label=${t("lobby.live.status")} value=${status} onChange=${filter(setStatus)}
        options=${[["any", any], ["open", t("lobby.live.open")], ["playing", t("lobby.live.playing")]]} />
    </div>
    <div id="lobby-list" class="lobby-list">
      ${error || (!page ? html`<p class="muted">${t("app.loading")}</p>` : page.tables.length ? page.tables.map((tb) => html`<${Entry} key=${tb.table_id} table=${tb} />`) : html`<p>${t("lobby.live.empty")}</p>`)}
    </div>
    <div class="row small" id="lobby-pager">
      ${page
        ? html`<button id="lobby-prev" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>${t("lobby.live.prev")}</button>
            <span>${page.total ? t("lobby.live.page", { from: offset + 1, to, total: page.total }) : ""}</span>
            <button id="lobby-next" disabled=${to >= page.total} onClick=${() => setOffset(offset + PAGE)}>${t("lobby.live.next")}</button>`
        : null}
    </div>
  </div>`;
}
