// @ts-check
// The tutorial (/learn): positions from the rules' worked examples where the
// learner finds the move.  The server's engine checks every attempt
// (POST /api/learn/lessons/{id}/try); this page only draws and explains.
// Progress is remembered in localStorage ("sk.learn.done", a list of lesson ids).
import { request } from "./api.js";
import { html } from "./html.js";
// cards in texts with the court letters of the page's language (Д♠ in Russian)
import { cardText, cardsText, t } from "./i18n.js";
import { cardImg, draw, startPage, suitsText } from "./page.js";

/**
 * A lesson as the server sends it (GET /api/learn/lessons).
 * @typedef {object} Lesson
 * @property {string} id
 * @property {"free" | "respond"} mode
 * @property {string} to_act
 * @property {Record<string, string[]>} hands
 * @property {Record<string, string>} owners
 * @property {[string, string][]} outs
 * @property {string | null} top
 * @property {string[]} pile
 * @property {string[]} legal
 * @property {Record<string, string>} notes
 * @property {string[]} pickup_cards
 * @property {number} pickup_count
 */
/** @typedef {{to_act: string, mode: string | null, top: string | null, outs: [string, string][], result: {loser: string | null} | null}} After */
/** @typedef {{error?: string, local?: boolean, note?: string, card?: string, legal?: boolean, correct?: boolean, after?: After | null, lesson?: string}} Feedback */

const STORE = "sk.learn.done";
const state = {
  /** @type {Lesson[] | null} */
  lessons: null,
  /** @type {string | null} */
  error: null,
  index: 0,
  /** @type {string | null} the card chosen to beat (the first of a two-card turn) */
  beat: null,
  /** @type {Feedback | null} */
  feedback: null,
  busy: false,
};

function loadDone() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) || "[]");
    return new Set(Array.isArray(v) ? v : []);
  } catch {
    return new Set();
  }
}

/** @param {Set<string>} done */
function saveDone(done) {
  try {
    localStorage.setItem(STORE, JSON.stringify([...done]));
  } catch {
    /* private mode: progress lasts for this visit */
  }
}

let done = loadDone();

/** The lessons (once loaded: every caller runs after the load). */
function lessons() {
  return /** @type {Lesson[]} */ (state.lessons);
}

function lesson() {
  return lessons()[state.index];
}

function firstOpen() {
  const i = lessons().findIndex((x) => !done.has(x.id));
  return i < 0 ? 0 : i;
}

/** @param {number} i */
function go(i) {
  state.index = Math.max(0, Math.min(lessons().length - 1, i));
  state.beat = null;
  state.feedback = null;
  render();
  document.getElementById("lesson-title")?.focus();
}

/** @param {string} move */
async function attempt(move) {
  if (state.busy) return;
  state.busy = true;
  const x = lesson();
  try {
    const r = await request("POST", `/api/learn/lessons/${x.id}/try`, { move });
    state.feedback = { ...r, lesson: x.id };
    if (r.correct) {
      done.add(x.id);
      saveDone(done);
    }
  } catch (e) {
    state.feedback = { error: /** @type {Error} */ (e).message };
  }
  state.busy = false;
  state.beat = null;
  render();
  document.getElementById("feedback")?.focus();
}

/** @param {string} card */
function clickCard(card) {
  const x = lesson();
  if (state.feedback) return;
  if (x.mode === "free") return attempt(`lead ${card}`);
  if (state.beat === null) {
    const note = x.notes[card];
    if (note !== "higher" && note !== "own_suit") {
      state.feedback = { note, card, legal: false, correct: false, local: true };
      return render();
    }
    if (x.hands[x.to_act].length === 1) return attempt(`beat ${card}`);
    state.beat = card;
    return render();
  }
  if (card === state.beat) {
    state.beat = null;
    return render();
  }
  return attempt(`beat ${state.beat} lead ${card}`);
}

/** What happened after the learner's move, in sentences.
 * @param {After | null | undefined} after
 * @param {Lesson} before */
function afterText(after, before) {
  if (!after) return [];
  const out = [];
  const moved = before.to_act;
  const hist = after.outs.find(([s]) => s === moved);
  if (hist) out.push(t(hist[1] === "defence" ? "learn.after.outDefence" : "learn.after.outLead", { seat: moved }));
  if (after.result) {
    out.push(after.result.loser ? t("learn.after.loser", { seat: after.result.loser }) : t("learn.after.draw"));
  } else if (after.mode === "free") {
    out.push(t("learn.after.free", { seat: after.to_act }));
  } else if (after.mode === "respond") {
    out.push(t("learn.after.respond", { seat: after.to_act, top: cardText(after.top) }));
  }
  return out;
}

/** @param {Lesson} x @param {string} seat */
function seatBox(x, seat) {
  const me = seat === x.to_act;
  const out = x.outs.find(([s]) => s === seat);
  const label = t(me ? "learn.seatYou" : "learn.seat", { seat });
  return html`<section class=${`pk-seat${me ? " me" : ""}`} aria-label=${label}>
    <h3>${label} · ${x.owners[seat] ? t("learn.trump", { suits: suitsText(x.owners[seat]) }) : t("learn.noTrump")}${out ? ` · ${t("learn.out")}` : ""}</h3>
    ${me ? null : html`<div class="pk-mini">${x.hands[seat].map((c) => cardImg(c, "pk-mini-card"))}</div>`}
  </section>`;
}

/** @param {Lesson} x */
function handRow(x) {
  const owners = x.owners[x.to_act] || "";
  return html`<div class="pk-hand" role="group" aria-label=${t("learn.yourHand")}>
    ${x.hands[x.to_act].map((c) => {
      const note = x.notes[c];
      const beats = note === "higher" || note === "own_suit";
      const classes = ["pk-card"];
      if (owners.includes(c.slice(-1))) classes.push("trump");
      if (state.beat === c) classes.push("selected");
      if (x.mode === "respond" && state.beat === null && !beats) classes.push("dim");
      return html`<button class=${classes.join(" ")} type="button" data-card=${c} aria-pressed=${state.beat === c ? "true" : "false"}
        disabled=${state.busy || !!state.feedback} onClick=${() => clickCard(c)}>${cardImg(c)}</button>`;
    })}
  </div>`;
}

/** @param {Lesson} x */
function prompt(x) {
  if (x.mode === "free") return t("learn.freeLead");
  if (state.beat) return t("learn.chooseLead", { card: cardText(state.beat) });
  return t("learn.chooseBeat");
}

/** @param {Lesson} x */
function feedbackBox(x) {
  const f = state.feedback;
  if (!f) return null;
  let cls = "pk-feedback";
  let parts;
  if (f.error) {
    parts = html`<p>${t("learn.error", { message: f.error })}</p>`;
  } else if (f.local) {
    cls += " wrong";
    parts = html`<p class="pk-verdict">${t("learn.illegal")}</p>
      <p>${t(`learn.note.${f.note}`, { card: cardText(f.card), top: cardText(x.top) })}</p>`;
  } else if (!f.legal) {
    cls += " wrong";
    parts = html`<p class="pk-verdict">${t("learn.illegal")}</p>`;
  } else if (f.correct) {
    cls += " right";
    parts = html`<p class="pk-verdict">${t("learn.correct")}</p>
      <p>${t(`learn.${x.id}.explain`)}</p>
      ${afterText(f.after, x).map((line) => html`<p class="pk-after">${line}</p>`)}`;
  } else {
    cls += " wrong";
    parts = html`<p class="pk-verdict">${t("learn.wrong")}</p>
      ${afterText(f.after, x).map((line) => html`<p class="pk-after">${line}</p>`)}
      <p>${t(`learn.${x.id}.hint`)}</p>`;
  }
  const last = state.index === lessons().length - 1;
  return html`<div id="feedback" class=${cls} tabindex="-1" role="status">
    ${parts}
    <div class="pk-row">
      ${!f.correct ? html`<button type="button" id="retry" class="pk-button" onClick=${() => go(state.index)}>${t("learn.retry")}</button>` : null}
      ${f.correct && !last ? html`<button type="button" id="next" class="pk-button primary" onClick=${() => go(state.index + 1)}>${t("learn.next")}</button>` : null}
    </div>
  </div>`;
}

function lessonView() {
  const x = lesson();
  const others = Object.keys(x.hands).filter((s) => s !== x.to_act);
  const canPick = x.mode === "respond" && x.legal.includes("pickup");
  const cancel = () => {
    state.beat = null;
    render();
  };
  return html`<article class="pk-panel pk-lesson" id="lesson" data-lesson=${x.id}>
    <p class="pk-muted">${t("learn.lesson", { n: state.index + 1, total: lessons().length })}</p>
    <h2 id="lesson-title" tabindex="-1">${t(`learn.${x.id}.title`)}${done.has(x.id) ? html`<span class="pk-tag good">${t("learn.doneMark")}</span>` : null}</h2>
    <p class="pk-goal" id="goal">${t(`learn.${x.id}.goal`)}</p>
    <div class="pk-table">
      <div class="pk-seats">${others.map((s) => seatBox(x, s))}</div>
      <section class="pk-centre" aria-label=${t("learn.pile")}>
        ${x.top
          ? html`<div class="pk-pile">
              <div><div class="pk-muted">${t("learn.top")}</div>${cardImg(x.top, "pk-top-card")}</div>
              <div class="pk-pile-list"><div class="pk-muted">${t("learn.pile")}</div>${x.pile.map((c) => cardImg(c, "pk-mini-card"))}</div>
            </div>`
          : html`<p class="pk-empty">${t("learn.pileEmpty")}</p>`}
        ${canPick ? html`<p class="pk-cost" id="pickup-cost">${t("learn.pickupCards", { cards: cardsText(x.pickup_cards) })}</p>` : null}
      </section>
      ${seatBox(x, x.to_act)}
    </div>
    <p class="pk-prompt" id="prompt">${prompt(x)}</p>
    ${handRow(x)}
    <div class="pk-row">
      ${canPick
        ? html`<button type="button" id="pickup" class="pk-button" disabled=${state.busy || !!state.feedback} onClick=${() => attempt("pickup")}>${t("learn.pickup", { count: x.pickup_count })}</button>`
        : null}
      ${state.beat ? html`<button type="button" id="cancel" class="pk-button" onClick=${cancel}>${t("learn.cancel")}</button>` : null}
    </div>
    ${feedbackBox(x)}
  </article>`;
}

function listView() {
  const all = lessons();
  const n = all.filter((x) => done.has(x.id)).length;
  const reset = () => {
    done = new Set();
    saveDone(done);
    go(0);
  };
  return html`<nav class="pk-panel pk-lessons" aria-label=${t("learn.lessons")}>
    <h2>${t("learn.lessons")}</h2>
    <p id="progress">${t("learn.progress", { done: n, total: all.length })}</p>
    <ol>
      ${all.map(
        (x, i) => html`<li>
          <button type="button" class=${`pk-link${i === state.index ? " current" : ""}`} aria-current=${i === state.index ? "step" : undefined} onClick=${() => go(i)}>
            ${t(`learn.${x.id}.title`)}${done.has(x.id) ? " ✓" : ""}
          </button>
        </li>`,
      )}
    </ol>
    ${n === all.length ? html`<p class="pk-finished" id="finished">${t("learn.finished")} <a href="/">${t("learn.play")}</a></p>` : null}
    <button type="button" class="pk-button" id="reset" onClick=${reset}>${t("learn.reset")}</button>
  </nav>`;
}

function render() {
  let body;
  if (state.error) body = html`<p class="pk-error">${t("learn.error", { message: state.error })}</p>`;
  else if (!state.lessons) body = html`<p>${t("learn.loading")}</p>`;
  else body = html`<div class="pk-learn">${lessonView()}${listView()}</div>`;
  draw(html`<main id="app"><h1>${t("learn.title")}</h1><p class="pk-intro">${t("learn.intro")}</p>${body}</main>`);
}

startPage("nav-learn", render).then(async () => {
  try {
    state.lessons = (await request("GET", "/api/learn/lessons")).lessons;
    state.index = firstOpen();
  } catch (e) {
    state.error = /** @type {Error} */ (e).message;
  }
  render();
});
