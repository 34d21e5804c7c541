// The account bar in the page header: log in, create an account (claiming the
// guest seats of this device), log out here or everywhere, a link to the profile.
// Accounts are optional; a guest never needs this.  Talks to /api/account/*.
import { h, request as call, t } from "./accounts_common.js";
import { onLanguage } from "./i18n.js";

let me = null; // {username, bot, created} or null

export function currentUser() {
  return me;
}

export const accountApi = {
  me: () => call("GET", "/api/account/me"),
  login: (username, password) => call("POST", "/api/account/login", { username, password }),
  register: (username, password, claims) =>
    call("POST", "/api/account/register", { username, password, claims }),
  logout: () => call("POST", "/api/account/logout", {}),
  logoutAll: () => call("POST", "/api/account/logout-all", {}),
};

// Seat tokens this browser holds as a guest (localStorage sk.token.<table>).
function guestClaims() {
  const out = [];
  for (let i = 0; i < localStorage.length && out.length < 20; i++) {
    const key = localStorage.key(i);
    const m = key && key.match(/^sk\.token\.([a-z0-9]{1,32})$/);
    if (m) out.push({ table_id: m[1], token: localStorage.getItem(key) });
  }
  return out;
}

function changed() {
  window.dispatchEvent(new CustomEvent("sk-account", { detail: me }));
}

// One account check per page, shared by every bar (GET /api/account/me also
// sets the CSRF cookie a guest needs for /api/account/*).
let checking = null;
function checkAccount() {
  if (!checking) {
    checking = accountApi
      .me()
      .then((r) => {
        me = r.user;
        changed();
      })
      .catch(() => {});
  }
  return checking;
}

/**
 * Draw the account bar into `el` and keep it current; returns the cleanup.
 * The log-in form is built once with its fields, so neither the account check
 * answering late nor a language change loses what was typed (the bar redraws,
 * the open form stays open with its text).
 */
export function mountAccountBar(el) {
  el.classList.add("account-bar");
  const note = h("span", { id: "account-note", class: "small", role: "status" });
  let open = false;
  const user = h("input", { id: "account-username", maxlength: "20", autocomplete: "username" });
  const pass = h("input", { id: "account-password", type: "password", maxlength: "256", autocomplete: "current-password" });
  const error = h("p", { class: "error small", id: "account-error", role: "alert" });

  async function submit(kind) {
    error.textContent = "";
    try {
      const res =
        kind === "login"
          ? await accountApi.login(user.value.trim(), pass.value)
          : await accountApi.register(user.value.trim(), pass.value, guestClaims());
      me = res.user;
      open = false;
      pass.value = "";
      // the name a seat shows (the server uses the account's name anyway)
      try {
        localStorage.setItem("sk.name", me.username);
      } catch {
        /* storage may be switched off: the name is only a convenience */
      }
      changed();
      if (res.claimed && res.claimed.length) note.textContent = t("account.claimed", { n: res.claimed.length });
    } catch (e) {
      error.textContent = e.message;
    }
  }

  function form() {
    for (const [input, key] of [[user, "account.username"], [pass, "account.password"]]) {
      input.setAttribute("placeholder", t(key));
      input.setAttribute("aria-label", t(key));
    }
    const box = h(
      "form",
      { id: "account-form", class: "account-form panel" },
      h("p", { class: "small muted" }, t("account.why")),
      user,
      pass,
      h(
        "div",
        { class: "row" },
        h("button", { type: "submit", id: "login-btn", class: "primary" }, t("account.login")),
        h("button", { type: "button", id: "register-btn", onclick: () => submit("register") }, t("account.register")),
        h("button", { type: "button", id: "account-cancel", onclick: () => { open = false; draw(); } }, t("account.cancel")),
      ),
      error,
    );
    box.addEventListener("submit", (ev) => {
      ev.preventDefault();
      submit("login");
    });
    return box;
  }

  function draw() {
    if (me) {
      el.replaceChildren(
        h("a", { id: "account-name", href: `/#/u/${encodeURIComponent(me.username)}`, title: t("account.profile") }, me.username),
        h("button", {
          id: "logout-btn",
          type: "button",
          class: "link",
          onclick: async () => {
            await accountApi.logout().catch(() => {});
            // logging out drops the session's CSRF cookie: fetch a guest's one at
            // once, so that logging in again is not refused
            await accountApi.me().catch(() => {});
            me = null;
            changed();
          },
        }, t("account.logout")),
        note,
      );
      return;
    }
    const focused = document.activeElement;
    el.replaceChildren(
      ...[
        h("span", { class: "small muted wide-only" }, t("account.guest")),
        h(
          "button",
          {
            id: "account-open",
            type: "button",
            class: "link",
            "aria-expanded": open ? "true" : "false",
            onclick: () => {
              open = !open;
              draw();
              if (open) user.focus();
            },
          },
          h("span", { class: "wide-only" }, `${t("account.login")} / ${t("account.register")}`),
          h("span", { class: "narrow-only" }, t("account.login")),
        ),
        note,
        open ? form() : null,
      ].filter(Boolean),
    );
    // a redraw (late account check, language) must not take the focus from a field
    if ((focused === user || focused === pass) && open && document.activeElement !== focused) focused.focus();
  }

  const onAccount = async (ev) => {
    if (ev.detail === null && me) {
      // logged out elsewhere on the page (profile: log out everywhere): a guest's
      // CSRF cookie first (the session's is gone), then the bar
      me = null;
      await accountApi.me().catch(() => {});
    }
    draw();
  };
  const stopLanguage = onLanguage(() => draw());
  window.addEventListener("sk-account", onAccount);
  draw();
  // data-checked: the bar knows who is here (tests wait on it, never on time)
  checkAccount().then(() => el.setAttribute("data-checked", "true"));
  return () => {
    window.removeEventListener("sk-account", onAccount);
    stopLanguage();
  };
}
