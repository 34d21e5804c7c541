// @ts-check
// Per-account preferences (docs/web.md, "Themes and per-account preferences"):
// the card deck, the corner letters, the table's colour, "notify me on my turn"
// and the language follow a logged-in player to every device.
//
// The browser keeps its own choices (store.js, i18n.js) as before; this module
// only mirrors them to the account (GET and PUT /api/account/prefs):
// * when an account logs in (or is created) here, its saved choices are applied
//   (the account wins over this browser's) and this browser then keeps them;
//   what the account has not chosen yet but this browser has (a value in its
//   storage) is given to the account.  A page opened by a browser that is
//   already logged in keeps the browser's choices (it only learns the
//   account's, to send what differs when something changes);
// * a change made while logged in (settings panel, language switcher) is saved
//   to the account, a moment later so that a quick run of changes is one request,
//   or at once when the tab is hidden or left.  Until the account has it, the
//   change is noted in this browser's storage (sk.prefs.unsent), so that one the
//   page could not send (the tab closed, the network down) is sent by the next
//   page of the same account (or kept over the account's older value at the
//   next log-in here);
// * logged out, nothing is sent: the browser keeps its own.
// account.js calls followAccount() on every log-in and log-out.
import { request } from "./api.js";
import { LANGUAGES, chosenLanguage, language, onLanguage, setLanguage } from "./i18n.js";
import { store } from "./store.js";
import { CORNER_LETTERS, DECKS, TABLE_COLOURS, onTheme, setTheme, theme } from "./theme.js";

/**
 * What an account may save; every key optional (GET /api/account/prefs answers
 * only those the account has chosen).
 * @typedef {object} Prefs
 * @property {string} [deck] one of DECKS
 * @property {string} [letters] one of CORNER_LETTERS
 * @property {string} [table] one of TABLE_COLOURS
 * @property {boolean} [notify]
 * @property {string} [lang] one of LANGUAGES
 */
/** @typedef {"deck" | "letters" | "table" | "notify" | "lang"} PrefKey */

export const PREF_KEYS = /** @type {PrefKey[]} */ (["deck", "letters", "table", "notify", "lang"]);
export const PATH = "/api/account/prefs";
const SETTLE_MS = 400;
const RETRY_MS = 10_000;
const MAX_TRIES = 4;
const UNSENT = "sk.prefs.unsent";

/** @type {Record<string, string[]>} */
const ALLOWED = { deck: DECKS, letters: CORNER_LETTERS, table: TABLE_COLOURS, lang: LANGUAGES };

/** The known preferences of a server answer, anything else dropped (an answer
 * from a newer or older server never puts an unknown value in the browser).
 * @param {unknown} raw
 * @returns {Prefs} */
export function cleanPrefs(raw) {
  /** @type {Record<string, string | boolean>} */
  const out = {};
  if (!raw || typeof raw !== "object") return out;
  const given = /** @type {Record<string, unknown>} */ (raw);
  for (const key of PREF_KEYS) {
    const value = given[key];
    if (key === "notify" ? typeof value === "boolean" : typeof value === "string" && ALLOWED[key].includes(value)) {
      out[key] = /** @type {string | boolean} */ (value);
    }
  }
  return out;
}

/** The change to send: each of `keys` whose value here differs from the account's.
 * @param {Required<Prefs>} here
 * @param {Prefs} saved
 * @param {Iterable<PrefKey>} keys
 * @returns {Prefs} */
export function changeToSend(here, saved, keys) {
  /** @type {Record<string, string | boolean>} */
  const out = {};
  for (const key of keys) if (here[key] !== saved[key]) out[key] = here[key];
  return out;
}

/** The browser's current preferences.
 * @returns {Required<Prefs>} */
export function localPrefs() {
  const now = theme();
  return { deck: now.deck, letters: now.letters, table: now.table, notify: store.notify(), lang: language() };
}

/** The preferences this browser chose itself (a value in its storage): the ones
 * given to an account that has not chosen them yet.
 * @returns {PrefKey[]} */
function chosenHere() {
  /** @type {PrefKey[]} */
  const keys = [];
  if (store.deck() !== null) keys.push("deck");
  if (store.letters() !== null) keys.push("letters");
  if (store.tableColour() !== null) keys.push("table");
  if (store.notify()) keys.push("notify");
  if (chosenLanguage() !== null) keys.push("lang");
  return keys;
}

/** The account being followed (its name), what it has saved and whether that
 * is known yet (its answer came); null for a guest.
 * @type {{name: string, saved: Prefs, loaded: boolean} | null} */
let account = null;
/** @type {Set<PrefKey>} */
const pending = new Set();
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
let sending = false;
/** @type {PrefKey[]} */
let inflight = [];
let tries = 0;

/** Note in the browser's storage which changes the account has not got yet
 * (none: the note is removed), whose they are, for the next page. */
function noteUnsent() {
  try {
    const keys = [...pending, ...inflight];
    if (account && keys.length) localStorage.setItem(UNSENT, JSON.stringify({ name: account.name, keys }));
    else localStorage.removeItem(UNSENT);
  } catch {
    /* no storage: this page's own save still goes */
  }
}

/** The changes an earlier page of account `name` could not send.
 * @param {string} name
 * @returns {PrefKey[]} */
function unsentOf(name) {
  try {
    const note = JSON.parse(localStorage.getItem(UNSENT) || "null");
    if (!note || note.name !== name || !Array.isArray(note.keys)) return [];
    return PREF_KEYS.filter((k) => note.keys.includes(k));
  } catch {
    return [];
  }
}

/** Apply the account's choices here; the browser keeps them (its storage).
 * @param {Prefs} prefs */
async function apply(prefs) {
  /** @type {Partial<import("./theme.js").Theme>} */
  const look = {};
  if (prefs.deck) look.deck = prefs.deck;
  if (prefs.letters) look.letters = prefs.letters;
  if (prefs.table) look.table = prefs.table;
  if (Object.keys(look).length) setTheme(look);
  if (typeof prefs.notify === "boolean") store.setNotify(prefs.notify);
  if (prefs.lang && prefs.lang !== language()) await setLanguage(prefs.lang);
}

/** Follow `user`'s account (null: logged out, stop saving).  Called by
 * account.js whenever who is logged in is learnt or changes; `loggedIn`: the
 * player has just logged in (or created the account) here, so the account's
 * choices are applied.
 * @param {{username: string} | null} user
 * @param {boolean} [loggedIn] */
export async function followAccount(user, loggedIn = false) {
  if (!user) {
    account = null;
    pending.clear();
    noteUnsent();
    return;
  }
  if (account && account.name === user.username) return;
  const name = user.username;
  account = { name, saved: {}, loaded: false };
  let prefs;
  try {
    prefs = cleanPrefs((await request("GET", PATH)).prefs);
  } catch {
    if (account?.name === name) account = null; // no account prefs this page: the browser's stand
    return;
  }
  if (account?.name !== name) return; // logged out or in as someone else meanwhile
  account.saved = prefs;
  account.loaded = true;
  // a change made here while the answer was on its way, or one an earlier page
  // could not send, is newer: it stays, and is saved
  const changed = new Set([...pending, ...unsentOf(name)]);
  if (loggedIn) {
    /** @type {Prefs} */
    const theirs = {};
    for (const key of PREF_KEYS) if (key in prefs && !changed.has(key)) Object.assign(theirs, { [key]: prefs[key] });
    await apply(theirs);
    changed.forEach((k) => pending.add(k));
    save(chosenHere().filter((k) => !(k in prefs)));
  } else {
    save(changed);
  }
}

/** Save `keys` to the account (if one is logged in and they changed), a moment
 * later: a quick run of changes makes one request.
 * @param {Iterable<PrefKey>} keys */
export function save(keys) {
  if (!account) return;
  for (const key of keys) pending.add(key);
  if (pending.size) noteUnsent();
  if (pending.size && !timer) timer = setTimeout(flush, SETTLE_MS);
}

/** Send what is pending (one request at a time); a refusal other than "not
 * logged in" or "invalid" is tried again a few times, a little later. */
async function flush() {
  timer = null;
  if (!account || !account.loaded || sending || !pending.size) return;
  const mine = account;
  const body = changeToSend(localPrefs(), mine.saved, pending);
  pending.clear();
  if (Object.keys(body).length) {
    sending = true;
    inflight = /** @type {PrefKey[]} */ (Object.keys(body));
    try {
      mine.saved = cleanPrefs((await request("PUT", PATH, body)).prefs);
      tries = 0;
    } catch (e) {
      const status = /** @type {import("./api.js").RequestError} */ (e).status;
      if (status !== 401 && status !== 422 && ++tries < MAX_TRIES && account === mine) {
        for (const key of inflight) pending.add(key);
        timer = setTimeout(flush, RETRY_MS);
      } else {
        tries = 0; // given up: the account keeps its choice, this browser its own
      }
    } finally {
      sending = false;
      inflight = [];
    }
  }
  if (account !== mine) return;
  noteUnsent();
  if (pending.size && !timer) timer = setTimeout(flush, SETTLE_MS);
}

onTheme((_now, change) => save(/** @type {PrefKey[]} */ (Object.keys(change))));
onLanguage((_lang, remember) => {
  if (remember) save(["lang"]);
});
/** The tab is hidden or left: send what waits now (a hidden tab may be closed
 * without another word, a phone's app switcher); what does not get through is
 * in the storage note for the next page. */
function sendNow() {
  if (!timer) return;
  clearTimeout(timer);
  flush();
}
if (typeof window !== "undefined") {
  window.addEventListener("pagehide", sendNow);
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) sendNow();
  });
}
