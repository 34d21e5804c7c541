// The service worker (served from the site's root as /sw.js, scope "/", by
// server/web/routes_site.py, which writes the cache's version in: a hash of the
// static files, so a deploy that changes any of them installs a new worker and
// drops the old cache).  What it does, and only that:
//
// * on install it caches the app shell: the stylesheets, the modules every page
//   loads, the English catalogue, the icons and the offline page;
// * static files (/static/...) and card images (/cards/...) are answered from
//   that cache, and fetched and cached when missing;
// * a page that cannot be loaded because the network is down gets the offline
//   page (static/offline.html, in seven languages);
// * a click on a "your turn" notification (pwa.js) brings the table's tab
//   forward.
//
// It never touches anything else: no API call (/api/...), no socket, no
// request that carries a seat token, nothing not GET, nothing of another
// origin.  Pages are never cached, only the offline page.

const VERSION = "__SK_VERSION__";
const CACHE = `sk-shell-${VERSION}`;
const OFFLINE = "/static/offline.html";
const SHELL = [
  OFFLINE,
  "/static/offline.css",
  "/static/offline.js",
  "/static/icons/icon-192.png",
  "/static/header.css",
  "/static/style.css",
  "/static/pages.css",
  "/static/app.js",
  "/static/page.js",
  "/static/header.js",
  "/static/account.js",
  "/static/friends_nav.js",
  "/static/prefs.js",
  "/static/settings.js",
  "/static/theme.js",
  "/static/pwa.js",
  "/static/api.js",
  "/static/store.js",
  "/static/html.js",
  "/static/i18n.js",
  "/static/i18n/en.json",
  "/static/vendor/preact.module.js",
  "/static/vendor/hooks.module.js",
  "/static/vendor/htm.module.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((k) => k.startsWith("sk-shell-") && k !== CACHE).map((k) => caches.delete(k)))),
  );
});

/** Whether the worker may answer `request` from its cache: a GET of this origin
 * for a static file or a card image, carrying no seat token.
 * @param {Request} request */
function cacheable(request) {
  if (request.method !== "GET") return false;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return false;
  // a signed download link (?link=) or a token in a query is never kept
  if (request.headers.has("X-Seat-Token") || /(^|[?&])(link|token)=/i.test(url.search)) return false;
  return url.pathname.startsWith("/static/") || url.pathname.startsWith("/cards/");
}

async function fromCache(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") cache.put(request, response.clone());
  return response;
}

async function page(request) {
  try {
    return await fetch(request);
  } catch {
    const offline = await caches.match(OFFLINE);
    return offline || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const path = new URL(request.url).pathname;
  if (request.mode === "navigate" && request.method === "GET" && !path.startsWith("/api/")) event.respondWith(page(request));
  else if (cacheable(request)) event.respondWith(fromCache(request));
  // anything else (the API, sockets, other origins) goes to the network untouched
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(
    clients.matchAll({ type: "window", includeUncontrolled: true }).then((list) => {
      const same = list.find((c) => c.url === url) || list[0];
      if (same) return same.focus();
      return clients.openWindow(url);
    }),
  );
});
