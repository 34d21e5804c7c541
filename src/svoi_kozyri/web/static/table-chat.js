// @ts-check
// The table chat at the live table: a button in the table's head with an unread
// badge that opens the chat (chat-panel.js) in a drawer over the table, so the
// chat never takes room from the hand, the top card and the buttons on a phone.
// Players only: spectators get no button (the server refuses them too).  The
// panel keeps its input and messages while the table redraws; it asks for the
// history again whenever the socket (re)connects.
import { ChatPanel } from "./chat-panel.js";
import { html, useLayoutEffect, useRef, useState } from "./html.js";
import { t } from "./i18n.js";

/** @typedef {import("./chat-panel.js").ChatChannel} ChatChannel */
/** @typedef {import("./wire.js").TableView} TableView */

/** `chat`: the table page's chat channel (chat-panel.js, chatChannel).
 * @param {{view: TableView, conn: string, chat: ChatChannel}} props */
export function TableChat({ view, conn, chat }) {
  const [open, setOpen] = useState(false);
  const [unread, setUnread] = useState(0);
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  const openRef = useRef(false);
  openRef.current = open;
  const viewer = view.viewer;
  // only seated humans can be muted; an open seat has nobody to mute yet
  const seats = view.seats.map((s) => ({ seat: s.seat, name: s.name, kind: s.kind === "human" && s.taken ? "human" : "other" }));
  const onNew = (/** @type {import("./wire.js").ChatLine} */ m) => {
    if (!openRef.current && m.seat !== viewer) setUnread((u) => u + 1);
  };
  const toggle = () => {
    setOpen(!open);
    setUnread(0);
  };
  // focus moves with the opening itself, in the same commit that shows the drawer
  // (a layout effect runs before the browser paints): with a passive effect the
  // drawer was visible for a frame or more, on a loaded machine much longer,
  // before its input had the focus, and a keystroke typed then went elsewhere
  useLayoutEffect(() => {
    if (open) box.current?.querySelector("#chat-input")?.focus();
  }, [open]);
  const onKey = (/** @type {KeyboardEvent} */ ev) => {
    if (ev.key === "Escape") {
      setOpen(false);
      document.getElementById("chat-toggle")?.focus();
    }
  };
  return html`<button type="button" class="small-btn chat-toggle" id="chat-toggle" aria-expanded=${open ? "true" : "false"} aria-controls="chat-drawer" onClick=${toggle}>
      ${t("chat.button")}${unread
        ? html` <span class="badge" id="chat-unread" aria-hidden="true">${unread}</span><span class="sr-only">${t("chat.unread", { count: unread })}</span>`
        : null}
    </button>
    <div class="chat-drawer" id="chat-drawer" hidden=${!open} onKeyDown=${onKey}>
      <button type="button" class="small-btn chat-close" id="chat-close" aria-label=${t("chat.close")} title=${t("chat.close")} onClick=${toggle}><span aria-hidden="true">×</span></button>
      <div class="chat-box" ref=${box}><${ChatPanel} chat=${chat} seats=${seats} viewer=${viewer} tableId=${view.table_id} connected=${conn === "connected"} onNew=${onNew} /></div>
    </div>`;
}
