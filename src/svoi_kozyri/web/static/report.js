// @ts-check
// The report button (platform/moderation.py, docs/web.md "Moderation"): on a
// player's seat at the table and on a chat line.  It opens a small form over the
// page (a sheet at the bottom of a phone) asking what happened; the report goes to
// the moderators' queue.  Guests are told to log in (the server answers
// login_required, worded by the catalogue); the answer never says what was done.
import { request } from "./api.js";
import { html, useState } from "./html.js";
import { t } from "./i18n.js";

/** The form's place and colours: a sheet at the bottom, dark text on white
 * whatever the table's colour (the table's own styles do not reach into it). */
const SHEET = {
  position: "fixed",
  left: "0.5rem",
  right: "0.5rem",
  bottom: "0.5rem",
  zIndex: 50,
  maxWidth: "32rem",
  margin: "0 auto",
  padding: "0.75rem 1rem",
  background: "#ffffff",
  color: "#1a1a1a",
  border: "1px solid #767676",
  borderRadius: "0.5rem",
  boxShadow: "0 4px 16px rgba(0, 0, 0, 0.35)",
};

/** @param {{tableId: string, name: string, seat?: number, chatId?: number}} props */
export function ReportButton({ tableId, name, seat, chatId }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [status, setStatus] = useState("");
  const [sent, setSent] = useState(false);
  const label = t("mod.reportName", { name });
  const send = async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    const said = reason.trim();
    if (!said) return;
    try {
      const body = chatId !== undefined ? { table_id: tableId, chat_id: chatId, reason: said } : { table_id: tableId, seat, reason: said };
      await request("POST", "/api/mod/reports", body);
      setSent(true);
      setStatus(t("mod.sent"));
    } catch (e) {
      setStatus(/** @type {Error} */ (e).message);
    }
  };
  const close = () => {
    setOpen(false);
    setReason("");
    setStatus("");
    setSent(false);
  };
  return html`<button type="button" class="small-btn report-btn" aria-label=${label} title=${label} data-report=${chatId !== undefined ? `chat-${chatId}` : `seat-${seat}`}
      onClick=${() => setOpen(true)}><span aria-hidden="true">⚑</span></button>
    ${open
      ? html`<form class="panel report-form" role="dialog" aria-modal="true" aria-label=${label} onSubmit=${send}
          style=${SHEET}>
          <h2>${label}</h2>
          ${sent
            ? null
            : html`<label class="field" for="report-reason">${t("mod.reason")}
                <textarea id="report-reason" rows="3" maxlength="300" value=${reason}
                  onInput=${(/** @type {Event} */ e) => setReason(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value)}></textarea></label>`}
          <p class="small" id="report-status" role="status">${status}</p>
          <div class="row">
            ${sent ? null : html`<button type="submit" class="primary" id="report-send">${t("mod.send")}</button>`}
            <button type="button" id="report-close" onClick=${close}>${t("mod.cancel")}</button>
          </div>
        </form>`
      : null}`;
}
