// The live lobby: tables (open seats first) with their players, spectators and
// rules; filters (players, rated, open or in play) and paging; who is online.
// mountLiveLobby(el) renders into el and polls /api/lobby; it returns a cleanup.
import { h, request as call, t } from "./accounts_common.js";
import { botName } from "./cards.js";

const PAGE = 10;

function choice(id, label, options) {
  return h("label", { class: "inline" }, `${label} `, h("select", { id }, options.map(([v, text]) => h("option", { value: v }, text))));
}

function seatLine(seat) {
  const name = seat.account
    ? h("a", { href: `#/u/${encodeURIComponent(seat.account)}` }, seat.account)
    : seat.bot
      ? h("a", { href: `#/u/${encodeURIComponent(seat.bot)}` }, t("table.botLevel", { bot: botName(seat.bot, t) }))
      : seat.taken
        ? seat.label
        : t("table.freeSeat");
  return h("span", { class: seat.connected ? "seat-on" : "seat-off" }, `${seat.letter}: `, name);
}

// A table without a title of its own is named after its host ("Ann's table", in
// the page's language), not by the server's fallback "table <id>".
function tableTitle(tb) {
  if (tb.title !== `table ${tb.table_id}`) return tb.title;
  const host = tb.seats.find((s) => !s.bot && s.taken);
  return host ? t("lobby.tableOf", { name: host.account || host.label }) : tb.title;
}

function entry(tb) {
  const status = t(`lobby.status.${tb.status}`);
  return h(
    "div",
    { class: "lobby-entry", "data-table": tb.table_id },
    h("strong", {}, tableTitle(tb)),
    tb.rated ? h("span", { class: "tag good" }, t("lobby.live.rated_tag")) : null,
    h("span", { class: "muted" }, ` ${tb.players} · ${status.startsWith("lobby.") ? tb.status : status}${tb.hand ? ` · ${t("lobby.live.hand", { n: tb.hand })}` : ""}`),
    tb.spectators ? h("span", { class: "tag" }, t("lobby.live.spectators", { n: tb.spectators })) : null,
    h("div", { class: "small seats-line" }, ...tb.seats.flatMap((s, i) => (i ? [" · ", seatLine(s)] : [seatLine(s)]))),
    h(
      "div",
      { class: "row" },
      tb.free_seats > 0 ? h("a", { class: "button", href: `#/t/${tb.table_id}` }, t("lobby.live.join", { n: tb.free_seats })) : null,
      h("a", { class: "button", href: `#/t/${tb.table_id}?watch` }, t("lobby.live.watch")),
    ),
  );
}

export function mountLiveLobby(el) {
  let offset = 0;
  let stopped = false;
  const list = h("div", { id: "lobby-list", class: "lobby-list" }, "…");
  const online = h("div", { id: "lobby-online", class: "small" });
  const pager = h("div", { class: "row small", id: "lobby-pager" });
  const filters = h(
    "div",
    { class: "row small lobby-filters" },
    choice("filter-players", t("lobby.live.players"), [["", t("lobby.live.any")], ["2", "2"], ["3", "3"], ["4", "4"]]),
    choice("filter-rated", t("lobby.live.rated"), [["", t("lobby.live.any")], ["true", t("lobby.live.rated_only")], ["false", t("lobby.live.unrated_only")]]),
    choice("filter-status", t("lobby.live.status"), [["any", t("lobby.live.any")], ["open", t("lobby.live.open")], ["playing", t("lobby.live.playing")]]),
  );
  filters.addEventListener("change", () => {
    offset = 0;
    refresh();
  });

  async function refresh() {
    const q = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
    const v = (id) => document.getElementById(id)?.value;
    if (v("filter-players")) q.set("players", v("filter-players"));
    if (v("filter-rated")) q.set("rated", v("filter-rated"));
    q.set("status", v("filter-status") || "any");
    try {
      const page = await call("GET", `/api/lobby?${q}`);
      if (stopped) return;
      const o = page.online;
      online.replaceChildren(
        h("strong", {}, `${t("lobby.live.online")}: `),
        ...(o.accounts.length
          ? o.accounts.flatMap((a, i) => [i ? ", " : "", h("a", { href: `#/u/${encodeURIComponent(a)}` }, a)])
          : [h("span", { class: "muted" }, t("lobby.live.nobody"))]),
        h("div", { class: "muted" }, t("lobby.live.online_summary", { a: o.accounts.length, g: o.guests, s: o.spectators, t: o.tables })),
      );
      list.replaceChildren(...(page.tables.length ? page.tables.map(entry) : [h("p", {}, t("lobby.live.empty"))]));
      const to = Math.min(page.total, offset + page.tables.length);
      pager.replaceChildren(
        h("button", { id: "lobby-prev", disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); refresh(); } }, t("lobby.live.prev")),
        h("span", {}, page.total ? t("lobby.live.page", { from: offset + 1, to, total: page.total }) : ""),
        h("button", { id: "lobby-next", disabled: to >= page.total, onclick: () => { offset += PAGE; refresh(); } }, t("lobby.live.next")),
      );
    } catch (e) {
      if (!stopped) list.textContent = t("lobby.live.error", { e: e.message });
    }
  }

  const botLine = h("div", { id: "lobby-bots", class: "small muted" });
  el.replaceChildren(h("h2", {}, t("lobby.live.title")), online, botLine, filters, list, pager);
  // how strong each bot level plays (their accounts' ratings), for newcomers
  call("GET", "/api/ratings?players=4&bots=true&limit=10")
    .then((r) => {
      if (stopped || !r.ratings.length) return;
      botLine.replaceChildren(
        `${t("lobby.live.bots", { n: r.players })} `,
        ...r.ratings.flatMap((b, i) => [i ? " · " : "", h("a", { href: `#/u/${encodeURIComponent(b.username)}` }, b.username), ` ${b.display ?? b.rating.toFixed(1)}${b.provisional ? "?" : ""}`]),
      );
    })
    .catch(() => {});
  refresh();
  const timer = setInterval(refresh, 4000);
  const onAccount = () => refresh();
  window.addEventListener("sk-account", onAccount);
  return () => {
    stopped = true;
    clearInterval(timer);
    window.removeEventListener("sk-account", onAccount);
  };
}
