// @ts-check
// The end of a session (/session?table=ID): the standings, every hand's order of
// going out and result, links to analyse or share each hand, the rematch with the
// same seats, and the table chat for the players (chat-panel.js).  The table's
// socket hands its messages to a handler table, the chat's among them.
import { request, TableSocket } from "./api.js";
import { ChatPanel, chatChannel } from "./chat-panel.js";
import { html } from "./html.js";
import { t } from "./i18n.js";
import { draw, startPage } from "./page.js";
import { store } from "./store.js";

/** @typedef {import("./wire.js").ServerHandlers} ServerHandlers */
/** @typedef {{seat: string, name: string, kind: string, losses: number, points: number}} Standing */
/** @typedef {{number: number, dealer: string, turns: number, over: boolean, loser: string | null, outs: [string, string][]}} HandSummary */
/**
 * @typedef {object} Summary
 * @property {string} mode
 * @property {boolean} over
 * @property {string | null} durak
 * @property {string[]} winners
 * @property {Standing[]} standings
 * @property {HandSummary[]} hands
 * @property {string | null} [rematch]
 */

const tableId = new URLSearchParams(location.search).get("table") || "";
const token = tableId ? store.token(tableId) : null;
const state = {
  /** @type {Summary | null} */
  data: null,
  /** @type {string | null} */
  error: null,
  /** @type {Record<number, string>} */
  shared: {},
  /** @type {string | null} */
  rematch: null,
  /** the viewer's seat once the socket says so (the chat is for players) */
  /** @type {number | null} */
  seat: null,
  connected: false,
};
/** @type {TableSocket | null} */
let socket = null;
const chat = chatChannel((msg) => socket?.send(msg));

async function load() {
  try {
    state.data = await request("GET", `/api/tables/${encodeURIComponent(tableId)}/summary`);
    state.rematch = state.data?.rematch ?? null;
  } catch (e) {
    state.error = /** @type {Error} */ (e).message;
  }
  render();
}

/** @param {number} n */
async function share(n) {
  try {
    // while the table runs only its players may share a hand (their seat token)
    const d = await request("POST", `/api/tables/${tableId}/hands/${n}/deal`, {}, token ? { "X-Seat-Token": token } : {});
    state.shared[n] = d.url;
  } catch (e) {
    state.error = /** @type {Error} */ (e).message;
  }
  render();
}

async function rematch() {
  try {
    const grant = await request("POST", `/api/tables/${tableId}/rematch`, {}, { "X-Seat-Token": token || "" });
    store.setToken(grant.table_id, grant.token);
    location.href = `/#/t/${grant.table_id}`;
  } catch (e) {
    state.error = /** @type {Error} */ (e).message;
    render();
  }
}

/** What each message of the table's socket does here. @type {ServerHandlers} */
const messages = {
  ...chat.handlers,
  welcome: (msg) => {
    state.seat = msg.seat;
    state.connected = true;
    render();
  },
  rematch: (msg) => {
    state.rematch = msg.table_id;
    render();
  },
  error: (msg) => {
    chat.error(msg);
  },
};

function connect() {
  if (!token || socket) return;
  socket = new TableSocket(tableId, token, {
    messages,
    onStatus: (status) => {
      if (status === "connected") return; // the welcome says which seat
      state.connected = false;
      render();
    },
  });
}

/** A bot is named as at the table ("Bot B", in the page's language), a person by name.
 * @param {Standing | undefined} s */
function seatName(s) {
  if (!s) return "";
  return s.kind === "bot" ? t("table.botSeat", { letter: s.seat }) : s.name;
}

/** @param {HandSummary} h */
function outsText(h) {
  return h.outs.map(([s, kind], i) => `${i + 1}. ${s} (${t(kind === "defence" ? "session.outDefence" : "session.outLead")})`).join(", ");
}

/** @param {HandSummary} h */
function resultText(h) {
  if (!h.over) return t("session.running");
  return h.loser ? t("learn.after.loser", { seat: h.loser }) : t("learn.after.draw");
}

/** @param {Summary} d */
function standings(d) {
  const points = d.mode === "points";
  return html`<section class="pk-panel" id="standings">
    <h2>${d.over ? t("session.over") : t("session.sofar")}</h2>
    ${d.durak
      ? html`<p id="durak"><strong>${t("session.durak", { seat: d.durak, name: seatName(d.standings.find((s) => s.seat === d.durak)) })}</strong></p>`
      : null}
    <table class="pk-results">
      <thead><tr><th scope="col">${t("session.player")}</th><th scope="col">${t(points ? "session.points" : "session.losses")}</th></tr></thead>
      <tbody>
        ${d.standings.map(
          (s) => html`<tr class=${d.winners.includes(s.seat) ? "winner" : ""}>
            <td>${`${s.seat} · ${seatName(s)}`}${d.winners.includes(s.seat) ? ` — ${t("session.winner")}` : ""}</td>
            <td>${String(points ? s.points : s.losses)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${token && d.over
      ? html`<p><button type="button" class="pk-button primary" id="rematch" onClick=${rematch}>${t(state.rematch ? "session.joinRematch" : "session.rematch")}</button></p>`
      : null}
  </section>`;
}

/** @param {Summary} d */
function hands(d) {
  return html`<section class="pk-panel" id="hands">
    <h2>${t("session.hands")}</h2>
    <ol>
      ${d.hands.map((h) => {
        const link = state.shared[h.number];
        return html`<li class="pk-hand-summary">
          <p><strong>${resultText(h)}</strong> · ${t("session.dealer", { seat: h.dealer })} · ${t("session.turns", { count: h.turns })}</p>
          <p>${t("session.order")} ${outsText(h) || "—"}</p>
          ${h.over
            ? html`<p class="pk-row">
                <a href=${`/analysis?table=${tableId}&hand=${h.number}`}>${t("analysis.open")}</a>
                ${link
                  ? html`<a href=${link}>${link}</a>`
                  : token || d.over
                    ? html`<button type="button" class="pk-link" onClick=${() => share(h.number)}>${t("deal.share")}</button>`
                    : null}
              </p>`
            : null}
        </li>`;
      })}
    </ol>
  </section>`;
}

/** The chat, for a player of the table (the welcome gave a seat). @param {Summary} d */
function chatView(d) {
  if (state.seat === null) return null;
  const seats = d.standings.map((s, i) => ({ seat: i, name: s.name, kind: s.kind }));
  return html`<${ChatPanel} chat=${chat.channel} seats=${seats} viewer=${state.seat} connected=${state.connected} />`;
}

function render() {
  const d = state.data;
  draw(html`<main id="app">
    <h1>${t("session.title")}</h1>
    <p><a class="pk-light" href=${`/#/t/${tableId}`}>${t("analysis.backToTable")}</a></p>
    ${state.error ? html`<p class="pk-error" role="alert">${t("deal.error", { message: state.error })}</p>` : null}
    ${d ? standings(d) : null}
    ${d ? hands(d) : null}
    ${d ? chatView(d) : null}
    ${!d && !state.error ? html`<p class="pk-intro">${t("app.loading")}</p>` : null}
  </main>`);
}

startPage("nav-session", render).then(async () => {
  await load();
  connect();
});
