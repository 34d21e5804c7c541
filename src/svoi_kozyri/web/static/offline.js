// @ts-check
// The offline page (offline.html, shown by the service worker when the network is
// down): of its seven texts, show the one of the site's language (the stored
// choice, else the browser's), as i18n.js chooses it.
import { LANGUAGES, pickLanguage } from "./i18n.js";

let lang = null;
try {
  lang = localStorage.getItem("sk.lang");
} catch {
  /* no storage: the browser's language */
}
if (!lang || !LANGUAGES.includes(lang)) lang = pickLanguage(navigator.languages || [navigator.language]);
document.documentElement.lang = lang;
for (const section of document.querySelectorAll("#offline > section")) {
  /** @type {HTMLElement} */ (section).hidden = section.getAttribute("data-lang") !== lang;
}
