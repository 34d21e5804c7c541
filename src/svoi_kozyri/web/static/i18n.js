// @ts-check
// Message catalogues: every user-visible string of the web client comes from
// static/i18n/<lang>.json through t(key, params).  The catalogues are flat
// objects of keys ("table.yourTurn") to ICU-ish strings with {name} parameters;
// a plural form is chosen with Intl.PluralRules from the "count" parameter
// when the catalogue has keys "<key>.one", "<key>.few", "<key>.many",
// "<key>.other".  A missing key falls back to English, then to the key itself,
// so a half-translated catalogue never shows an empty screen.
//
// The pure functions (format, pluralKey, pickLanguage) take everything they
// need as arguments, so the Node unit tests (tests/js) can check them without
// a browser.

export const LANGUAGES = ["en", "ru", "it", "es", "nl", "pt", "ko"];

/** The language names as shown in the switcher (each in its own language). */
export const LANGUAGE_NAMES = {
  en: "English",
  ru: "Русский",
  it: "Italiano",
  es: "Español",
  nl: "Nederlands",
  pt: "Português",
  ko: "한국어",
};

const STORE_KEY = "sk.lang";

/** The first of the browser's preferred languages that has a catalogue, else English. */
export function pickLanguage(preferred, available = LANGUAGES) {
  for (const tag of preferred || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (available.includes(base)) return base;
  }
  return "en";
}

/** The catalogue key holding the plural form of `key` for `count` in `lang`. */
export function pluralKey(catalogue, key, count, lang) {
  if (typeof count !== "number") return key;
  if (count === 0 && `${key}.zero` in catalogue) return `${key}.zero`;
  const category = new Intl.PluralRules(lang).select(count);
  if (`${key}.${category}` in catalogue) return `${key}.${category}`;
  if (`${key}.other` in catalogue) return `${key}.other`;
  return key;
}

/** Replace every {name} in `text` by params[name] (unknown names stay visible). */
export function format(text, params = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    name in params && params[name] !== undefined && params[name] !== null ? String(params[name]) : whole,
  );
}

/** Translate `key` with the catalogue of `lang`, falling back to `fallback` (English). */
export function translate(catalogues, lang, key, params = {}) {
  for (const code of [lang, "en"]) {
    const cat = catalogues[code];
    if (!cat) continue;
    const k = pluralKey(cat, key, params.count, code);
    if (k in cat) return format(cat[k], params);
  }
  return key;
}

const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** A card in the short form used inside sentences, with the court letters of
 * `lang`'s catalogue ("QS" -> "Д♠" in Russian, "Q♠" in English), the letters
 * the corners of that language's cards show.  Every card written in a text goes
 * through this (or cards.js shortName, which reads the same catalogue keys), so
 * a Russian line never mixes a Latin "A" (the ace) with the seat letter A. */
export function cardTextIn(catalogues, lang, card) {
  if (!card) return "";
  const rank = String(card).slice(0, -1);
  const suit = String(card).slice(-1);
  let shown = rank;
  if ("JQKA".includes(rank) && rank.length === 1) {
    const key = `card.short.${rank}`;
    const text = translate(catalogues, lang, key);
    if (text !== key) shown = text;
  }
  return shown + (SUIT_SYMBOLS[suit] || suit);
}

/** A move of the notation ("beat 6D lead QS") in words of `lang`: "beat with 6♦, lead Д♠". */
export function moveTextIn(catalogues, lang, move) {
  const w = String(move || "").split(" ");
  const card = (c) => cardTextIn(catalogues, lang, c);
  if (w[0] === "lead") return translate(catalogues, lang, "analysis.mv.lead", { card: card(w[1]) });
  if (w[0] === "beat" && w.length === 4)
    return translate(catalogues, lang, "analysis.mv.beatLead", { beat: card(w[1]), lead: card(w[3]) });
  if (w[0] === "beat") return translate(catalogues, lang, "analysis.mv.beatOut", { beat: card(w[1]) });
  return translate(catalogues, lang, "analysis.mv.pickup");
}

// ---------------------------------------------------------------- the browser side

const catalogues = {};
let current = "en";
const listeners = new Set();

async function load(lang) {
  if (catalogues[lang]) return;
  const res = await fetch(`/static/i18n/${lang}.json`);
  if (!res.ok) throw new Error(`no catalogue for ${lang}`);
  catalogues[lang] = await res.json();
}

function storedLanguage() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

/** The language this browser chose (remembered), or null while it follows the
 * browser's own languages (prefs.js gives a chosen one to the account). */
export function chosenLanguage() {
  const stored = storedLanguage();
  return stored && LANGUAGES.includes(stored) ? stored : null;
}

/** Load English and the chosen language (stored choice, else the browser's). */
export async function initI18n() {
  const stored = storedLanguage();
  const lang = stored && LANGUAGES.includes(stored) ? stored : pickLanguage(navigator.languages || [navigator.language]);
  await load("en");
  await setLanguage(lang, { remember: false });
}

/** Switch the language (remembered in localStorage unless `remember` is false:
 * the first choice from the browser's languages) and redraw whoever listens;
 * listeners learn whether it was remembered (a person's choice, prefs.js). */
export async function setLanguage(lang, { remember = true } = {}) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  try {
    await load(lang);
  } catch {
    lang = "en";
  }
  current = lang;
  document.documentElement.lang = lang;
  if (remember) {
    try {
      localStorage.setItem(STORE_KEY, lang);
    } catch {
      /* private mode: the choice lasts for this page only */
    }
  }
  for (const fn of listeners) fn(lang, remember);
}

export function language() {
  return current;
}

/** Call `fn(lang, remembered)` whenever the language changes; returns the unsubscribe function. */
export function onLanguage(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The text of `key` in the current language. */
export function t(key, params = {}) {
  return translate(catalogues, current, key, params);
}

/** The loaded catalogue of a language (tests compare the English and Russian ones). */
export function catalogue(lang) {
  return catalogues[lang] || {};
}

/** A card in the current language ("Д♠" in Russian): see cardTextIn. */
export function cardText(card) {
  return cardTextIn(catalogues, current, card);
}

/** A list of cards in the current language ("10♥ В♠"). */
export function cardsText(cards) {
  return (cards || []).map(cardText).join(" ");
}

/** A move in words of the current language ("beat with 6♦, lead Д♠"). */
export function moveText(move) {
  return moveTextIn(catalogues, current, move);
}

