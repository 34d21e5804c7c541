// Shared by the account pieces of the web client (account.js, profile.js,
// lobby_live.js): a DOM builder, the client's request helper (api.js, which
// carries the CSRF token), and the strings (keys account.*, profile.*,
// lobby.live.*).  The pieces mount into any page (plain DOM or a component's
// element) without depending on how the rest of the client is built.

// ---------------------------------------------------------------- DOM

/** An element with attributes, event handlers (onX) and text children (never HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// ---------------------------------------------------------------- HTTP

// The one request helper of the client (api.js): it sends the CSRF token on every
// state-changing call and words refusals from the catalogue (docs/web.md).
export { csrfToken, request } from "./api.js";

// ---------------------------------------------------------------- strings

// English; a catalogue of the client's i18n.js (static/i18n/<lang>.json), when the
// page has one and it holds the key, wins.
const EN = {
  "account.login": "Log in",
  "account.register": "Create account",
  "account.logout": "Log out",
  "account.logout_all": "Log out everywhere",
  "account.username": "User name",
  "account.password": "Password",
  "account.guest": "Playing as a guest",
  "account.why": "An account is optional: it keeps your name, your rating and your games. Seats you took as a guest on this device become the new account's.",
  "account.claimed": "{n} guest seat(s) are now this account's.",
  "account.logged_out_all": "Logged out on {n} device(s).",
  "account.profile": "Profile",
  "account.cancel": "Cancel",
  "profile.bot": "BOT",
  "profile.online": "online",
  "profile.joined": "joined {date}",
  "profile.ratings": "Ratings",
  "profile.players": "{n} players",
  "profile.no_ratings": "No rated games yet.",
  "profile.rating": "rating",
  "profile.games_n": "games",
  "profile.history_axis": "games 1–{n}",
  "profile.history": "Rating history",
  "profile.games": "Games",
  "profile.no_games": "No games yet.",
  "profile.more": "More games",
  "profile.replay": "replay",
  "profile.place": "place {p} of {n}",
  "profile.running": "in progress",
  "profile.rated": "rated",
  "profile.wins": "{w} won of {g}",
  "profile.not_found": "No such player.",
  "profile.arena": "{n} arena hands",
  "lobby.live.title": "Tables",
  "lobby.live.online": "Online",
  "lobby.live.online_summary": "{a} players with accounts, {g} guests, {s} spectators, {t} tables",
  "lobby.live.nobody": "nobody with an account right now",
  "lobby.live.players": "Players",
  "lobby.live.any": "any",
  "lobby.live.rated": "Rated",
  "lobby.live.rated_only": "rated only",
  "lobby.live.unrated_only": "unrated only",
  "lobby.live.status": "Show",
  "lobby.live.open": "open seats",
  "lobby.live.playing": "in play",
  "lobby.live.empty": "No tables match: create one.",
  "lobby.live.join": "Join ({n} free)",
  "lobby.live.watch": "Watch",
  "lobby.live.spectators": "{n} watching",
  "lobby.live.hand": "hand {n}",
  "lobby.live.prev": "Previous",
  "lobby.live.next": "Next",
  "lobby.live.page": "{from}–{to} of {total}",
  "lobby.live.error": "Cannot load tables: {e}",
  "lobby.live.rated_tag": "rated",
  "lobby.live.bots": "Bot strength ({n} players):",
  "lobby.live.rated_create": "rated (every human seat needs an account)",
};

let catalogueT = null;
import("./i18n.js")
  .then((m) => {
    if (typeof m.t === "function") catalogueT = m.t;
  })
  .catch(() => {});

/** The string for `key` with {name} parameters filled in. */
export function t(key, vars = {}) {
  let s = null;
  if (catalogueT) {
    const got = catalogueT(key, vars);
    if (got && got !== key) return got;
  }
  s = EN[key] ?? key;
  for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, String(v));
  return s;
}
