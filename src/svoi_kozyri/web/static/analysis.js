// Analysis after a hand (/analysis?table=ID&hand=N, or a record file opened here).
// The server sends every step as this viewer saw it (their seat's token from the
// store, or none for a spectator) with the library's ratings; this page draws the
// position of the chosen step, the ratings and the turns where the result got worse.
import { botName, percentText } from "./cards.js";
// moves in texts with the court letters of the page's language (Д♠ in Russian)
import { moveText } from "./i18n.js";
import { cardImg, el, getJSON, header, language, postJSON, startPage, suitsText, t } from "./pagekit.js";
import { store } from "./store.js";

const params = new URLSearchParams(location.search);
const state = {
  table: params.get("table"),
  ms: params.get("ms") ? Number(params.get("ms")) : null, // rating time per turn (server default if unset)
  hand: Number(params.get("hand") || 1),
  data: null,
  error: null,
  loading: false,
  step: 0,
  recordText: null,
  fileName: null,
};

// an estimate's point value never reads as a certainty (">99 %", not "100 %")
const percent = (x, estimate = false) => percentText(x, language(), estimate);

const SVG = "http://www.w3.org/2000/svg";
const BAR_WIDTH = 60;

/** A move's score (0..1) as a bar: an SVG whose sizes are attributes, since the
 * site's CSP (style-src 'self') refuses inline style attributes, and a bar sized
 * by one would stay invisible and log a console error per row. */
function scoreBar(score) {
  const svg = document.createElementNS(SVG, "svg");
  const width = Math.max(1, Math.round(Math.max(0, Math.min(1, score)) * BAR_WIDTH));
  for (const [k, v] of Object.entries({ class: "pk-scorebar", width: BAR_WIDTH + 6, height: 10, viewBox: `0 0 ${BAR_WIDTH + 6} 10`, "aria-hidden": "true", focusable: "false" }))
    svg.setAttribute(k, String(v));
  const track = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: 0, y: 1, width: BAR_WIDTH, height: 8, rx: 3, fill: "#e4e7ec" })) track.setAttribute(k, String(v));
  const fill = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ class: "pk-scorebar-fill", x: 0, y: 1, width, height: 8, rx: 3, fill: "#2e90fa" })) fill.setAttribute(k, String(v));
  svg.append(track, fill);
  return svg;
}

/** Whether the server proved this turn's values (exact solver), not estimated them:
 * its `proven` flag where it sends one, else its `kind`. */
function isProven(r) {
  if (typeof r.proven === "boolean") return r.proven;
  return r.kind === "proven";
}

/** Whether the page may say this turn made the result worse: only when the server
 * says so and, where it sends a `significant` flag, says the evidence supports it
 * (a drop inside the sampling noise of a few samples is no mistake). */
function isWorse(r) {
  if (!r || !r.worse) return false;
  if (isProven(r)) return true;
  return r.significant !== false;
}

/** The tag of a turn that got worse: proven, or (an estimate) "probably". */
function worseText(r) {
  return t(isProven(r) ? "analysis.worse" : "analysis.worseLikely");
}

/** A rating in words: proven win/draw/loss, or an estimate with its 95 % interval. */
function ratingText(r) {
  if (!r) return "";
  if (r.proven) {
    const key = r.score >= 0.99 ? "analysis.provenWin" : r.score <= 0.01 ? "analysis.provenLoss" : "analysis.provenDraw";
    return t(key);
  }
  return t("analysis.estimate", { score: percent(r.score, true), low: percent(r.low), high: percent(r.high), samples: r.samples });
}

/** A rating in a table cell: "proven: a draw", or "62% (54–70%)". */
function shortRating(r) {
  if (r.proven) return ratingText(r);
  return t("analysis.estimateShort", { score: percent(r.score, true), low: percent(r.low), high: percent(r.high) });
}

async function load() {
  state.loading = true;
  state.error = null;
  render();
  try {
    if (state.table) {
      const token = store.token(state.table);
      const query = new URLSearchParams();
      if (state.ms) query.set("ms", String(state.ms));
      const q = query.toString() ? `?${query}` : "";
      // the seat token goes in a header: tokens never travel in URLs
      const headers = token ? { "X-Seat-Token": token } : {};
      state.data = await getJSON(`/api/tables/${encodeURIComponent(state.table)}/hands/${state.hand}/analysis${q}`, { headers });
    } else if (state.recordText !== null) {
      state.data = await postJSON("/api/analysis/record", { text: state.recordText, hand: state.hand, ...(state.ms ? { ms: state.ms } : {}) });
    } else {
      state.data = null;
    }
    state.step = 0;
  } catch (e) {
    state.error = e.message;
    state.data = null;
  }
  state.loading = false;
  render();
}

function go(i) {
  const n = state.data.steps.length;
  state.step = Math.max(0, Math.min(n, i));
  render();
}

function seatName(letter) {
  const d = state.data;
  // a bot seat is worded from its level in the page's language ("лёгкий"), not
  // the server's English label ("easy bot"), where the server says which bot it is
  const bot = d.bots?.[letter];
  const name = bot ? t("table.botLevel", { bot: botName(bot, t) }) : d.names?.[letter];
  const you = d.viewer === letter ? ` (${t("analysis.you")})` : "";
  return name ? `${letter} · ${name}${you}` : `${letter}${you}`;
}

function positionView(view) {
  const d = state.data;
  const letters = Object.keys(d.owners);
  const toAct = view.to_act === null || view.to_act === undefined ? null : letters[view.to_act];
  return el(
    "section",
    { class: "pk-table", "aria-label": t("analysis.position") },
    el(
      "div",
      { class: "pk-seats" },
      letters.map((s, i) =>
        el(
          "div",
          { class: `pk-seat${s === toAct ? " me" : ""}` },
          el("h3", {}, seatName(s), " · ", d.owners[s] ? t("learn.trump", { suits: suitsText(d.owners[s]) }) : t("learn.noTrump")),
          el("div", { class: "pk-muted" }, view.outs.some(([x]) => x === s) ? t("learn.out") : t("analysis.cards", { count: view.sizes[i] })),
          view.known[i].length ? el("div", { class: "pk-mini", "aria-label": t("analysis.known") }, view.known[i].map((c) => cardImg(c, "pk-mini-card"))) : null,
        ),
      ),
    ),
    el(
      "div",
      { class: "pk-centre" },
      view.top
        ? el("div", { class: "pk-pile" },
            el("div", {}, el("div", { class: "pk-muted" }, t("learn.top")), cardImg(view.top, "pk-top-card")),
            el("div", { class: "pk-pile-list" }, el("div", { class: "pk-muted" }, t("analysis.pileCount", { count: view.pile_size })), view.pile.map((c) => cardImg(c, "pk-mini-card"))))
        : el("p", { class: "pk-empty" }, t("learn.pileEmpty")),
    ),
    d.viewer
      ? el("div", { class: "pk-centre" }, el("div", { class: "pk-muted" }, t("analysis.yourHand")), el("div", { class: "pk-mini" }, view.hand.map((c) => cardImg(c, "pk-mini-card"))))
      : el("p", { class: "pk-muted pk-centre" }, t("analysis.spectatorNote")),
  );
}

function ratingView(step) {
  const r = step.rating;
  if (!r) {
    // why there is none, as the server says (older servers: from the rated seats)
    const why = step.no_rating || ((state.data.rated || []).includes(step.seat) ? "no_choice" : "hidden");
    const key = { no_choice: "analysis.noChoice", time: "analysis.notRatedTime" }[why] || "analysis.notRated";
    return el("p", { class: "pk-muted", id: "rating" }, t(key));
  }
  return el(
    "div",
    { id: "rating" },
    el("p", {},
      el("span", { class: `pk-tag ${isProven(r) ? "good" : "est"}`, id: "rating-kind" }, t(isProven(r) ? "analysis.proven" : "analysis.estimated")),
      isWorse(r) ? el("span", { class: "pk-tag bad", id: "rating-worse" }, worseText(r)) : null),
    el("p", {}, t("analysis.played", { move: moveText(step.move) }), " ", el("strong", {}, ratingText(r.played))),
    el("p", {}, r.best.move ? t("analysis.best", { move: moveText(r.best.move) }) : t("analysis.bestHidden"), " ", el("strong", {}, ratingText(r.best))),
    r.moves.length
      ? el("table", { class: "pk-ratings" },
          el("caption", { class: "pk-muted" }, t("analysis.movesCaption")),
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("analysis.move")), el("th", { scope: "col" }, t("analysis.rating")))),
          el("tbody", {}, r.moves.map((m) =>
            el("tr", { class: m.move === step.move ? "played" : "" },
              el("td", {}, moveText(m.move)),
              el("td", {}, scoreBar(m.score), " ", shortRating(m))))))
      : null,
    r.hidden ? el("p", { class: "pk-muted" }, t("analysis.hiddenMoves", { count: r.hidden })) : null,
  );
}

function stepList() {
  const d = state.data;
  return el(
    "nav",
    { class: "pk-panel", "aria-label": t("analysis.turns") },
    el("h2", {}, t("analysis.turns")),
    el("p", { class: "pk-muted", id: "worse-count" }, t("analysis.worseCount", { count: d.steps.filter((s) => isWorse(s.rating)).length })),
    el("ol", { class: "pk-steps" },
      d.steps.map((s, i) =>
        el("li", {},
          el("button", {
            type: "button",
            class: `pk-step${i === state.step ? " current" : ""}${isWorse(s.rating) ? " worse" : ""}`,
            "aria-current": i === state.step ? "step" : undefined,
            "data-step": String(i),
            onclick: () => go(i),
          }, `${i + 1}. ${s.seat}: ${moveText(s.move)}`, isWorse(s.rating) ? ` — ${worseText(s.rating)}` : ""))),
      el("li", {}, el("button", { type: "button", class: `pk-step${state.step === d.steps.length ? " current" : ""}`, onclick: () => go(d.steps.length) }, t("analysis.end")))),
  );
}

function resultText(d) {
  if (!d.result) return "";
  return d.result.loser ? t("learn.after.loser", { seat: d.result.loser }) : t("learn.after.draw");
}

function mainView() {
  const d = state.data;
  const n = d.steps.length;
  const atEnd = state.step >= n;
  const step = atEnd ? null : d.steps[state.step];
  const view = atEnd ? d.final : step.before;
  const handOptions = Array.from({ length: d.hands || 1 }, (_, i) => el("option", { value: String(i + 1), selected: i + 1 === d.hand }, t("analysis.handN", { n: i + 1 })));
  const handSelect = el("select", { id: "hand-select", "aria-label": t("analysis.hand") }, handOptions);
  handSelect.addEventListener("change", () => {
    state.hand = Number(handSelect.value);
    if (state.table) history.replaceState(null, "", `/analysis?table=${state.table}&hand=${state.hand}`);
    load();
  });
  return el(
    "div",
    { class: "pk-analysis" },
    el(
      "article",
      { class: "pk-panel", id: "analysis" },
      el("div", { class: "pk-row" },
        (d.hands || 1) > 1 ? handSelect : null,
        el("span", { id: "viewer" }, d.viewer ? t("analysis.asSeat", { seat: d.viewer }) : t("analysis.asSpectator")),
        el("strong", { id: "result" }, resultText(d))),
      el("div", { class: "pk-row" },
        el("button", { type: "button", class: "pk-button", id: "first", onclick: () => go(0), disabled: state.step === 0 }, t("analysis.first")),
        el("button", { type: "button", class: "pk-button", id: "prev", onclick: () => go(state.step - 1), disabled: state.step === 0 }, t("analysis.prev")),
        el("button", { type: "button", class: "pk-button", id: "next", onclick: () => go(state.step + 1), disabled: atEnd }, t("analysis.next")),
        el("button", { type: "button", class: "pk-button", id: "last", onclick: () => go(n), disabled: atEnd }, t("analysis.last")),
        el("span", { id: "step-label", "aria-live": "polite" }, atEnd ? t("analysis.end") : t("analysis.stepN", { n: state.step + 1, total: n, seat: step.seat }))),
      positionView(view),
      step ? ratingView(step) : el("p", { id: "rating" }, resultText(d)),
      el("p", { class: "pk-muted small" }, t("analysis.about", { ms: Math.round(d.budget_ms || 0) }), d.unrated ? ` ${t("analysis.unrated", { count: d.unrated })}` : ""),
    ),
    stepList(),
  );
}

function pickerView() {
  const input = el("input", { type: "file", id: "record-file", accept: ".txt,.skr,text/plain", "aria-describedby": "record-help" });
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    if (!file) return;
    state.recordText = await file.text();
    state.fileName = file.name;
    state.hand = 1;
    load();
  });
  return el(
    "section",
    { class: "pk-panel" },
    el("h2", {}, t("analysis.openRecord")),
    el("p", { id: "record-help" }, t("analysis.recordHelp")),
    el("label", { for: "record-file" }, t("analysis.chooseFile")),
    " ",
    input,
    state.fileName ? el("p", { class: "pk-muted" }, state.fileName) : null,
  );
}

function render() {
  renderPage();
  document.querySelector(".pk-step.current")?.scrollIntoView({ block: "nearest" });
}

function renderPage() {
  const page = document.getElementById("page");
  const body = [];
  if (!state.table) body.push(pickerView());
  if (state.loading) body.push(el("p", { class: "pk-intro", role: "status" }, t("analysis.loading")));
  if (state.error) body.push(el("p", { class: "pk-error", role: "alert" }, t("analysis.error", { message: state.error })));
  if (state.data) body.push(mainView());
  page.replaceChildren(
    header("nav-analysis"),
    el("main", { id: "app" },
      el("h1", {}, t("analysis.title")),
      state.table ? el("p", { class: "pk-intro" }, el("a", { href: `/#/t/${state.table}`, class: "pk-light" }, t("analysis.backToTable"))) : null,
      body),
  );
}

document.addEventListener("keydown", (ev) => {
  if (!state.data || ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
  if (ev.key === "ArrowRight") go(state.step + 1);
  else if (ev.key === "ArrowLeft") go(state.step - 1);
});

startPage(render).then(() => {
  if (state.table) load();
});
