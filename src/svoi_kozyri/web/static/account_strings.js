// User-visible strings of the account, profile and live-lobby pieces (keys
// account.*, profile.*, lobby.*).  English only for now; when the i18n catalogues
// (web/static/i18n/<lang>.json, i18n.js) exist, these keys move there and t()
// below defers to them.

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
  "lobby.title": "Tables",
  "lobby.online": "Online",
  "lobby.online_summary": "{a} players with accounts, {g} guests, {s} spectators, {t} tables",
  "lobby.nobody": "nobody with an account right now",
  "lobby.players": "Players",
  "lobby.any": "any",
  "lobby.rated": "Rated",
  "lobby.rated_only": "rated only",
  "lobby.unrated_only": "unrated only",
  "lobby.status": "Show",
  "lobby.open": "open seats",
  "lobby.playing": "in play",
  "lobby.empty": "No tables match: create one.",
  "lobby.join": "Join ({n} free)",
  "lobby.watch": "Watch",
  "lobby.spectators": "{n} watching",
  "lobby.hand": "hand {n}",
  "lobby.prev": "Previous",
  "lobby.next": "Next",
  "lobby.page": "{from}–{to} of {total}",
  "lobby.error": "Cannot load tables: {e}",
  "lobby.rated_tag": "rated",
  "lobby.rated_create": "rated (every human seat needs an account)",
};

export function t(key, vars = {}) {
  const ext = globalThis.svoiKozyriI18n;
  let s = (ext && typeof ext.t === "function" && ext.has?.(key) ? ext.t(key) : null) ?? EN[key] ?? key;
  for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, String(v));
  return s;
}
