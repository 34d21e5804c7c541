// Shared helpers of the stand-alone pages (learn, analysis, deals, session): a DOM
// builder that only ever writes text (never HTML), card images with readable
// names, the site's one header (header.js) and JSON calls through the client's
// one request helper (api.js).  Every visible string comes from the catalogues
// through t().
import { cardName } from "./cards.js";
import { request } from "./api.js";
import { pageHeader } from "./header.js";
import { initI18n, language, onLanguage, t } from "./i18n.js";

// Cards and moves in words come from i18n.js, in the page language's court letters
// (В Д К Т in Russian): one implementation for every page.
export { cardsText, cardText, moveText } from "./i18n.js";
export { t, language, onLanguage };

/** Build an element: attributes, onX handlers, and text or element children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** Suit letters ("SH") as symbols ("♠♥"). */
export function suitsText(suits) {
  return [...(suits || "")].map((s) => SUIT[s] || s).join("");
}

/** A card image with its name ("queen of spades", in the page's language) as
 * the alternative text, for screen readers; Russian packs print В Д К Т in the
 * corners, as at the table. */
export function cardImg(card, cls = "card-img") {
  const src = `/cards/${card}.svg${language() === "ru" ? "?letters=ru" : ""}`;
  return el("img", { class: cls, src, alt: cardName(card, t), width: "60", height: "84" });
}

/** The header of a stand-alone page: the one header of the whole site
 * (header.js), built once and handed back on every redraw; `current` is the id
 * of the page's own link ("nav-learn", "nav-daily", ...). */
export function header(current) {
  // the deal page is the header's "Daily deal" when it shows today's deal
  const q = new URLSearchParams(location.search);
  const daily = current === "nav-deal" && (q.has("daily") || !q.get("id"));
  return pageHeader(daily ? "nav-daily" : current);
}

/** Start a page: load the catalogues, then draw with `render()` and again on
 * every language change (the page keeps its own state between draws). */
export async function startPage(render) {
  await initI18n();
  document.title = t("app.title");
  render();
  onLanguage(() => render());
}

/** JSON from the server through the client's one request helper (api.js):
 * state-changing requests carry the CSRF token, and a refusal is an Error whose
 * message is worded from the page's catalogue (its `code` kept). */
export async function getJSON(path, options = {}) {
  return request(options.method || "GET", path, options.body, options.headers || {});
}

/** POST a JSON body (with the CSRF token, see getJSON). */
export async function postJSON(path, body, headers = {}) {
  return request("POST", path, body, headers);
}
