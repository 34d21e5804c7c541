// The end of a session (/session?table=ID): the standings, every hand's order of
// going out and result, links to analyse or share each hand, the rematch with the
// same seats, and the table chat for the players.
import { createChatPanel } from "./chat-panel.js";
import { el, getJSON, header, postJSON, startPage, t } from "./pagekit.js";
import { store } from "./store.js";

const tableId = new URLSearchParams(location.search).get("table");
const token = tableId ? store.token(tableId) : null;
const state = { data: null, error: null, shared: {}, rematch: null, chat: null };
let socket = null;

async function load() {
  try {
    state.data = await getJSON(`/api/tables/${encodeURIComponent(tableId)}/summary`);
    state.rematch = state.data.rematch;
  } catch (e) {
    state.error = e.message;
  }
  render();
}

async function share(n) {
  try {
    // while the table runs only its players may share a hand (their seat token)
    const d = await postJSON(`/api/tables/${tableId}/hands/${n}/deal`, {}, token ? { "X-Seat-Token": token } : {});
    state.shared[n] = d.url;
  } catch (e) {
    state.error = e.message;
  }
  render();
}

async function rematch() {
  try {
    const grant = await postJSON(`/api/tables/${tableId}/rematch`, {}, { "X-Seat-Token": token });
    store.setToken(grant.table_id, grant.token);
    location.href = `/#/t/${grant.table_id}`;
  } catch (e) {
    state.error = e.message;
    render();
  }
}

function connect() {
  if (!token || socket) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${proto}://${location.host}/ws/${tableId}`);
  const send = (msg) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(msg));
  socket.onopen = () => send({ type: "hello", token });
  socket.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "welcome" && msg.seat !== null && state.data) {
      state.chat = createChatPanel({ send, seats: state.data.standings.map((s, i) => ({ seat: i, name: s.name, kind: s.kind })), viewer: msg.seat });
      render();
      state.chat.start();
    } else if (msg.type === "rematch") {
      state.rematch = msg.table_id;
      render();
    } else state.chat?.onMessage(msg);
  };
}

// a bot is named as at the table ("Bot B", in the page's language), a person by name
function seatName(s) {
  return s.kind === "bot" ? t("table.botSeat", { letter: s.seat }) : s.name;
}

function outsText(h) {
  return h.outs.map(([s, kind], i) => `${i + 1}. ${s} (${t(kind === "defence" ? "session.outDefence" : "session.outLead")})`).join(", ");
}

function resultText(h) {
  if (!h.over) return t("session.running");
  return h.loser ? t("learn.after.loser", { seat: h.loser }) : t("learn.after.draw");
}

function render() {
  const d = state.data;
  const body = [];
  if (state.error) body.push(el("p", { class: "pk-error", role: "alert" }, t("deal.error", { message: state.error })));
  if (d) {
    const points = d.mode === "points";
    body.push(
      el("section", { class: "pk-panel", id: "standings" },
        el("h2", {}, d.over ? t("session.over") : t("session.sofar")),
        d.durak ? el("p", { id: "durak" }, el("strong", {}, t("session.durak", { seat: d.durak, name: seatName(d.standings.find((s) => s.seat === d.durak)) }))) : null,
        el("table", { class: "pk-results" },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("session.player")), el("th", { scope: "col" }, t(points ? "session.points" : "session.losses")))),
          el("tbody", {}, d.standings.map((s) => el("tr", { class: d.winners.includes(s.seat) ? "winner" : "" },
            el("td", {}, `${s.seat} · ${seatName(s)}`, d.winners.includes(s.seat) ? ` — ${t("session.winner")}` : ""),
            el("td", {}, String(points ? s.points : s.losses)))))),
        token && d.over
          ? el("p", {}, state.rematch
              ? el("button", { type: "button", class: "pk-button primary", id: "rematch", onclick: rematch }, t("session.joinRematch"))
              : el("button", { type: "button", class: "pk-button primary", id: "rematch", onclick: rematch }, t("session.rematch")))
          : null,
      ),
      el("section", { class: "pk-panel", id: "hands" },
        el("h2", {}, t("session.hands")),
        el("ol", {}, d.hands.map((h) => el("li", { class: "pk-hand-summary" },
          el("p", {}, el("strong", {}, resultText(h)), " · ", t("session.dealer", { seat: h.dealer }), " · ", t("session.turns", { count: h.turns })),
          el("p", {}, t("session.order"), " ", outsText(h) || "—"),
          h.over ? el("p", { class: "pk-row" },
            el("a", { href: `/analysis?table=${tableId}&hand=${h.number}` }, t("analysis.open")),
            state.shared[h.number]
              ? el("a", { href: state.shared[h.number] }, state.shared[h.number])
              : token || d.over ? el("button", { type: "button", class: "pk-link", onclick: () => share(h.number) }, t("deal.share")) : null) : null)))),
    );
    if (state.chat) body.push(state.chat.element);
  } else if (!state.error) body.push(el("p", { class: "pk-intro" }, t("app.loading")));
  document.getElementById("page").replaceChildren(
    header("nav-session"),
    el("main", { id: "app" }, el("h1", {}, t("session.title")),
      el("p", {}, el("a", { class: "pk-light", href: `/#/t/${tableId}` }, t("analysis.backToTable"))), body),
  );
}

startPage(render).then(async () => {
  await load();
  connect();
});
