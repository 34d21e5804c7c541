// @ts-check
// The friends link of the account bar, with a badge counting the challenges
// waiting for the player, and the one poll of GET /api/challenges every page
// shares (docs/web.md, "Friends").  Why here and not on the friends page: a
// challenge must reach the player wherever they are (the lobby, a replay,
// another tab), and the challenger must reach the table wherever they wait.
//
// * Every 10 s while logged in (every 2 s while a challenge of theirs waits for
//   an answer), and at once when the tab is shown again, the challenges are
//   fetched; the answer also marks the account as online (the server's presence).
// * A new challenge, when the tab is hidden, calls the player back the way "your
//   turn" does (pwa.js callBack: the tab's title and icon, a system notification
//   if switched on) and plays the turn sound (when sounds are on).
// * The challenger's secret (given once when the challenge is made) is kept in
//   localStorage under sk.challenge.<id>; when the challenge is accepted, it
//   becomes the table's seat token (store.setToken) and the player is taken to
//   the table (or, at another table or page, shown a link to it).
import { request } from "./api.js";
import { html, useEffect, useState } from "./html.js";
import { t } from "./i18n.js";
import { sound } from "./motion.js";
import { callBack } from "./pwa.js";
import { store } from "./store.js";

/**
 * @typedef {object} Challenge
 * @property {string} id
 * @property {string} challenger
 * @property {string} challenged
 * @property {number} players
 * @property {boolean} rated
 * @property {boolean} listed
 * @property {string | null} bot
 * @property {Record<string, unknown>} rules
 * @property {string} state open, accepted, declined, cancelled, expired or failed
 * @property {number} expires_in seconds
 * @property {string | null} table_id
 */
/** @typedef {{incoming: Challenge[], outgoing: Challenge[]}} Challenges */

const SLOW_MS = 10000;
const FAST_MS = 2000;

/** @type {Challenges} */
let current = { incoming: [], outgoing: [] };
/** @type {string | null} the table of an accepted challenge not yet opened */
let ready = null;
/** @type {Set<() => void>} */
const listeners = new Set();
/** @type {Set<string>} incoming challenges already announced */
const announced = new Set();
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
let polling = false;

/** @type {Map<string, string>} secrets of this page, when storage is off */
const held = new Map();

/** Keep the challenger's secret of challenge `id` until it is accepted.
 * @param {string} id @param {string} secret */
export function rememberSecret(id, secret) {
  held.set(id, secret);
  store.setChallengeSecret(id, secret);
}

/** @param {string} id */
function secretOf(id) {
  return held.get(id) || store.challengeSecret(id);
}

/** @param {string} id */
function forgetSecret(id) {
  held.delete(id);
  store.setChallengeSecret(id, null);
}

/** The last answer of GET /api/challenges. */
export function challenges() {
  return current;
}

/** Follow the challenges: `fn` is called after every poll.
 * @param {() => void} fn */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Open the table of an accepted challenge: in place on the app's page (unless
 * the player is at another table), else a link in the badge.
 * @param {string} tableId */
function goTo(tableId) {
  const atTable = /^#\/[tr]\//.test(location.hash);
  if (location.pathname === "/" && !atTable) {
    ready = null;
    location.hash = `#/t/${tableId}`;
  } else {
    ready = tableId;
  }
  callBack({ headline: t("friends.ready"), title: t("friends.ready"), body: t("friends.readyBody"), tag: "sk-challenge" });
}

let first = true;

/** @param {Challenges} data */
function took(data) {
  current = data;
  // what was waiting when the page opened is counted in the badge, not rung
  // again on every page load (unless the page opened in a hidden tab)
  const quiet = first && !document.hidden;
  first = false;
  for (const c of data.incoming) {
    if (announced.has(c.id)) continue;
    announced.add(c.id);
    if (quiet) continue;
    sound("turn");
    callBack({
      headline: t("friends.challenged", { name: c.challenger }),
      title: t("friends.challenged", { name: c.challenger }),
      body: t("friends.challengedBody"),
      tag: "sk-challenge",
    });
  }
  for (const c of data.outgoing) {
    const secret = secretOf(c.id);
    if (!secret) continue;
    if (c.state === "accepted" && c.table_id) {
      store.setToken(c.table_id, secret);
      forgetSecret(c.id);
      goTo(c.table_id);
    } else if (c.state !== "open" && c.state !== "accepted") {
      forgetSecret(c.id);
    }
  }
  listeners.forEach((fn) => fn());
}

/** Poll now (after a change the page made), then on the usual beat. */
export async function refresh() {
  if (timer) clearTimeout(timer);
  timer = null;
  if (!polling) return;
  try {
    took(await request("GET", "/api/challenges"));
  } catch {
    /* offline or logged out: the next beat tries again */
  }
  if (!polling) return;
  const waiting = current.outgoing.some((c) => c.state === "open" || (c.state === "accepted" && !c.table_id));
  timer = setTimeout(refresh, waiting ? FAST_MS : SLOW_MS);
}

if (typeof document !== "undefined") {
  // back to the tab: show what changed at once, not at the next beat
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && polling) refresh();
  });
}

/** Start or stop polling as the player logs in and out.
 * @param {boolean} on */
function poll(on) {
  if (on === polling) return;
  polling = on;
  if (on) refresh();
  else {
    if (timer) clearTimeout(timer);
    timer = null;
    current = { incoming: [], outgoing: [] };
    ready = null;
    listeners.forEach((fn) => fn());
  }
}

/** The account bar's link to the friends page: a badge with the number of
 * challenges waiting, or a link to the table of an accepted challenge.
 * @param {{user: {username: string} | null}} props the bar's account (null: a guest) */
export function FriendsNav({ user }) {
  const [, redraw] = useState(0);
  const [hash, setHash] = useState(location.hash);
  useEffect(() => subscribe(() => redraw((n) => n + 1)), []);
  useEffect(() => {
    const on = () => {
      setHash(location.hash);
      if (ready && location.hash === `#/t/${ready}`) ready = null;
    };
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  useEffect(() => poll(Boolean(user)), [user]);
  if (ready) {
    return html`<a id="challenge-ready" class="friends-nav ready" href=${`/#/t/${ready}`}>${t("friends.ready")}</a>`;
  }
  const count = user ? current.incoming.length : 0;
  const label = count ? t("friends.navWaiting", { count }) : t("nav.friends");
  // the word on a wide screen, two heads on a narrow one (header.css's
  // wide-only / narrow-only, so every page's header folds it alike); a guest
  // sees it only where there is room (the page tells them to log in)
  return html`<a id="nav-friends" class=${`friends-nav${user ? "" : " wide-only"}`} href="/#/friends" aria-label=${label} title=${label}
    aria-current=${hash === "#/friends" ? "page" : undefined}><span class="wide-only">${t("nav.friends")}</span><span class="narrow-only friends-icon"
    ><svg width="20" height="16" viewBox="0 0 20 16" aria-hidden="true" focusable="false"><circle cx="7" cy="5" r="3" fill="currentColor" /><path d="M1 15c0-3.5 2.7-5.5 6-5.5s6 2 6 5.5z" fill="currentColor" /><circle cx="14" cy="4" r="2.5" fill="currentColor" opacity=".75" /><path d="M12.5 8.6c.5-.1 1-.1 1.5-.1 3 0 5 1.8 5 5h-4.6c-.3-2-1-3.6-1.9-4.9z" fill="currentColor" opacity=".75" /></svg></span
    >${count ? html`<span class="friends-badge" aria-hidden="true">${count}</span>` : null}</a>`;
}
