// @ts-check
// The rules pages (/rules/<lang>) are plain documents, readable without
// JavaScript; with it, their small static header gives way to the site's one
// header (header.js) with the account, sound and language controls.  The page's
// own language wins over the stored choice: choosing another one opens the rules
// in that language.
import { Header } from "./header.js";
import { html, render } from "./html.js";
import { initI18n, setLanguage } from "./i18n.js";

const pageLang = document.documentElement.lang || "en";

/** Open the rules in `lang`, remembered as the site's language. */
function openRules(/** @type {string} */ lang) {
  try {
    localStorage.setItem("sk.lang", lang);
  } catch {
    /* not remembered */
  }
  location.href = `/rules/${lang}`;
}

initI18n()
  .then(() => setLanguage(pageLang, { remember: false }))
  .then(() => {
    // the header renders into a fragment's place: the old static header's
    const slot = document.createElement("div");
    slot.className = "sk-head-slot";
    const old = document.querySelector("body > header");
    if (old) old.replaceWith(slot);
    else document.body.prepend(slot);
    render(html`<${Header} current="nav-rules" onLanguage=${openRules} />`, slot);
  });
