// @ts-check
// The one place where the browser keeps things: the seat tokens (a seat belongs
// to its secret token, see docs/protocol.md), the player's name, the last table
// settings, the sound choice, the theme and notifications.  localStorage can be missing or full (private
// windows): then nothing is remembered, and nothing breaks.

function get(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function put(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* not remembered */
  }
}

export const store = {
  token: (tableId) => get(`sk.token.${tableId}`),
  setToken: (tableId, token) => put(`sk.token.${tableId}`, token),
  forgetToken: (tableId) => put(`sk.token.${tableId}`, null),
  name: () => get("sk.name") || "",
  setName: (name) => put("sk.name", name),
  settings() {
    try {
      return JSON.parse(get("sk.settings") || "{}") || {};
    } catch {
      return {};
    }
  },
  setSettings: (obj) => put("sk.settings", JSON.stringify(obj)),
  sound: () => get("sk.sound") === "on",
  setSound: (on) => put("sk.sound", on ? "on" : "off"),
  // the theme (theme.js checks the values) and "notify me on my turn" (pwa.js)
  deck: () => get("sk.deck"),
  setDeck: (deck) => put("sk.deck", deck),
  letters: () => get("sk.letters"),
  setLetters: (letters) => put("sk.letters", letters),
  tableColour: () => get("sk.table"),
  setTableColour: (colour) => put("sk.table", colour),
  // the secret of a challenge this browser made, until it is accepted (friends_nav.js)
  challengeSecret: (id) => get(`sk.challenge.${id}`),
  setChallengeSecret: (id, secret) => put(`sk.challenge.${id}`, secret),
  // the tournament a table belongs to (tournament.js sends its entrants there;
  // the table's end then leads back to the tournament, table.js)
  tournamentOf: (tableId) => get(`sk.tour.${tableId}`),
  setTournamentOf: (tableId, id) => put(`sk.tour.${tableId}`, id),
  notify: () => get("sk.notify") === "on",
  setNotify: (on) => put("sk.notify", on ? "on" : "off"),
};
