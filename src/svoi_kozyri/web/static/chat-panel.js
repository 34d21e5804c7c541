// @ts-check
// The table chat (server/chat.py) as a component: the messages shown as text
// (never HTML), a length-limited input, and a mute toggle per seat.  It works
// wherever a page has the table's socket (the table's drawer, table-chat.js; the
// end of a session, session.js), through a `chat` channel:
//   { send(msg), subscribe(handlers) -> unsubscribe }
// where `handlers` is a handler table (message type -> handler) the page's
// socket hands its chat messages to.  `onNew(message)` is called for each
// message that arrives live (not for the history), so a folded panel can count
// the unread ones.  Spectators get no panel (the server refuses them too).
import { html, useEffect, useLayoutEffect, useRef, useState } from "./html.js";
import { t } from "./i18n.js";
import { ReportButton } from "./report.js";

/** @typedef {import("./wire.js").ChatLine} ChatLine */
/** @typedef {import("./wire.js").ClientMessage} ClientMessage */
/** @typedef {import("./wire.js").ServerHandlers} ServerHandlers */
/** @typedef {{send: (msg: ClientMessage) => unknown, subscribe: (handlers: ServerHandlers) => () => void}} ChatChannel */
/** @typedef {{seat: number, name: string, kind: string}} ChatSeat */

export const MAX_CHARS = 200;
const KEEP = 100;

/** The words for a refused chat message, or null when the code is not the chat's
 * (the catalogue's chat.error.<code> decides, not the code's spelling).
 * @param {string} code */
export function chatErrorText(code) {
  const key = `chat.error.${code}`;
  const text = t(key);
  return text === key ? null : text;
}

/** A channel that fans the page socket's chat messages out to every subscriber.
 * @param {(msg: ClientMessage) => unknown} send */
export function chatChannel(send) {
  /** @type {Set<ServerHandlers>} */
  const subs = new Set();
  /** @type {ServerHandlers} */
  const handlers = {
    chat: (m) => subs.forEach((h) => h.chat?.(m)),
    chat_history: (m) => subs.forEach((h) => h.chat_history?.(m)),
    chat_mutes: (m) => subs.forEach((h) => h.chat_mutes?.(m)),
  };
  return {
    /** the handlers the page's own handler table takes over */
    handlers,
    /** a refusal for the chat (see chatErrorText): true when it was the chat's
     * @param {import("./wire.js").ServerError} m */
    error(m) {
      if (chatErrorText(m.code) === null) return false;
      subs.forEach((h) => h.error?.(m));
      return true;
    },
    /** @type {ChatChannel} */
    channel: {
      send,
      subscribe(h) {
        subs.add(h);
        return () => subs.delete(h);
      },
    },
  };
}

/**
 * @param {{chat: ChatChannel, seats: ChatSeat[], viewer: number | null, connected?: boolean,
 *   onNew?: (m: ChatLine) => void, focus?: boolean, tableId?: string}} props
 * `tableId`: offer a report button on the others' lines (moderation, report.js).
 */
export function ChatPanel({ chat, seats, viewer, connected = true, onNew = () => {}, focus = false, tableId = "" }) {
  const [lines, setLines] = useState(/** @type {ChatLine[]} */ ([]));
  const [muted, setMuted] = useState(/** @type {number[]} */ ([]));
  const [status, setStatus] = useState("");
  const [text, setText] = useState("");
  const list = useRef(/** @type {HTMLOListElement | null} */ (null));
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  const onNewRef = useRef(onNew);
  onNewRef.current = onNew;
  useEffect(
    () =>
      chat.subscribe({
        chat: (m) => {
          if (m.removed) {
            setLines((old) => old.filter((l) => l.id !== m.id)); // a moderator removed it
            return;
          }
          setLines((old) => [...old, m].slice(-KEEP));
          onNewRef.current(m);
        },
        chat_history: (m) => {
          setLines(m.messages.slice(-KEEP));
          setMuted(m.muted);
        },
        chat_mutes: (m) => setMuted(m.muted),
        error: (m) => setStatus(chatErrorText(m.code) || m.message),
      }),
    [chat],
  );
  // the history is asked again on every (re)connection
  useEffect(() => {
    if (connected) chat.send({ type: "chat_history" });
  }, [chat, connected]);
  useLayoutEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [lines]);
  useLayoutEffect(() => {
    if (focus) input.current?.focus();
  }, [focus]);
  const submit = (/** @type {Event} */ ev) => {
    ev.preventDefault();
    const said = text.trim();
    if (!said) return;
    chat.send({ type: "chat", text: said });
    setText("");
  };
  return html`<section class="pk-panel pk-chat" id="chat" aria-label=${t("chat.title")}>
    <h2>${t("chat.title")}</h2>
    <ol class="pk-chat-list" ref=${list} aria-live="polite" aria-label=${t("chat.messages")} data-empty=${t("chat.none")}>
      ${lines.map((m) => html`<li class="pk-chat-msg"><strong>${`${m.name}: `}</strong>${m.text}${tableId && m.id && m.seat !== viewer ? html` <${ReportButton} tableId=${tableId} name=${m.name} chatId=${m.id} />` : null}</li>`)}
    </ol>
    <form class="pk-row" onSubmit=${submit}>
      <input id="chat-input" ref=${input} maxlength=${MAX_CHARS} autocomplete="off" aria-label=${t("chat.placeholder")} placeholder=${t("chat.placeholder")}
        value=${text} onInput=${(/** @type {Event} */ e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      <button type="submit" class="pk-button" id="chat-send">${t("chat.send")}</button>
    </form>
    <div class="pk-row">
      ${seats
        .filter((s) => s.seat !== viewer && s.kind === "human")
        .map((s) => {
          const on = muted.includes(s.seat);
          return html`<button type="button" class="pk-link" aria-pressed=${on ? "true" : "false"} data-mute=${String(s.seat)}
            onClick=${() => chat.send({ type: "mute", seat: s.seat, muted: !on })}>${t(on ? "chat.unmute" : "chat.mute", { name: s.name })}</button>`;
        })}
    </div>
    <p class="pk-muted" id="chat-status" role="status">${status}</p>
  </section>`;
}
