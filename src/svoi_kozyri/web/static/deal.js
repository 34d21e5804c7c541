// @ts-check
// A deal's page (/deal?id=..., or /deal?daily for today's deal): everybody's
// results on the same cards (duplicate play) and a button to play it yourself.
// The server sends names and outcomes only, never a card.
import { request } from "./api.js";
import { botName } from "./cards.js";
import { html } from "./html.js";
import { t } from "./i18n.js";
import { draw, startPage } from "./page.js";
import { store } from "./store.js";

/** @typedef {{seat: string, kind: string, name: string, bot?: string | null}} DealSeat */
/** @typedef {{seats: DealSeat[], outs: [string, string][], loser: string | null, turns: number}} DealResult */
/**
 * @typedef {object} Deal
 * @property {string} deal_id
 * @property {string | null} [daily]
 * @property {number} players
 * @property {string} dealer
 * @property {string} url
 * @property {boolean} [locked]
 * @property {boolean} [playable]
 * @property {DealSeat[]} [seats]
 * @property {DealResult[]} results
 */

const params = new URLSearchParams(location.search);
const state = {
  id: params.get("id"),
  daily: params.has("daily") || !params.get("id"),
  /** @type {Deal | null} */
  data: null,
  /** @type {string | null} */
  error: null,
  busy: false,
  /** the name typed in the form (kept across redraws) */
  name: store.name(),
};

async function load() {
  try {
    state.data = await request("GET", state.daily ? "/api/deals/daily" : `/api/deals/${encodeURIComponent(state.id || "")}`);
    state.error = null;
  } catch (e) {
    state.error = /** @type {Error} */ (e).message;
  }
  render();
}

/** @param {Event} ev */
async function play(ev) {
  ev.preventDefault();
  const name = state.name.trim();
  const seat = Number(/** @type {HTMLSelectElement} */ (document.getElementById("deal-seat")).value);
  if (!name) {
    state.error = t("deal.needName");
    return render();
  }
  state.busy = true;
  render();
  try {
    const grant = await request("POST", `/api/deals/${state.data?.deal_id}/play`, { name, seat });
    store.setName(name);
    store.setToken(grant.table_id, grant.token);
    location.href = `/#/t/${grant.table_id}`;
  } catch (e) {
    state.error = /** @type {Error} */ (e).message;
    state.busy = false;
    render();
  }
}

/** @param {DealResult} r */
function outcome(r) {
  if (r.loser) return t("deal.loser", { seat: r.loser });
  return t("deal.draw");
}

/** @param {DealResult} r */
function order(r) {
  return r.outs.map(([s, kind]) => `${s}${kind === "defence" ? "↓" : "↑"}`).join(" ");
}

/** A seat of a result: the person's name, or a bot's level in the page's language
 * ("бот · лёгкий"), never the server's English label ("easy bot").
 * @param {DealSeat} s */
function seatLabel(s) {
  if (s.kind === "human") return s.name;
  if (s.bot) return t("table.botLevel", { bot: botName(s.bot, t) });
  return `${s.name} (${t("deal.bot")})`;
}

/** @param {Deal} d */
function resultsTable(d) {
  if (!d.results.length) return html`<p id="no-results">${t("deal.noResults")}</p>`;
  const letters = d.results[0].seats.map((s) => s.seat);
  return html`<table class="pk-results" id="results">
    <caption class="pk-muted">${t("deal.resultsCaption")}</caption>
    <thead><tr>
      ${letters.map((s) => html`<th scope="col">${t("learn.seat", { seat: s })}</th>`)}
      <th scope="col">${t("deal.order")}</th><th scope="col">${t("deal.result")}</th><th scope="col">${t("deal.turns")}</th>
    </tr></thead>
    <tbody>
      ${d.results.map(
        (r) => html`<tr>
          ${r.seats.map((s) => html`<td>${seatLabel(s)}</td>`)}
          <td>${order(r)}</td><td>${outcome(r)}</td><td>${String(r.turns)}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Which bots play the other seats (issue 21, item 7): those of the table the
 * deal comes from keep their seats, so that the results compare.
 * @param {Deal} d */
function botsNote(d) {
  const bots = (d.seats || []).filter((s) => s.kind === "bot" && s.bot);
  if (!bots.length) return t("deal.dailyBots");
  const seats = bots.map((s) => `${s.seat}: ${t("table.botLevel", { bot: botName(/** @type {string} */ (s.bot), t) })}`).join(", ");
  return t("deal.seats", { seats });
}

/** Why the deal cannot be played now, or null: a deal of a table still being
 * played waits until that table has finished (its first hands are secret until
 * then); a deal stored before deals kept their cards cannot be played.
 * @param {Deal} d */
function lockNote(d) {
  if (d.playable === false) return t("error.deal_retired");
  if (d.locked) return t("error.deal_locked");
  return null;
}

/** @param {Deal} d */
function dealView(d) {
  const locked = lockNote(d);
  return html`<section class="pk-panel" id="deal">
      <h2>${d.daily ? t("deal.dailyTitle", { date: d.daily }) : t("deal.title", { id: d.deal_id })}</h2>
      <p>${t("deal.about", { players: d.players, dealer: d.dealer })}</p>
      <p>${t("deal.link")} <a href=${d.url} id="deal-link">${d.url}</a></p>
      <p id="deal-bots">${botsNote(d)}</p>
      ${locked ? html`<p class="pk-muted" id="deal-locked" role="status">${locked}</p>` : null}
      <form class="pk-row" onSubmit=${play}>
        <label for="deal-name">${t("deal.name")}</label>
        <input id="deal-name" maxlength="24" autocomplete="nickname" value=${state.name}
          onInput=${(/** @type {Event} */ e) => (state.name = /** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        <label for="deal-seat">${t("deal.seat")}</label>
        <select id="deal-seat">
          ${Array.from({ length: d.players }, (_, i) => html`<option value=${String(i)}>${t("learn.seat", { seat: "ABCD"[i] })}</option>`)}
        </select>
        <button type="submit" class="pk-button primary" id="deal-play" disabled=${state.busy || Boolean(locked)}>${t("deal.play")}</button>
      </form>
    </section>
    <section class="pk-panel"><h2>${t("deal.results")}</h2><div class="pk-wide">${resultsTable(d)}</div></section>`;
}

function render() {
  const d = state.data;
  draw(html`<main id="app">
    <h1>${t("deal.heading")}</h1>
    <p class="pk-intro">${t("deal.intro")}</p>
    ${state.error ? html`<p class="pk-error" role="alert">${t("deal.error", { message: state.error })}</p>` : null}
    ${d ? dealView(d) : state.error ? null : html`<p class="pk-intro">${t("app.loading")}</p>`}
    <p><a class="pk-light" href="/deal?daily">${t("deal.dailyLink")}</a></p>
  </main>`);
}

startPage("nav-deal", render).then(load);
