// A deal's page (/deal?id=..., or /deal?daily for today's deal): everybody's
// results on the same cards (duplicate play) and a button to play it yourself.
// The server sends names and outcomes only, never a card.
import { botName } from "./cards.js";
import { el, getJSON, header, postJSON, startPage, t } from "./pagekit.js";
import { store } from "./store.js";

const params = new URLSearchParams(location.search);
const state = { id: params.get("id"), daily: params.has("daily") || !params.get("id"), data: null, error: null, busy: false };

async function load() {
  try {
    state.data = await getJSON(state.daily ? "/api/deals/daily" : `/api/deals/${encodeURIComponent(state.id)}`);
    state.error = null;
  } catch (e) {
    state.error = e.message;
  }
  render();
}

async function play(ev) {
  ev.preventDefault();
  const name = document.getElementById("deal-name").value.trim();
  const seat = Number(document.getElementById("deal-seat").value);
  if (!name) {
    state.error = t("deal.needName");
    return render();
  }
  state.busy = true;
  render();
  try {
    const grant = await postJSON(`/api/deals/${state.data.deal_id}/play`, { name, seat });
    store.setName(name);
    store.setToken(grant.table_id, grant.token);
    location.href = `/#/t/${grant.table_id}`;
  } catch (e) {
    state.error = e.message;
    state.busy = false;
    render();
  }
}

function outcome(r) {
  if (r.loser) return t("deal.loser", { seat: r.loser });
  return t("deal.draw");
}

function order(r) {
  return r.outs.map(([s, kind]) => `${s}${kind === "defence" ? "↓" : "↑"}`).join(" ");
}

/** A seat of a result: the person's name, or a bot's level in the page's language
 * ("бот · лёгкий"), never the server's English label ("easy bot"). */
function seatLabel(s) {
  if (s.kind === "human") return s.name;
  if (s.bot) return t("table.botLevel", { bot: botName(s.bot, t) });
  return `${s.name} (${t("deal.bot")})`;
}

function resultsTable(d) {
  if (!d.results.length) return el("p", { id: "no-results" }, t("deal.noResults"));
  const letters = d.results[0].seats.map((s) => s.seat);
  return el(
    "table",
    { class: "pk-results", id: "results" },
    el("caption", { class: "pk-muted" }, t("deal.resultsCaption")),
    el("thead", {}, el("tr", {}, letters.map((s) => el("th", { scope: "col" }, t("learn.seat", { seat: s }))), el("th", { scope: "col" }, t("deal.order")), el("th", { scope: "col" }, t("deal.result")), el("th", { scope: "col" }, t("deal.turns")))),
    el("tbody", {}, d.results.map((r) =>
      el("tr", {},
        r.seats.map((s) => el("td", {}, seatLabel(s))),
        el("td", {}, order(r)),
        el("td", {}, outcome(r)),
        el("td", {}, String(r.turns))))),
  );
}

/** Which bots play the other seats (issue 21, item 7): those of the table the
 * deal comes from keep their seats, so that the results compare. */
function botsNote(d) {
  const bots = (d.seats || []).filter((s) => s.kind === "bot" && s.bot);
  if (!bots.length) return t("deal.dailyBots");
  const seats = bots.map((s) => `${s.seat}: ${t("table.botLevel", { bot: botName(s.bot, t) })}`).join(", ");
  return t("deal.seats", { seats });
}

/** Why the deal cannot be played now, or null: a deal of a table still being
 * played waits until that table has finished (its first hands are secret until
 * then); a deal stored before deals kept their cards cannot be played. */
function lockNote(d) {
  if (d.playable === false) return t("error.deal_retired");
  if (d.locked) return t("error.deal_locked");
  return null;
}

function render() {
  const d = state.data;
  const body = [];
  if (state.error) body.push(el("p", { class: "pk-error", role: "alert" }, t("deal.error", { message: state.error })));
  if (d) {
    const seats = Array.from({ length: d.players }, (_, i) => el("option", { value: String(i) }, t("learn.seat", { seat: "ABCD"[i] })));
    body.push(
      el("section", { class: "pk-panel", id: "deal" },
        el("h2", {}, d.daily ? t("deal.dailyTitle", { date: d.daily }) : t("deal.title", { id: d.deal_id })),
        el("p", {}, t("deal.about", { players: d.players, dealer: d.dealer })),
        el("p", {}, t("deal.link"), " ", el("a", { href: d.url, id: "deal-link" }, d.url)),
        el("p", { id: "deal-bots" }, botsNote(d)),
        lockNote(d) ? el("p", { class: "pk-muted", id: "deal-locked", role: "status" }, lockNote(d)) : null,
        el("form", { class: "pk-row", onsubmit: play },
          el("label", { for: "deal-name" }, t("deal.name")),
          el("input", { id: "deal-name", maxlength: "24", value: store.name(), autocomplete: "nickname" }),
          el("label", { for: "deal-seat" }, t("deal.seat")),
          el("select", { id: "deal-seat" }, seats),
          el("button", { type: "submit", class: "pk-button primary", id: "deal-play", disabled: state.busy || Boolean(lockNote(d)) }, t("deal.play")))),
      el("section", { class: "pk-panel" }, el("h2", {}, t("deal.results")), el("div", { class: "pk-wide" }, resultsTable(d))),
    );
  } else if (!state.error) body.push(el("p", { class: "pk-intro" }, t("app.loading")));
  document.getElementById("page").replaceChildren(
    header("nav-deal"),
    el("main", { id: "app" }, el("h1", {}, t("deal.heading")), el("p", { class: "pk-intro" }, t("deal.intro")), body,
      el("p", {}, el("a", { class: "pk-light", href: "/deal?daily" }, t("deal.dailyLink")))),
  );
}

startPage(render).then(load);
