// The table chat as a self-contained widget (server/chat.py): a list of messages
// shown as text (never HTML), a length-limited input, and a mute toggle per
// seat.  Mount it anywhere that has the table's socket:
//   const chat = createChatPanel({ send: (msg) => socket.send(msg), seats, viewer, onNew });
//   parent.append(chat.element); socket handlers call chat.onMessage(msg).
// `onNew(message)` is called for each message that arrives live (not for the
// history), so a folded panel can count the unread ones (table-chat.js).
// Spectators get no panel (the server refuses them too).
import { el, t } from "./pagekit.js";

export const MAX_CHARS = 200;

export function createChatPanel({ send, seats, viewer, onNew = () => {} }) {
  const muted = new Set();
  const list = el("ol", { class: "pk-chat-list", "aria-live": "polite", "aria-label": t("chat.messages"), "data-empty": t("chat.none") });
  const input = el("input", { id: "chat-input", maxlength: String(MAX_CHARS), autocomplete: "off", "aria-label": t("chat.placeholder"), placeholder: t("chat.placeholder") });
  const status = el("p", { class: "pk-muted", id: "chat-status", role: "status" });
  const form = el("form", { class: "pk-row", onsubmit: (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    send({ type: "chat", text });
    input.value = "";
  } }, input, el("button", { type: "submit", class: "pk-button", id: "chat-send" }, t("chat.send")));
  const mutes = el("div", { class: "pk-row" });
  function drawMutes() {
    mutes.replaceChildren(
      ...seats.filter((s) => s.seat !== viewer && s.kind === "human").map((s) =>
        el("button", { type: "button", class: "pk-link", "aria-pressed": muted.has(s.seat) ? "true" : "false", "data-mute": String(s.seat),
          onclick: () => send({ type: "mute", seat: s.seat, muted: !muted.has(s.seat) }) },
          t(muted.has(s.seat) ? "chat.unmute" : "chat.mute", { name: s.name }))));
  }
  function add(m) {
    list.append(el("li", { class: "pk-chat-msg" }, el("strong", {}, `${m.name}: `), m.text));
    while (list.children.length > 100) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
  }
  drawMutes();
  const element = el("section", { class: "pk-panel pk-chat", id: "chat", "aria-label": t("chat.title") }, el("h2", {}, t("chat.title")), list, form, mutes, status);
  return {
    element,
    start() {
      send({ type: "chat_history" });
    },
    onMessage(msg) {
      if (msg.type === "chat") {
        add(msg);
        onNew(msg);
      }
      else if (msg.type === "chat_history") {
        list.replaceChildren();
        msg.messages.forEach(add);
        muted.clear();
        msg.muted.forEach((s) => muted.add(s));
        drawMutes();
      } else if (msg.type === "chat_mutes") {
        muted.clear();
        msg.muted.forEach((s) => muted.add(s));
        drawMutes();
      } else if (msg.type === "error" && String(msg.code).startsWith("chat")) {
        status.textContent = t(`chat.error.${msg.code}`);
      }
    },
  };
}
