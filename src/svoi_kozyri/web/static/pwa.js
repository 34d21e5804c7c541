// @ts-check
// The installable app (docs/web.md, "Install, themes, notifications"): every page
// registers the service worker (/sw.js, scope "/", static/sw.js), which caches the
// app shell and shows the offline page when the network is down; and "your
// turn", called back: when the table's tab is hidden and the turn comes to the
// player, the tab's title and icon say so, and a system notification is shown
// through the worker's registration if the player switched notifications on in
// the settings and the browser allowed them.  Nothing goes to a push service.
import { t } from "./i18n.js";
import { store } from "./store.js";

let registered = false;

/** Register the service worker once the page has loaded (once per page). */
export function registerWorker() {
  if (registered || typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  registered = true;
  const go = () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      /* no worker (a private window, an old browser): the site works without it */
    });
  };
  if (document.readyState === "complete") go();
  else window.addEventListener("load", go, { once: true });
}

/** Whether this browser can show notifications at all. */
export function notificationsSupported() {
  return typeof Notification !== "undefined" && typeof navigator !== "undefined" && "serviceWorker" in navigator;
}

/** The browser's answer for notifications: "granted", "denied", "default", or "unsupported". */
export function notificationPermission() {
  return notificationsSupported() ? Notification.permission : "unsupported";
}

/** Switch "notify me on my turn" on (asking the browser's permission, so call it
 * from a click) or off; resolves to whether it is on.
 * @param {boolean} on */
export async function setNotifications(on) {
  if (!on || !notificationsSupported()) {
    store.setNotify(false);
    return false;
  }
  let permission = Notification.permission;
  if (permission === "default") permission = await Notification.requestPermission();
  store.setNotify(permission === "granted");
  return permission === "granted";
}

/** The tab's title and icon before "your turn" changed them (null: unchanged).
 * @type {{title: string, icon: string | null} | null} */
let saved = null;
export const TURN_ICON = "/static/icons/turn.svg";

function iconLink() {
  return /** @type {HTMLLinkElement | null} */ (document.querySelector('link[rel="icon"]'));
}

/** Put the tab's title and icon back (the player is looking again). */
export function restoreTab() {
  if (!saved) return;
  document.title = saved.title;
  const link = iconLink();
  if (link && saved.icon) link.setAttribute("href", saved.icon);
  saved = null;
}

/** Something calls the player back while the tab is hidden: say it in the
 * tab's title and icon and, when switched on and allowed, with a system
 * notification through the service worker (nothing goes to a push service).
 * One function for every reason (your turn, a table found, a challenge, a
 * tournament game), so they all behave alike.
 * @param {{headline: string, title: string, body: string, tag: string}} what
 *   headline: the title's prefix; title/body: the notification's; tag: one
 *   notification per tag (a newer one replaces it) */
export function callBack({ headline, title, body, tag }) {
  if (typeof document === "undefined" || !document.hidden) return;
  const link = iconLink();
  if (!saved) saved = { title: document.title, icon: link ? link.getAttribute("href") : null };
  document.title = `● ${headline} · ${saved.title}`;
  if (link) link.setAttribute("href", TURN_ICON);
  if (store.notify() && notificationPermission() === "granted") {
    navigator.serviceWorker.ready
      .then((reg) =>
        reg.showNotification(title, {
          body,
          tag,
          icon: "/static/icons/icon-192.png",
          data: { url: location.href },
        }),
      )
      .catch(() => {
        /* not shown: the title and the icon still say it */
      });
  }
}

/** The turn came to the player (table.js). */
export function callBackToTurn() {
  callBack({ headline: t("announce.yourTurn"), title: t("notify.title"), body: t("notify.body"), tag: "sk-your-turn" });
}

if (typeof document !== "undefined") {
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) restoreTab();
  });
}
