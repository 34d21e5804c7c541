// The one header of every page: the table app (app.js mounts it into its
// Preact tree) and every stand-alone page (pagekit.js, rules pages through
// rules_page.js).  Why one: two headers had drifted apart (the table lacked
// Learn, the stand-alone pages lacked the account and the sound switch and
// wrapped to three lines on a phone).
//
// What it holds: the brand; Lobby, Learn to play, Daily deal and Rules; the
// language and the sound switch; the account bar (account.js).  On a narrow
// screen the links, language and sound fold into a menu behind one button, so
// the header stays one line at 360 px in every language (header.css).  Built
// with plain DOM calls that only ever write text; no inline script or style, so
// the strict Content-Security-Policy holds.
import { mountAccountBar } from "./account.js";
import { LANGUAGE_NAMES, LANGUAGES, language, onLanguage, setLanguage, t } from "./i18n.js";
import { store } from "./store.js";

/** An element with attributes, onX handlers and text or element children. */
function node(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** The header's links: id, address and catalogue key.  The ids are stable
 * (tests and the pages' aria-current use them). */
export function headerLinks(lang, inApp = false) {
  return [
    // inside the table app the lobby is a route (no reload); elsewhere the page "/"
    ["back-to-lobby", inApp ? "#/" : "/", "nav.lobby"],
    ["nav-learn", "/learn", "nav.learn"],
    ["nav-daily", "/deal?daily", "nav.daily"],
    ["nav-rules", `/rules/${lang}`, "nav.rules"],
  ];
}

/**
 * Build the header.  `opts.current`: the id of the page's own link (marked
 * aria-current); `opts.atTable`: the table's compact form; `opts.onLanguage`:
 * what choosing a language does instead of switching in place (the rules pages
 * open the page in that language); `opts.inApp`: the table app, whose lobby is
 * the route "#/".  Returns {element, update(opts), destroy()}.
 * The element is kept for the page's life: redrawn in place on a language
 * change, with the same account bar (whose form keeps what was typed).
 */
export function createHeader(opts = {}) {
  let options = { ...opts };
  let open = false;
  const element = node("header", { class: "sk-head", id: "site-header" });
  const account = node("div", { id: "account-bar" });
  const stopAccount = mountAccountBar(account);

  function toggleMenu(force) {
    open = force === undefined ? !open : force;
    element.classList.toggle("menu-open", open);
    element.querySelector("#nav-menu")?.setAttribute("aria-expanded", open ? "true" : "false");
  }

  function draw() {
    const lang = language();
    const sound = store.sound();
    const select = node(
      "select",
      { id: "lang-select", "aria-label": t("nav.language") },
      LANGUAGES.map((code) => node("option", { value: code, lang: code, selected: code === lang }, LANGUAGE_NAMES[code])),
    );
    select.value = lang;
    select.addEventListener("change", () => {
      if (options.onLanguage) options.onLanguage(select.value);
      else setLanguage(select.value);
    });
    const soundBtn = node(
      "button",
      {
        type: "button",
        id: "sound-toggle",
        class: sound ? "sk-sound" : "sk-sound off",
        "aria-pressed": sound ? "true" : "false",
        title: t("nav.sound"),
        onclick: () => {
          store.setSound(!store.sound());
          draw();
        },
      },
      node("span", { class: "sk-sound-icon", "aria-hidden": "true" }, "♪"),
      node("span", { class: "sk-sound-label" }, sound ? t("nav.soundOn") : t("nav.soundOff")),
    );
    const links = headerLinks(lang, !!options.inApp).map(([id, href, key]) =>
      node("a", { id, href, "aria-current": options.current === id ? "page" : undefined, onclick: () => toggleMenu(false) }, t(key)),
    );
    const menuBtn = node(
      "button",
      {
        type: "button",
        id: "nav-menu",
        class: "sk-menu-btn",
        "aria-expanded": open ? "true" : "false",
        "aria-controls": "sk-nav",
        "aria-label": t("nav.menu"),
        onclick: () => toggleMenu(),
      },
      node("span", { "aria-hidden": "true" }, "☰"),
    );
    element.className = `sk-head${options.atTable ? " at-table" : ""}${open ? " menu-open" : ""}`;
    element.replaceChildren(
      node("a", { class: "sk-brand", href: options.inApp ? "#/" : "/" }, node("span", {}, t("app.title")), node("small", {}, t("app.tagline"))),
      node(
        "nav",
        { id: "sk-nav", class: "sk-nav", "aria-label": t("nav.main") },
        node("div", { class: "sk-links" }, links),
        node("div", { class: "sk-tools" }, node("label", { class: "sk-lang" }, node("span", { class: "sk-sr" }, t("nav.language")), select), soundBtn),
      ),
      account,
      menuBtn,
    );
  }

  const onKey = (ev) => {
    if (ev.key === "Escape" && open) {
      toggleMenu(false);
      element.querySelector("#nav-menu")?.focus();
    }
  };
  const onClick = (ev) => {
    if (open && !element.contains(ev.target)) toggleMenu(false);
  };
  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  const stopLanguage = onLanguage(() => draw());
  draw();
  return {
    element,
    update(next) {
      const changed = Object.keys(next).some((k) => next[k] !== options[k]);
      options = { ...options, ...next };
      if (changed) draw();
    },
    destroy() {
      stopLanguage();
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("click", onClick);
      if (typeof stopAccount === "function") stopAccount();
    },
  };
}

let shared = null;

/**
 * The header of a stand-alone page, built once and returned again on every
 * redraw (the pages rebuild their whole body with replaceChildren): so the
 * account form keeps what was typed, and the focus stays where it was.
 */
export function pageHeader(current, extra = {}) {
  if (!shared) shared = createHeader({ current, ...extra });
  else shared.update({ current, ...extra });
  const el = shared.element;
  const focused = document.activeElement;
  if (focused && el.contains(focused) && focused !== document.body) {
    const start = focused.selectionStart;
    const end = focused.selectionEnd;
    // moving the header (replaceChildren) blurs it: give the focus back
    queueMicrotask(() => {
      if (el.isConnected && document.activeElement !== focused) {
        focused.focus();
        if (typeof start === "number" && focused.setSelectionRange) {
          try {
            focused.setSelectionRange(start, end);
          } catch {
            /* not a text field */
          }
        }
      }
    });
  }
  return el;
}
