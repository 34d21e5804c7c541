// The tutorial (/learn): positions from the rules' worked examples where the
// learner finds the move.  The server's engine checks every attempt
// (POST /api/learn/lessons/{id}/try); this page only draws and explains.
// Progress is remembered in localStorage ("sk.learn.done", a list of lesson ids).
import { cardImg, el, getJSON, header, postJSON, startPage, suitsText, t } from "./pagekit.js";
// cards in texts with the court letters of the page's language (Д♠ in Russian)
import { cardText, cardsText } from "./i18n.js";

const STORE = "sk.learn.done";
const state = { lessons: null, error: null, index: 0, beat: null, feedback: null, busy: false };

function loadDone() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) || "[]");
    return new Set(Array.isArray(v) ? v : []);
  } catch {
    return new Set();
  }
}

function saveDone(done) {
  try {
    localStorage.setItem(STORE, JSON.stringify([...done]));
  } catch {
    /* private mode: progress lasts for this visit */
  }
}

let done = loadDone();

function lesson() {
  return state.lessons[state.index];
}

function firstOpen() {
  const i = state.lessons.findIndex((x) => !done.has(x.id));
  return i < 0 ? 0 : i;
}

function go(i) {
  state.index = Math.max(0, Math.min(state.lessons.length - 1, i));
  state.beat = null;
  state.feedback = null;
  render();
  document.getElementById("lesson-title")?.focus();
}

async function attempt(move) {
  if (state.busy) return;
  state.busy = true;
  const x = lesson();
  try {
    const r = await postJSON(`/api/learn/lessons/${x.id}/try`, { move });
    state.feedback = { ...r, lesson: x.id };
    if (r.correct) {
      done.add(x.id);
      saveDone(done);
    }
  } catch (e) {
    state.feedback = { error: e.message };
  }
  state.busy = false;
  state.beat = null;
  render();
  document.getElementById("feedback")?.focus();
}

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

function seatBox(x, seat) {
  const me = seat === x.to_act;
  const cards = x.hands[seat];
  const out = x.outs.find(([s]) => s === seat);
  return el(
    "section",
    { class: `pk-seat${me ? " me" : ""}`, "aria-label": t(me ? "learn.seatYou" : "learn.seat", { seat }) },
    el(
      "h3",
      {},
      t(me ? "learn.seatYou" : "learn.seat", { seat }),
      " · ",
      x.owners[seat] ? t("learn.trump", { suits: suitsText(x.owners[seat]) }) : t("learn.noTrump"),
      out ? ` · ${t("learn.out")}` : "",
    ),
    me ? null : el("div", { class: "pk-mini" }, cards.map((c) => cardImg(c, "pk-mini-card"))),
  );
}

function handRow(x) {
  const seat = x.to_act;
  const cards = x.hands[seat];
  const owners = x.owners[seat] || "";
  return el(
    "div",
    { class: "pk-hand", role: "group", "aria-label": t("learn.yourHand") },
    cards.map((c) => {
      const note = x.notes[c];
      const beats = note === "higher" || note === "own_suit";
      const classes = ["pk-card"];
      if (owners.includes(c.slice(-1))) classes.push("trump");
      if (state.beat === c) classes.push("selected");
      if (x.mode === "respond" && state.beat === null && !beats) classes.push("dim");
      return el(
        "button",
        {
          class: classes.join(" "),
          type: "button",
          "data-card": c,
          "aria-pressed": state.beat === c ? "true" : "false",
          disabled: state.busy || !!state.feedback,
          onclick: () => clickCard(c),
        },
        cardImg(c),
      );
    }),
  );
}

function prompt(x) {
  if (x.mode === "free") return t("learn.freeLead");
  if (state.beat) return t("learn.chooseLead", { card: cardText(state.beat) });
  return t("learn.chooseBeat");
}

function feedbackBox(x) {
  const f = state.feedback;
  if (!f) return null;
  const parts = [];
  let cls = "pk-feedback";
  if (f.error) {
    parts.push(el("p", {}, t("learn.error", { message: f.error })));
  } else if (f.local) {
    cls += " wrong";
    parts.push(el("p", { class: "pk-verdict" }, t("learn.illegal")));
    parts.push(el("p", {}, t(`learn.note.${f.note}`, { card: cardText(f.card), top: cardText(x.top) })));
  } else if (!f.legal) {
    cls += " wrong";
    parts.push(el("p", { class: "pk-verdict" }, t("learn.illegal")));
  } else if (f.correct) {
    cls += " right";
    parts.push(el("p", { class: "pk-verdict" }, t("learn.correct")));
    parts.push(el("p", {}, t(`learn.${x.id}.explain`)));
    for (const line of afterText(f.after, x)) parts.push(el("p", { class: "pk-after" }, line));
  } else {
    cls += " wrong";
    parts.push(el("p", { class: "pk-verdict" }, t("learn.wrong")));
    for (const line of afterText(f.after, x)) parts.push(el("p", { class: "pk-after" }, line));
    parts.push(el("p", {}, t(`learn.${x.id}.hint`)));
  }
  const last = state.index === state.lessons.length - 1;
  const buttons = el(
    "div",
    { class: "pk-row" },
    !f.correct ? el("button", { type: "button", id: "retry", class: "pk-button", onclick: () => go(state.index) }, t("learn.retry")) : null,
    f.correct && !last
      ? el("button", { type: "button", id: "next", class: "pk-button primary", onclick: () => go(state.index + 1) }, t("learn.next"))
      : null,
  );
  return el("div", { id: "feedback", class: cls, tabindex: "-1", role: "status" }, parts, buttons);
}

function lessonView() {
  const x = lesson();
  const seats = Object.keys(x.hands);
  const others = seats.filter((s) => s !== x.to_act);
  const total = state.lessons.length;
  const canPick = x.mode === "respond" && x.legal.includes("pickup");
  return el(
    "article",
    { class: "pk-panel pk-lesson", id: "lesson", "data-lesson": x.id },
    el("p", { class: "pk-muted" }, t("learn.lesson", { n: state.index + 1, total })),
    el("h2", { id: "lesson-title", tabindex: "-1" }, t(`learn.${x.id}.title`), done.has(x.id) ? el("span", { class: "pk-tag good" }, t("learn.doneMark")) : null),
    el("p", { class: "pk-goal", id: "goal" }, t(`learn.${x.id}.goal`)),
    el("div", { class: "pk-table" },
      el("div", { class: "pk-seats" }, others.map((s) => seatBox(x, s))),
      el(
        "section",
        { class: "pk-centre", "aria-label": t("learn.pile") },
        x.top
          ? el("div", { class: "pk-pile" },
              el("div", {}, el("div", { class: "pk-muted" }, t("learn.top")), cardImg(x.top, "pk-top-card")),
              el("div", { class: "pk-pile-list" }, el("div", { class: "pk-muted" }, t("learn.pile")), x.pile.map((c) => cardImg(c, "pk-mini-card"))))
          : el("p", { class: "pk-empty" }, t("learn.pileEmpty")),
        canPick ? el("p", { class: "pk-cost", id: "pickup-cost" }, t("learn.pickupCards", { cards: cardsText(x.pickup_cards) })) : null,
      ),
      seatBox(x, x.to_act),
    ),
    el("p", { class: "pk-prompt", id: "prompt" }, prompt(x)),
    handRow(x),
    el(
      "div",
      { class: "pk-row" },
      canPick
        ? el("button", { type: "button", id: "pickup", class: "pk-button", disabled: state.busy || !!state.feedback, onclick: () => attempt("pickup") }, t("learn.pickup", { count: x.pickup_count }))
        : null,
      state.beat ? el("button", { type: "button", id: "cancel", class: "pk-button", onclick: () => { state.beat = null; render(); } }, t("learn.cancel")) : null,
    ),
    feedbackBox(x),
  );
}

function listView() {
  const total = state.lessons.length;
  const n = state.lessons.filter((x) => done.has(x.id)).length;
  return el(
    "nav",
    { class: "pk-panel pk-lessons", "aria-label": t("learn.lessons") },
    el("h2", {}, t("learn.lessons")),
    el("p", { id: "progress" }, t("learn.progress", { done: n, total })),
    el("ol", {},
      state.lessons.map((x, i) =>
        el("li", {},
          el("button", { type: "button", class: `pk-link${i === state.index ? " current" : ""}`, "aria-current": i === state.index ? "step" : undefined, onclick: () => go(i) },
            t(`learn.${x.id}.title`), done.has(x.id) ? ` ✓` : ""),
        ),
      ),
    ),
    n === total
      ? el("p", { class: "pk-finished", id: "finished" }, t("learn.finished"), " ", el("a", { href: "/" }, t("learn.play")))
      : null,
    el("button", { type: "button", class: "pk-button", id: "reset", onclick: () => { done = new Set(); saveDone(done); go(0); } }, t("learn.reset")),
  );
}

function render() {
  const page = document.getElementById("page");
  let body;
  if (state.error) body = el("p", { class: "pk-error" }, t("learn.error", { message: state.error }));
  else if (!state.lessons) body = el("p", {}, t("learn.loading"));
  else body = el("div", { class: "pk-learn" }, lessonView(), listView());
  page.replaceChildren(
    header("nav-learn"),
    el("main", { id: "app" }, el("h1", {}, t("learn.title")), el("p", { class: "pk-intro" }, t("learn.intro")), body),
  );
}

startPage(render).then(async () => {
  try {
    state.lessons = (await getJSON("/api/learn/lessons")).lessons;
    state.index = firstOpen();
  } catch (e) {
    state.error = e.message;
  }
  render();
});
