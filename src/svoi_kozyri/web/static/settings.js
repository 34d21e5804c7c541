// @ts-check
// The header's settings (header.js): the card deck, the corner letters, the
// table's colour (theme.js) and "notify me on my turn" (pwa.js).  A button that
// opens a small panel under the header (inside the folded menu on a phone); every
// choice applies at once and is remembered in this browser, and in the account
// of a logged-in player (prefs.js), whose saved choices the panel shows once
// they arrive.  Text only, no inline style, so the strict
// Content-Security-Policy holds.
import { html, useEffect, useRef, useState } from "./html.js";
import { t } from "./i18n.js";
import { save as savePrefs } from "./prefs.js";
import { notificationPermission, notificationsSupported, setNotifications } from "./pwa.js";
import { store } from "./store.js";
import { CORNER_LETTERS, DECKS, TABLE_COLOURS, onTheme, setTheme, theme } from "./theme.js";

/** One select of the panel.
 * @param {{id: string, label: string, value: string, options: string[], prefix: string, onChange: (value: string) => void}} props */
function Choice({ id, label, value, options, prefix, onChange }) {
  return html`<label class="sk-setting" for=${id}><span>${label}</span>
    <select id=${id} value=${value} onChange=${(/** @type {Event} */ ev) => onChange(/** @type {HTMLSelectElement} */ (ev.currentTarget).value)}>
      ${options.map((o) => html`<option value=${o} selected=${o === value}>${t(`${prefix}.${o}`)}</option>`)}
    </select>
  </label>`;
}

/** The settings button and its panel. */
export function Settings() {
  const [open, setOpen] = useState(false);
  const [now, setNow] = useState(theme());
  const [notify, setNotify] = useState(store.notify() && notificationPermission() === "granted");
  const [note, setNote] = useState("");
  const root = useRef(/** @type {HTMLElement | null} */ (null));
  const button = useRef(/** @type {HTMLButtonElement | null} */ (null));
  // the theme may change under the panel (an account's choices applied at log-in)
  useEffect(() => {
    const off = onTheme((next) => setNow(next));
    return () => {
      off();
    };
  }, []);
  useEffect(() => {
    if (!open) return undefined;
    setNotify(store.notify() && notificationPermission() === "granted");
    const onKey = (/** @type {KeyboardEvent} */ ev) => {
      if (ev.key === "Escape") {
        setOpen(false);
        button.current?.focus();
      }
    };
    const onClick = (/** @type {MouseEvent} */ ev) => {
      if (root.current && !root.current.contains(/** @type {Node} */ (ev.target))) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("click", onClick);
    };
  }, [open]);
  const change = (/** @type {Partial<import("./theme.js").Theme>} */ part) => {
    setTheme(part);
    setNow(theme());
  };
  const toggleNotify = async (/** @type {Event} */ ev) => {
    const want = /** @type {HTMLInputElement} */ (ev.currentTarget).checked;
    const on = await setNotifications(want);
    setNotify(on);
    // the account keeps the player's wish, not this browser's refusal of it
    if (on === want) savePrefs(["notify"]);
    if (want && !on) setNote(notificationsSupported() ? t("settings.notifyBlocked") : t("settings.notifyUnsupported"));
    else setNote("");
  };
  return html`<div class="sk-settings" ref=${root}>
    <button type="button" id="settings-open" class="sk-settings-btn" aria-expanded=${open ? "true" : "false"} aria-controls="settings-panel" title=${t("settings.open")}
      onClick=${() => setOpen(!open)}>
      <span class="sk-settings-icon" aria-hidden="true">⚙</span>
      <span class="sk-settings-label">${t("settings.open")}</span>
    </button>
    ${open
      ? html`<div id="settings-panel" class="sk-settings-panel" role="group" aria-label=${t("settings.open")}>
          <${Choice} id="deck-select" label=${t("settings.deck")} value=${now.deck} options=${DECKS} prefix="settings.deck" onChange=${(/** @type {string} */ v) => change({ deck: v })} />
          <${Choice} id="letters-select" label=${t("settings.letters")} value=${now.letters} options=${CORNER_LETTERS} prefix="settings.letters" onChange=${(/** @type {string} */ v) => change({ letters: v })} />
          <${Choice} id="table-select" label=${t("settings.table")} value=${now.table} options=${TABLE_COLOURS} prefix="settings.table" onChange=${(/** @type {string} */ v) => change({ table: v })} />
          <label class="sk-setting sk-check" for="notify-toggle">
            <input type="checkbox" id="notify-toggle" checked=${notify} onChange=${toggleNotify} />
            <span>${t("settings.notify")}</span>
          </label>
          <p id="settings-note" class="sk-settings-note" role="status">${note}</p>
        </div>`
      : null}
  </div>`;
}
