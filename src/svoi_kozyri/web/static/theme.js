// @ts-check
// How the game looks, chosen in the header's settings (settings.js) and
// remembered in this browser (store.js, localStorage): the card deck (the
// classic one, a four-colour one, one with large corner indices for phones), the
// corner letters of the courts and the ace (those of the page's language, or
// J Q K A, or В Д К Т, whatever the language) and the table's colour (light
// green felt or dark); a logged-in player's choices follow their account too
// (prefs.js).  `cardSrc` is the one place that writes a card image's
// address, so every page draws the same deck; the server draws it
// (/cards/<CARD>.svg?deck=&letters=, svoi_kozyri/svg.py DECKS).
import { language } from "./i18n.js";
import { store } from "./store.js";

/** The decks, the letters and the table colours a player can choose; the first is the default. */
export const DECKS = ["classic", "four", "large"];
export const CORNER_LETTERS = ["auto", "en", "ru"];
export const TABLE_COLOURS = ["light", "dark"];

/**
 * @typedef {object} Theme
 * @property {string} deck one of DECKS
 * @property {string} letters one of CORNER_LETTERS ("auto": the page's language's)
 * @property {string} table one of TABLE_COLOURS
 */

/** `value` if it is one of `allowed`, else the default (the first).
 * @param {string | null | undefined} value
 * @param {string[]} allowed */
export function oneOf(value, allowed) {
  return value && allowed.includes(value) ? value : allowed[0];
}

/** The address of a card image for a deck and letters in language `lang`: the
 * defaults (classic, J Q K A) add nothing, so the address is the one the
 * browser (and the service worker) may have cached already.
 * @param {string} card "QS", "10H"
 * @param {{deck: string, letters: string}} theme
 * @param {string} lang */
export function cardSrcFor(card, theme, lang) {
  const letters = theme.letters === "auto" ? (lang === "ru" ? "ru" : "en") : theme.letters;
  const query = [];
  if (letters !== "en") query.push(`letters=${letters}`);
  if (theme.deck !== "classic") query.push(`deck=${theme.deck}`);
  return `/cards/${card}.svg${query.length ? `?${query.join("&")}` : ""}`;
}

/** The theme this browser remembers.
 * @returns {Theme} */
export function theme() {
  return {
    deck: oneOf(store.deck(), DECKS),
    letters: oneOf(store.letters(), CORNER_LETTERS),
    table: oneOf(store.tableColour(), TABLE_COLOURS),
  };
}

/** The image address of `card` in the chosen deck and letters.
 * @param {string} card */
export function cardSrc(card) {
  return cardSrcFor(card, theme(), language());
}

/** @type {Set<(theme: Theme, change: Partial<Theme>) => void>} */
const listeners = new Set();

/** Call `fn` whenever the theme changes, with the new theme and the change made
 * (prefs.js saves the keys changed); returns the unsubscribe function.
 * @param {(theme: Theme, change: Partial<Theme>) => void} fn */
export function onTheme(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The table colour on the document (<html data-table="dark">, style.css and pages.css). */
export function applyTable() {
  if (typeof document === "undefined") return;
  document.documentElement.dataset.table = theme().table;
}

/** Remember a change of the theme, apply it and redraw whoever listens.
 * @param {Partial<Theme>} change */
export function setTheme(change) {
  if (change.deck !== undefined) store.setDeck(oneOf(change.deck, DECKS));
  if (change.letters !== undefined) store.setLetters(oneOf(change.letters, CORNER_LETTERS));
  if (change.table !== undefined) store.setTableColour(oneOf(change.table, TABLE_COLOURS));
  applyTable();
  const now = theme();
  for (const fn of listeners) fn(now, change);
}

applyTable();
