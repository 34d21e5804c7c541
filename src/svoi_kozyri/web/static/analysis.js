// @ts-check
// Analysis after a hand (/analysis?table=ID&hand=N, or a record file opened here).
// The server sends every step as this viewer saw it (their seat's token from the
// store, or none for a spectator) with the library's ratings; this page draws the
// position of the chosen step, the ratings and the turns where the result got worse.
import { request } from "./api.js";
import { botName, percentText } from "./cards.js";
import { html } from "./html.js";
// moves in texts with the court letters of the page's language (Д♠ in Russian)
import { language, moveText, t } from "./i18n.js";
import { cardImg, draw, startPage, suitsText } from "./page.js";
import { store } from "./store.js";

const params = new URLSearchParams(location.search);
/** @type {{table: string | null, ms: number | null, hand: number, data: any, error: string | null,
 *   loading: boolean, step: number, recordText: string | null, fileName: string | null}} */
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

const BAR_WIDTH = 60;

/** A move's score (0..1) as a bar: an SVG whose sizes are attributes, since the
 * site's CSP (style-src 'self') refuses inline style attributes, and a bar sized
 * by one would stay invisible and log a console error per row.
 * @param {number} score */
function scoreBar(score) {
  const width = Math.max(1, Math.round(Math.max(0, Math.min(1, score)) * BAR_WIDTH));
  return html`<svg class="pk-scorebar" width=${BAR_WIDTH + 6} height="10" viewBox=${`0 0 ${BAR_WIDTH + 6} 10`} aria-hidden="true" focusable="false">
    <rect x="0" y="1" width=${BAR_WIDTH} height="8" rx="3" fill="#e4e7ec" />
    <rect class="pk-scorebar-fill" x="0" y="1" width=${width} height="8" rx="3" fill="#2e90fa" />
  </svg>`;
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

/** The bounds the solver proved for an estimate it did not settle ("at least a
 * draw, proven"), in front of the estimate; nothing for older servers. */
function boundsText(r) {
  const parts = [];
  if (r.at_least) parts.push(t(`rating.atLeast.${r.at_least}`));
  if (r.at_best) parts.push(t(`rating.atBest.${r.at_best}`));
  return parts.length ? `${parts.join("; ")}; ` : "";
}

/** A rating in words: proven win/draw/loss, or an estimate with its 95 % interval
 * (and its proven bounds, where the solver found some). */
function ratingText(r) {
  if (!r) return "";
  if (r.proven) {
    const key = r.score >= 0.99 ? "analysis.provenWin" : r.score <= 0.01 ? "analysis.provenLoss" : "analysis.provenDraw";
    return t(key);
  }
  return boundsText(r) + t("analysis.estimate", { score: percent(r.score, true), low: percent(r.low), high: percent(r.high), samples: r.samples });
}

/** A rating in a table cell: "proven: a draw", or "62% (54–70%)". */
function shortRating(r) {
  if (r.proven) return ratingText(r);
  return boundsText(r) + t("analysis.estimateShort", { score: percent(r.score, true), low: percent(r.low), high: percent(r.high) });
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
      /** @type {Record<string, string>} */
      const headers = token ? { "X-Seat-Token": token } : {};
      state.data = await request("GET", `/api/tables/${encodeURIComponent(state.table)}/hands/${state.hand}/analysis${q}`, undefined, headers);
    } else if (state.recordText !== null) {
      state.data = await request("POST", "/api/analysis/record", { text: state.recordText, hand: state.hand, ...(state.ms ? { ms: state.ms } : {}) });
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
  return html`<section class="pk-table" aria-label=${t("analysis.position")}>
    <div class="pk-seats">
      ${letters.map(
        (s, i) => html`<div class=${`pk-seat${s === toAct ? " me" : ""}`}>
          <h3>${seatName(s)} · ${d.owners[s] ? t("learn.trump", { suits: suitsText(d.owners[s]) }) : t("learn.noTrump")}</h3>
          <div class="pk-muted">${view.outs.some(([x]) => x === s) ? t("learn.out") : t("analysis.cards", { count: view.sizes[i] })}</div>
          ${view.known[i].length ? html`<div class="pk-mini" aria-label=${t("analysis.known")}>${view.known[i].map((c) => cardImg(c, "pk-mini-card"))}</div>` : null}
        </div>`,
      )}
    </div>
    <div class="pk-centre">
      ${view.top
        ? html`<div class="pk-pile">
            <div><div class="pk-muted">${t("learn.top")}</div>${cardImg(view.top, "pk-top-card")}</div>
            <div class="pk-pile-list"><div class="pk-muted">${t("analysis.pileCount", { count: view.pile_size })}</div>${view.pile.map((c) => cardImg(c, "pk-mini-card"))}</div>
          </div>`
        : html`<p class="pk-empty">${t("learn.pileEmpty")}</p>`}
    </div>
    ${view.complete ? html`<p class="pk-muted pk-centre" id="complete-note">${t("analysis.completeNote")}</p>` : null}
    ${d.viewer
      ? html`<div class="pk-centre"><div class="pk-muted">${t("analysis.yourHand")}</div><div class="pk-mini">${view.hand.map((c) => cardImg(c, "pk-mini-card"))}</div></div>`
      : html`<p class="pk-muted pk-centre">${t("analysis.spectatorNote")}</p>`}
  </section>`;
}

function ratingView(step) {
  const r = step.rating;
  if (!r) {
    // why there is none, as the server says (older servers: from the rated seats)
    const why = step.no_rating || ((state.data.rated || []).includes(step.seat) ? "no_choice" : "hidden");
    const key = { no_choice: "analysis.noChoice", time: "analysis.notRatedTime" }[why] || "analysis.notRated";
    return html`<p class="pk-muted" id="rating">${t(key)}</p>`;
  }
  return html`<div id="rating">
    <p>
      <span class=${`pk-tag ${isProven(r) ? "good" : "est"}`} id="rating-kind">${t(isProven(r) ? "analysis.proven" : "analysis.estimated")}</span>
      ${isWorse(r) ? html`<span class="pk-tag bad" id="rating-worse">${worseText(r)}</span>` : null}
    </p>
    <p>${t("analysis.played", { move: moveText(step.move) })} <strong>${ratingText(r.played)}</strong></p>
    <p>${r.best.move ? t("analysis.best", { move: moveText(r.best.move) }) : t("analysis.bestHidden")} <strong>${ratingText(r.best)}</strong></p>
    ${r.moves.length
      ? html`<table class="pk-ratings">
          <caption class="pk-muted">${t("analysis.movesCaption")}</caption>
          <thead><tr><th scope="col">${t("analysis.move")}</th><th scope="col">${t("analysis.rating")}</th></tr></thead>
          <tbody>
            ${r.moves.map(
              (m) => html`<tr class=${m.move === step.move ? "played" : ""}>
                <td>${moveText(m.move)}</td>
                <td>${scoreBar(m.score)} ${shortRating(m)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : null}
    ${r.hidden ? html`<p class="pk-muted">${t("analysis.hiddenMoves", { count: r.hidden })}</p>` : null}
  </div>`;
}

function stepList() {
  const d = state.data;
  return html`<nav class="pk-panel" aria-label=${t("analysis.turns")}>
    <h2>${t("analysis.turns")}</h2>
    <p class="pk-muted" id="worse-count">${t("analysis.worseCount", { count: d.steps.filter((s) => isWorse(s.rating)).length })}</p>
    <ol class="pk-steps">
      ${d.steps.map(
        (s, i) => html`<li>
          <button type="button" class=${`pk-step${i === state.step ? " current" : ""}${isWorse(s.rating) ? " worse" : ""}`}
            aria-current=${i === state.step ? "step" : undefined} data-step=${String(i)} onClick=${() => go(i)}>
            ${`${i + 1}. ${s.seat}: ${moveText(s.move)}`}${isWorse(s.rating) ? ` — ${worseText(s.rating)}` : ""}
          </button>
        </li>`,
      )}
      <li><button type="button" class=${`pk-step${state.step === d.steps.length ? " current" : ""}`} onClick=${() => go(d.steps.length)}>${t("analysis.end")}</button></li>
    </ol>
  </nav>`;
}

function resultText(d) {
  if (!d.result) return "";
  return d.result.loser ? t("learn.after.loser", { seat: d.result.loser }) : t("learn.after.draw");
}

/** Another hand of the table chosen. */
function chooseHand(ev) {
  state.hand = Number(ev.currentTarget.value);
  if (state.table) history.replaceState(null, "", `/analysis?table=${state.table}&hand=${state.hand}`);
  load();
}

function mainView() {
  const d = state.data;
  const n = d.steps.length;
  const atEnd = state.step >= n;
  const step = atEnd ? null : d.steps[state.step];
  const view = atEnd ? d.final : step.before;
  return html`<div class="pk-analysis">
    <article class="pk-panel" id="analysis">
      <div class="pk-row">
        ${(d.hands || 1) > 1
          ? html`<select id="hand-select" aria-label=${t("analysis.hand")} onChange=${chooseHand}>
              ${Array.from({ length: d.hands || 1 }, (_, i) => html`<option value=${String(i + 1)} selected=${i + 1 === d.hand}>${t("analysis.handN", { n: i + 1 })}</option>`)}
            </select>`
          : null}
        <span id="viewer">${d.viewer ? t("analysis.asSeat", { seat: d.viewer }) : t("analysis.asSpectator")}</span>
        <strong id="result">${resultText(d)}</strong>
      </div>
      <div class="pk-row">
        <button type="button" class="pk-button" id="first" onClick=${() => go(0)} disabled=${state.step === 0}>${t("analysis.first")}</button>
        <button type="button" class="pk-button" id="prev" onClick=${() => go(state.step - 1)} disabled=${state.step === 0}>${t("analysis.prev")}</button>
        <button type="button" class="pk-button" id="next" onClick=${() => go(state.step + 1)} disabled=${atEnd}>${t("analysis.next")}</button>
        <button type="button" class="pk-button" id="last" onClick=${() => go(n)} disabled=${atEnd}>${t("analysis.last")}</button>
        <span id="step-label" aria-live="polite">${atEnd ? t("analysis.end") : t("analysis.stepN", { n: state.step + 1, total: n, seat: step.seat })}</span>
      </div>
      ${positionView(view)}
      ${step ? ratingView(step) : html`<p id="rating">${resultText(d)}</p>`}
      <p class="pk-muted small">${t("analysis.about", { ms: Math.round(d.budget_ms || 0) })}${d.unrated ? ` ${t("analysis.unrated", { count: d.unrated })}` : ""}</p>
    </article>
    ${stepList()}
  </div>`;
}

/** A record file chosen: analyse its first hand. */
async function chooseFile(ev) {
  const file = ev.currentTarget.files?.[0];
  if (!file) return;
  state.recordText = await file.text();
  state.fileName = file.name;
  state.hand = 1;
  load();
}

function pickerView() {
  return html`<section class="pk-panel">
    <h2>${t("analysis.openRecord")}</h2>
    <p id="record-help">${t("analysis.recordHelp")}</p>
    <label for="record-file">${t("analysis.chooseFile")}</label>${" "}
    <input type="file" id="record-file" accept=".txt,.skr,text/plain" aria-describedby="record-help" onChange=${chooseFile} />
    ${state.fileName ? html`<p class="pk-muted">${state.fileName}</p>` : null}
  </section>`;
}

function render() {
  draw(html`<main id="app">
    <h1>${t("analysis.title")}</h1>
    ${state.table ? html`<p class="pk-intro"><a href=${`/#/t/${state.table}`} class="pk-light">${t("analysis.backToTable")}</a></p>` : null}
    ${state.table ? null : pickerView()}
    ${state.loading ? html`<p class="pk-intro" role="status">${t("analysis.loading")}</p>` : null}
    ${state.error ? html`<p class="pk-error" role="alert">${t("analysis.error", { message: state.error })}</p>` : null}
    ${state.data ? mainView() : null}
  </main>`);
  document.querySelector(".pk-step.current")?.scrollIntoView({ block: "nearest" });
}

document.addEventListener("keydown", (ev) => {
  if (!state.data || ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
  if (ev.key === "ArrowRight") go(state.step + 1);
  else if (ev.key === "ArrowLeft") go(state.step - 1);
});

startPage("nav-analysis", render).then(() => {
  if (state.table) load();
});
