// The account bar in the page header: log in, create an account (claiming the
// guest seats of this device), log out here or everywhere, a link to the profile.
// Accounts are optional; a guest never needs this.  Talks to /api/account/*.
import { h, request as call, t } from "./accounts_common.js";

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

export function mountAccountBar(el) {
  el.classList.add("account-bar");
  const note = h("span", { id: "account-note", class: "small", role: "status" });

  function form() {
    const user = h("input", { id: "account-username", maxlength: "20", autocomplete: "username", placeholder: t("account.username"), "aria-label": t("account.username") });
    const pass = h("input", { id: "account-password", type: "password", maxlength: "256", autocomplete: "current-password", placeholder: t("account.password"), "aria-label": t("account.password") });
    const error = h("p", { class: "error small", id: "account-error" });
    async function submit(kind) {
      error.textContent = "";
      try {
        const res =
          kind === "login"
            ? await accountApi.login(user.value.trim(), pass.value)
            : await accountApi.register(user.value.trim(), pass.value, guestClaims());
        me = res.user;
        // the name a seat shows (the server uses the account's name anyway)
        try {
          localStorage.setItem("sk.name", me.username);
        } catch {
          /* storage may be switched off: the name is only a convenience */
        }
        draw();
        if (res.claimed && res.claimed.length) note.textContent = t("account.claimed", { n: res.claimed.length });
        changed();
      } catch (e) {
        error.textContent = e.message;
      }
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
        h("button", { type: "button", onclick: () => draw() }, t("account.cancel")),
      ),
      error,
    );
    box.addEventListener("submit", (ev) => {
      ev.preventDefault();
      submit("login");
    });
    return box;
  }

  function draw(open = false) {
    if (me) {
      el.replaceChildren(
        h("a", { id: "account-name", href: `#/u/${encodeURIComponent(me.username)}` }, me.username),
        h("button", {
          id: "logout-btn",
          class: "link",
          onclick: async () => {
            await accountApi.logout().catch(() => {});
            me = null;
            draw();
            changed();
          },
        }, t("account.logout")),
        note,
      );
    } else {
      el.replaceChildren(
        ...[
          h("span", { class: "small muted wide-only" }, t("account.guest")),
          h(
            "button",
            { id: "account-open", class: "link", onclick: () => draw(true) },
            h("span", { class: "wide-only" }, `${t("account.login")} / ${t("account.register")}`),
            h("span", { class: "narrow-only" }, t("account.login")),
          ),
          note,
          open ? form() : null,
        ].filter(Boolean),
      );
      if (open) document.getElementById("account-username")?.focus();
    }
  }

  window.addEventListener("sk-account", (ev) => {
    if (ev.detail === null && me) {
      me = null; // logged out elsewhere on the page (profile: log out everywhere)
      draw();
    }
  });
  draw();
  accountApi
    .me()
    .then((r) => {
      me = r.user;
      draw();
      changed();
    })
    .catch(() => {});
}
