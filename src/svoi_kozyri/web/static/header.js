// @ts-check
// The one header of every page: the table app (app.js), every stand-alone page
// (page.js) and the rules pages (rules_page.js) render this component.  Why one:
// two headers had drifted apart (the table lacked Learn, the stand-alone pages
// lacked the account and the sound switch and wrapped to three lines on a phone).
//
// What it holds: the brand; Lobby, Learn to play, Daily deal and Rules; the
// language and the sound switch; the settings (settings.js: cards, corner
// letters, table colour, notifications); the account bar (account.js).  It also
// registers the service worker (pwa.js), since every page renders it.  On a narrow
// screen the links, language and sound fold into a menu behind one button, so
// the header stays one line at 360 px in every language (header.css).  A Preact
// component that only ever writes text; no inline script or style, so the
// strict Content-Security-Policy holds.
import { AccountBar } from "./account.js";
import { html, useEffect, useRef, useState } from "./html.js";
import { LANGUAGE_NAMES, LANGUAGES, language, setLanguage, t } from "./i18n.js";
import { registerWorker } from "./pwa.js";
import { Settings } from "./settings.js";
import { store } from "./store.js";

/** The header's links: id, address and catalogue key.  The ids are stable
 * (tests and the pages' aria-current use them).
 * @param {string} lang
 * @param {boolean} [inApp]
 * @returns {[string, string, string][]} */
export function headerLinks(lang, inApp = false) {
  return [
    // inside the table app the lobby is a route (no reload); elsewhere the page "/"
    ["back-to-lobby", inApp ? "#/" : "/", "nav.lobby"],
    ["nav-tournaments", inApp ? "#/tournaments" : "/#/tournaments", "nav.tournaments"],
    ["nav-learn", "/learn", "nav.learn"],
    ["nav-daily", "/deal?daily", "nav.daily"],
    ["nav-rules", `/rules/${lang}`, "nav.rules"],
  ];
}

/**
 * @typedef {object} HeaderProps
 * @property {string} [current] the id of the page's own link (marked aria-current)
 * @property {boolean} [atTable] the table's compact form
 * @property {boolean} [inApp] the table app, whose lobby is the route "#/"
 * @property {(lang: string) => void} [onLanguage] what choosing a language does
 *   instead of switching in place (the rules pages open the page in that language)
 */

/** The site's header.  It redraws with its parent (the page redraws on a
 * language change); the account bar inside keeps its own state.
 * @param {HeaderProps} props */
export function Header({ current, atTable = false, inApp = false, onLanguage }) {
  const [open, setOpen] = useState(false);
  const [sound, setSound] = useState(store.sound());
  const root = useRef(/** @type {HTMLElement | null} */ (null));
  const menuBtn = useRef(/** @type {HTMLButtonElement | null} */ (null));
  useEffect(() => registerWorker(), []);
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (/** @type {KeyboardEvent} */ ev) => {
      if (ev.key === "Escape") {
        setOpen(false);
        menuBtn.current?.focus();
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
  const lang = language();
  const choose = (/** @type {Event} */ ev) => {
    const value = /** @type {HTMLSelectElement} */ (ev.currentTarget).value;
    if (onLanguage) onLanguage(value);
    else setLanguage(value);
  };
  const toggleSound = () => {
    store.setSound(!store.sound());
    setSound(store.sound());
  };
  return html`<header class=${`sk-head${atTable ? " at-table" : ""}${open ? " menu-open" : ""}`} id="site-header" ref=${root}>
    <a class="sk-brand" href=${inApp ? "#/" : "/"}><span>${t("app.title")}</span><small>${t("app.tagline")}</small></a>
    <nav id="sk-nav" class="sk-nav" aria-label=${t("nav.main")}>
      <div class="sk-links">
        ${headerLinks(lang, inApp).map(
          ([id, href, key]) => html`<a id=${id} href=${href} aria-current=${current === id ? "page" : undefined} onClick=${() => setOpen(false)}>${t(key)}</a>`,
        )}
      </div>
      <div class="sk-tools">
        <label class="sk-lang"><span class="sk-sr">${t("nav.language")}</span>
          <select id="lang-select" aria-label=${t("nav.language")} value=${lang} onChange=${choose}>
            ${LANGUAGES.map((code) => html`<option value=${code} lang=${code} selected=${code === lang}>${LANGUAGE_NAMES[/** @type {keyof typeof LANGUAGE_NAMES} */ (code)]}</option>`)}
          </select>
        </label>
        <button type="button" id="sound-toggle" class=${sound ? "sk-sound" : "sk-sound off"} aria-pressed=${sound ? "true" : "false"} title=${t("nav.sound")} onClick=${toggleSound}>
          <span class="sk-sound-icon" aria-hidden="true">♪</span>
          <span class="sk-sound-label">${sound ? t("nav.soundOn") : t("nav.soundOff")}</span>
        </button>
        <${Settings} />
      </div>
    </nav>
    <${AccountBar} />
    <button type="button" id="nav-menu" class="sk-menu-btn" ref=${menuBtn} aria-expanded=${open ? "true" : "false"} aria-controls="sk-nav" aria-label=${t("nav.menu")}
      onClick=${() => setOpen(!open)}><span aria-hidden="true">☰</span></button>
  </header>`;
}
