// A player's profile page (#/u/<name>): ratings per player count, the rating
// history chart (SVG drawn here, no library), results and the games played,
// each opening its replay view.  Bots are labelled accounts.
import { h, request as call, t } from "./accounts_common.js";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = { 2: "#0b5cad", 3: "#c8102e", 4: "#1f7a3f" };

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

// One line per player count: rating (mu - 3 sigma) after each rated game.
export function historyChart(history, width = 340, height = 180) {
  const series = Object.entries(history).filter(([, pts]) => pts.length);
  const pad = { l: 34, r: 8, t: 10, b: 22 };
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", id: "rating-chart", role: "img" });
  svg.append(s("title", {}, t("profile.history")));
  if (!series.length) return svg;
  const all = series.flatMap(([, pts]) => pts.map((p) => p.rating));
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (hi - lo < 2) {
    lo -= 1;
    hi += 1;
  }
  const maxN = Math.max(...series.map(([, pts]) => pts.length));
  const x = (i) => pad.l + (maxN <= 1 ? (width - pad.l - pad.r) / 2 : (i * (width - pad.l - pad.r)) / (maxN - 1));
  const y = (v) => pad.t + ((hi - v) * (height - pad.t - pad.b)) / (hi - lo);
  for (const v of [lo, (lo + hi) / 2, hi]) {
    svg.append(s("line", { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), stroke: "#d0d5dd", "stroke-width": 1 }));
    svg.append(s("text", { x: 2, y: y(v) + 4, "font-size": 10, fill: "#667085" }, v.toFixed(1)));
  }
  svg.append(s("text", { x: pad.l, y: height - 6, "font-size": 10, fill: "#667085" }, `1 … ${maxN} ${t("profile.games_n")}`));
  for (const [n, pts] of series) {
    const color = COLORS[n] || "#333";
    const d = pts.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
    svg.append(s("path", { d, fill: "none", stroke: color, "stroke-width": 2, class: `series series-${n}` }));
    pts.forEach((p, i) => {
      const dot = s("circle", { cx: x(i), cy: y(p.rating), r: 3, fill: color });
      dot.append(s("title", {}, `${t("profile.players", { n })}: ${p.rating.toFixed(2)}`));
      svg.append(dot);
    });
  }
  return svg;
}

function gameRow(g) {
  const result =
    (g.place ?? null) === null
      ? t("profile.running")
      : `${t("profile.place", { p: g.place, n: g.players })}${g.rated ? ` · ${t("profile.rated")}` : ""}`;
  const change =
    (g.rating_change ?? null) === null ? null : h("span", { class: g.rating_change >= 0 ? "tag good" : "tag warn" }, `${g.rating_change >= 0 ? "+" : ""}${g.rating_change.toFixed(2)}`);
  return h(
    "li",
    { class: "profile-game", "data-table": g.table_id },
    h("a", { href: g.replay }, g.title),
    h("span", { class: "muted small" }, ` ${t("profile.players", { n: g.players })} · ${result} `),
    change,
    h("span", { class: "muted small" }, ` ${new Date(g.created * 1000).toLocaleDateString()}`),
  );
}

// On the player's own profile: end every session of the account (every device).
function logoutEverywhere() {
  const note = h("span", { id: "logout-all-note", class: "small", role: "status" });
  const btn = h("button", {
    id: "logout-all-btn",
    onclick: async () => {
      try {
        const r = await call("POST", "/api/account/logout-all", {});
        note.textContent = t("account.logged_out_all", { n: r.sessions });
        btn.disabled = true;
        window.dispatchEvent(new CustomEvent("sk-account", { detail: null }));
      } catch (e) {
        note.textContent = e.message;
      }
    },
  }, t("account.logout_all"));
  return h("p", { class: "row" }, btn, note);
}

export function profilePage(app, username) {
  let stopped = false;
  const games = h("ul", { id: "profile-games", class: "profile-games" });
  const more = h("button", { id: "profile-more", hidden: true }, t("profile.more"));
  let offset = 0;
  const path = `/api/users/${encodeURIComponent(username)}`;

  async function loadGames() {
    const page = await call("GET", `${path}/games?offset=${offset}&limit=20`);
    if (stopped) return;
    if (!page.total) games.replaceChildren(h("li", { class: "muted" }, t("profile.no_games")));
    else games.append(...page.games.map(gameRow));
    offset += page.games.length;
    more.hidden = offset >= page.total;
  }
  more.addEventListener("click", () => loadGames().catch(() => {}));

  app.replaceChildren(h("p", {}, "…"));
  call("GET", path)
    .then((p) => {
      if (stopped) return;
      const ratings = p.ratings.length
        ? h(
            "table",
            { id: "profile-ratings", class: "ratings" },
            h("tr", {}, h("th", {}, ""), h("th", {}, t("profile.rating")), h("th", {}, "μ ± σ"), h("th", {}, t("profile.games_n"))),
            ...p.ratings.map((r) =>
              h("tr", { "data-players": r.players }, h("td", {}, t("profile.players", { n: r.players })), h("td", {}, r.rating.toFixed(2)), h("td", {}, `${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`), h("td", {}, r.arena_hands ? `${r.games} · ${t("profile.arena", { n: r.arena_hands })}` : r.games)),
            ),
          )
        : h("p", { class: "muted" }, t("profile.no_ratings"));
      app.replaceChildren(
        h(
          "div",
          { class: "profile" },
          h(
            "section",
            { class: "panel" },
            h("h2", { id: "profile-name" }, p.username, p.bot ? h("span", { class: "tag", id: "bot-badge" }, t("profile.bot")) : null, p.online ? h("span", { class: "tag good" }, t("profile.online")) : null),
            h("p", { class: "muted small" }, t("profile.joined", { date: new Date(p.created * 1000).toLocaleDateString() }), " · ", t("profile.wins", { w: p.wins, g: p.games })),
            h("h3", {}, t("profile.ratings")),
            ratings,
            ...(Object.keys(p.history).length
              ? [
                  h("h3", {}, t("profile.history")),
                  historyChart(p.history),
                  h("div", { class: "row small" }, ...Object.keys(p.history).map((n) => h("span", { class: `legend legend-${n}` }, t("profile.players", { n })))),
                ]
              : []),
            p.me ? logoutEverywhere() : null,
          ),
          h("section", { class: "panel" }, h("h3", {}, t("profile.games")), games, more),
        ),
      );
      return loadGames();
    })
    .catch((e) => {
      if (!stopped) app.replaceChildren(h("p", { class: "error" }, e.status === 404 ? t("profile.not_found") : e.message), h("a", { href: "#/" }, "Lobby"));
    });
  return () => {
    stopped = true;
  };
}
