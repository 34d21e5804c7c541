// @ts-check
// The account bar in the page header: log in, create an account (claiming the
// guest seats of this device), log out here or everywhere, a link to the profile.
// Accounts are optional; a guest never needs this.  Talks to /api/account/*.
//
// Who is logged in is module state shared by every component: the bar announces
// each change with an "sk-account" event on window, and useAccount() follows it.
import { request as call } from "./api.js";
import { html, useEffect, useRef, useState } from "./html.js";
import { t } from "./i18n.js";
import { followAccount } from "./prefs.js";
import { FriendsNav } from "./friends_nav.js";

/** @typedef {import("./wire.js").AccountUser} AccountUser */
/** @typedef {import("./wire.js").AccountReply} AccountReply */

/** @type {AccountUser | null} */
let me = null;

/** The logged-in account, or null for a guest (or before the check answered). */
export function currentUser() {
  return me;
}

export const accountApi = {
  /** @returns {Promise<{user: AccountUser | null}>} */
  me: () => call("GET", "/api/account/me"),
  /** @returns {Promise<AccountReply>} */
  login: (/** @type {string} */ username, /** @type {string} */ password) => call("POST", "/api/account/login", { username, password }),
  /** @returns {Promise<AccountReply>} */
  register: (/** @type {string} */ username, /** @type {string} */ password, /** @type {{table_id: string, token: string | null}[]} */ claims) =>
    call("POST", "/api/account/register", { username, password, claims }),
  logout: () => call("POST", "/api/account/logout", {}),
  /** @returns {Promise<{sessions: number}>} */
  logoutAll: () => call("POST", "/api/account/logout-all", {}),
};

/** Seat tokens this browser holds as a guest (localStorage sk.token.<table>). */
function guestClaims() {
  const out = [];
  for (let i = 0; i < localStorage.length && out.length < 20; i++) {
    const key = localStorage.key(i);
    const m = key && key.match(/^sk\.token\.([a-z0-9]{1,32})$/);
    if (m) out.push({ table_id: m[1], token: localStorage.getItem(/** @type {string} */ (key)) });
  }
  return out;
}

/** Set who is logged in and tell every component; the account's preferences
 * (the look of the game) are followed, and applied when `loggedIn` (the player
 * has just logged in or created the account here; prefs.js).
 * @param {AccountUser | null} user
 * @param {boolean} [loggedIn] */
export function setUser(user, loggedIn = false) {
  me = user;
  followAccount(user, loggedIn);
  window.dispatchEvent(new CustomEvent("sk-account", { detail: me }));
}

// One account check per page, shared by every bar (GET /api/account/me also
// sets the CSRF cookie a guest needs for /api/account/*).
/** @type {Promise<void> | null} */
let checking = null;
function checkAccount() {
  if (!checking) {
    checking = accountApi
      .me()
      .then((r) => setUser(r.user))
      .catch(() => {});
  }
  return checking;
}

/** The logged-in account ({username, ...}) or null, kept current: the account
 * bar announces every log-in and log-out with an "sk-account" event. */
export function useAccount() {
  const [user, setState] = useState(currentUser());
  useEffect(() => {
    const on = (/** @type {Event} */ ev) => setState(/** @type {CustomEvent} */ (ev).detail || null);
    window.addEventListener("sk-account", on);
    setState(currentUser());
    return () => window.removeEventListener("sk-account", on);
  }, []);
  return user;
}

/** Log out here; the session's CSRF cookie goes with it, so a guest's one is
 * fetched at once (or logging in again would be refused). */
async function logout() {
  await accountApi.logout().catch(() => {});
  await accountApi.me().catch(() => {});
  setUser(null);
}

/**
 * The account bar.  The log-in form's fields are component state, so neither the
 * account check answering late nor a language change loses what was typed.
 * `data-checked` is set once the bar knows who is here (tests wait on it).
 */
export function AccountBar() {
  const user = useAccount();
  const [checked, setChecked] = useState(false);
  const [open, setOpen] = useState(false);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [note, setNote] = useState("");
  const userField = useRef(/** @type {HTMLInputElement | null} */ (null));
  useEffect(() => {
    let live = true;
    checkAccount().then(() => live && setChecked(true));
    return () => {
      live = false;
    };
  }, []);
  useEffect(() => {
    if (open) userField.current?.focus();
  }, [open]);

  const submit = async (/** @type {"login" | "register"} */ kind) => {
    setError("");
    try {
      const res =
        kind === "login"
          ? await accountApi.login(username.trim(), password)
          : await accountApi.register(username.trim(), password, guestClaims());
      setOpen(false);
      setPassword("");
      // the name a seat shows (the server uses the account's name anyway)
      try {
        localStorage.setItem("sk.name", res.user.username);
      } catch {
        /* storage may be switched off: the name is only a convenience */
      }
      setUser(res.user, true);
      if (res.claimed && res.claimed.length) setNote(t("account.claimed", { count: res.claimed.length }));
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  };

  const noteEl = html`<span id="account-note" class="small" role="status">${note}</span>`;
  const body = user
    ? html`<a id="account-name" href=${`/#/u/${encodeURIComponent(user.username)}`} title=${t("account.profile")}>${user.username}</a>
        <button id="logout-btn" type="button" class="link" onClick=${logout}>${t("account.logout")}</button>
        ${noteEl}`
    : html`<span class="small muted wide-only">${t("account.guest")}</span>
        <button id="account-open" type="button" class="link" aria-expanded=${open ? "true" : "false"} onClick=${() => setOpen(!open)}>
          <span class="wide-only">${t("account.login")} / ${t("account.register")}</span>
          <span class="narrow-only">${t("account.login")}</span>
        </button>
        ${noteEl}
        ${open
          ? html`<form id="account-form" class="account-form panel" onSubmit=${(/** @type {Event} */ ev) => {
              ev.preventDefault();
              submit("login");
            }}>
              <p class="small muted">${t("account.why")}</p>
              <input id="account-username" ref=${userField} maxlength="20" autocomplete="username" placeholder=${t("account.username")} aria-label=${t("account.username")}
                value=${username} onInput=${(/** @type {InputEvent} */ e) => setUsername(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
              <input id="account-password" type="password" maxlength="256" autocomplete="current-password" placeholder=${t("account.password")} aria-label=${t("account.password")}
                value=${password} onInput=${(/** @type {InputEvent} */ e) => setPassword(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
              <div class="row">
                <button type="submit" id="login-btn" class="primary">${t("account.login")}</button>
                <button type="button" id="register-btn" onClick=${() => submit("register")}>${t("account.register")}</button>
                <button type="button" id="account-cancel" onClick=${() => setOpen(false)}>${t("account.cancel")}</button>
              </div>
              <p class="error small" id="account-error" role="alert">${error}</p>
            </form>`
          : null}`;
  return html`<div id="account-bar" class="account-bar" data-checked=${checked ? "true" : undefined}><${FriendsNav} user=${user} />${body}</div>`;
}
