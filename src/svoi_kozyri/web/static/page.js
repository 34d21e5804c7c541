// @ts-check
// The stand-alone pages (learn, analysis, deals, session) are Preact trees like
// the table app: each keeps its state in one object and draws it with
// `draw(body)`, which renders the site's one header (header.js) and the page's
// body (an htm template, its <main>) into #page; Preact patches the document in
// place, so the header's account form keeps what was typed and the focus stays
// where it was.  Every visible string comes from the catalogues through t();
// card images have their names (in the page's language) as alternative text.
// HTTP goes through the client's one request helper (api.js).
import { SUIT_SYMBOLS, cardName } from "./cards.js";
import { Header } from "./header.js";
import { html, render } from "./html.js";
import { initI18n, onLanguage, t } from "./i18n.js";
import { cardSrc, onTheme } from "./theme.js";

/** Suit letters ("SH") as symbols ("♠♥").
 * @param {string | null | undefined} suits */
export function suitsText(suits) {
  return [...(suits || "")].map((s) => /** @type {Record<string, string>} */ (SUIT_SYMBOLS)[s] || s).join("");
}

/** A card image with its name ("queen of spades", in the page's language) as
 * the alternative text, for screen readers; in the chosen deck and corner
 * letters (theme.js), as at the table.
 * @param {string} card
 * @param {string} [cls] */
export function cardImg(card, cls = "card-img") {
  return html`<img class=${cls} src=${cardSrc(card)} alt=${cardName(card, t)} width="60" height="84" />`;
}

/** @type {string | undefined} */
let current;

/** The page's header link id ("nav-learn", ...): the deal page is the header's
 * "Daily deal" when it shows today's deal.
 * @param {string} id */
function currentLink(id) {
  const q = new URLSearchParams(location.search);
  return id === "nav-deal" && (q.has("daily") || !q.get("id")) ? "nav-daily" : id;
}

/** Draw the page: the header and `body` (a Preact tree, the page's <main>).
 * Synchronous: what it drew can be focused or scrolled to right after.
 * @param {unknown} body */
export function draw(body) {
  const root = /** @type {HTMLElement} */ (document.getElementById("page"));
  render(html`<${Header} current=${current} />${body}`, root);
}

/** Start a page: load the catalogues, then draw with `redraw()` and again on
 * every language or theme change (the page keeps its own state between draws).
 * @param {string} link the header link of the page ("nav-learn", ...)
 * @param {() => void} redraw */
export async function startPage(link, redraw) {
  await initI18n();
  current = currentLink(link);
  document.title = t("app.title");
  // the server's placeholder ("Loading…") goes: Preact owns #page from here on
  document.getElementById("page")?.replaceChildren();
  redraw();
  onLanguage(() => redraw());
  onTheme(() => redraw());
}
