// The rules pages (/rules/<lang>) are plain documents, readable without
// JavaScript; with it, their small static header gives way to the site's one
// header (header.js) with the account, sound and language controls.  The page's
// own language wins over the stored choice: choosing another one opens the rules
// in that language.
import { createHeader } from "./header.js";
import { initI18n, setLanguage } from "./i18n.js";

const pageLang = document.documentElement.lang || "en";

initI18n()
  .then(() => setLanguage(pageLang, { remember: false }))
  .then(() => {
    const head = createHeader({
      current: "nav-rules",
      onLanguage: (lang) => {
        try {
          localStorage.setItem("sk.lang", lang);
        } catch {
          /* not remembered */
        }
        location.href = `/rules/${lang}`;
      },
    });
    const old = document.querySelector("body > header");
    if (old) old.replaceWith(head.element);
    else document.body.prepend(head.element);
  });
