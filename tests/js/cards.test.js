// Unit tests of the table's pure helpers (cards.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  cardName,
  clickAction,
  describeHint,
  describeMove,
  handLayout,
  HIT,
  outOrder,
  parseLegal,
  pickupCards,
  playableCards,
  resultText,
  seatDisplayName,
  seatPlaces,
  shortName,
  sortHand,
} from "../../src/svoi_kozyri/web/static/cards.js";

const EN = {
  "card.name": "{rank} of {suit}",
  "card.rank.Q": "queen",
  "card.suit.S": "spades",
  "log.lead": "{who} leads {card}",
  "log.beatLead": "{who} beats with {beat}, leads {lead}",
  "log.beatOut": "{who} beats with {beat}, the last card",
  "log.pickup": "{who} picks up {count}: {cards}",
  "log.by.timer": "on the timer",
  "result.youLose": "You lose",
  "result.loses": "{name} loses",
  "result.draw": "Draw",
  "result.drawLastCard": "Draw: the last card beats the lead",
  "table.youName": "{name} (you)",
  "table.botSeat": "Bot {letter}",
  "table.freeSeat": "free seat",
  "hint.lead": "lead {card}",
  "hint.beatLead": "beat with {beat}, then lead {lead}",
  "hint.beatOut": "beat with {beat}",
  "hint.pickup": "pick up",
};
const t = (key, p = {}) => (key in EN ? EN[key].replace(/\{(\w+)\}/g, (_, k) => p[k]) : key);

const LEGAL = ["pickup", "beat 10H lead QS", "beat 10H lead 6D", "beat QS lead 6D", "beat AH"];

test("legal moves split into leads, beats with their leads, and pickup", () => {
  const { leads, beats, pickup } = parseLegal(LEGAL);
  assert.equal(pickup, true);
  assert.equal(leads.size, 0);
  assert.deepEqual([...beats.get("10H")], ["QS", "6D"]);
  assert.deepEqual([...beats.get("AH")], [""]);
  assert.deepEqual([...parseLegal(["lead 7S", "lead 8H"]).leads], ["7S", "8H"]);
});

test("a click leads, starts a two-card turn, finishes it or cancels it", () => {
  assert.deepEqual(clickAction("7S", ["lead 7S"], null), { send: "lead 7S" });
  assert.deepEqual(clickAction("10H", LEGAL, null), { select: "10H" });
  assert.deepEqual(clickAction("QS", LEGAL, "10H"), { send: "beat 10H lead QS" });
  assert.deepEqual(clickAction("10H", LEGAL, "10H"), { select: null });
  assert.equal(clickAction("AH", LEGAL, "10H"), null); // not a lead after 10H
  assert.deepEqual(clickAction("AH", LEGAL, null), { send: "beat AH" }); // the last card
  assert.equal(clickAction("9C", LEGAL, null), null);
});

test("the playable cards follow the step of the turn", () => {
  assert.deepEqual([...playableCards(LEGAL, null)].sort(), ["10H", "AH", "QS"]);
  assert.deepEqual([...playableCards(LEGAL, "10H")].sort(), ["6D", "QS"]);
});

test("the hand is sorted with the own trump suits together at the end", () => {
  assert.deepEqual(sortHand(["AS", "6H", "10C", "7S", "QH", "5D"], "S"), ["6H", "QH", "5D", "10C", "7S", "AS"]);
  assert.deepEqual(sortHand(["AS", "6H", "7C", "KD"], "HD"), ["AS", "7C", "6H", "KD"]);
});

test("seats sit in play order around the table with the viewer at the bottom", () => {
  assert.deepEqual(seatPlaces(4, 2), [
    { seat: 2, place: "bottom" },
    { seat: 3, place: "left" },
    { seat: 0, place: "top" },
    { seat: 1, place: "right" },
  ]);
  assert.deepEqual(seatPlaces(2, 1).map((p) => p.place), ["bottom", "top"]);
  assert.deepEqual(seatPlaces(3, null).map((p) => p.seat), [0, 1, 2]);
});

test("a pickup takes the top cards of the pile", () => {
  assert.deepEqual(pickupCards(["6D", "8H", "QS", "9D"], 3), ["8H", "QS", "9D"]);
  assert.deepEqual(pickupCards(["6D", "8H"], 5), ["6D", "8H"]);
  assert.deepEqual(pickupCards([], 3), []);
});

test("moves and results read as sentences, with 'you' for the viewer", () => {
  assert.equal(shortName("10H"), "10♥");
  assert.equal(cardName("QS", t), "queen of spades");
  assert.equal(describeMove({ move: "beat 10H lead QS", picked: [], by: "player" }, "B", t), "B beats with 10♥, leads Q♠");
  assert.equal(describeMove({ move: "lead 6D", picked: [], by: "timer" }, "A", t), "A leads 6♦ (on the timer)");
  assert.equal(describeMove({ move: "beat AH", picked: [], by: "bot" }, "C", t), "C beats with A♥, the last card");
  assert.equal(describeMove({ move: "pickup", picked: ["9D", "QS"], by: "player" }, "D", t), "D picks up 2: 9♦ Q♠");
  const names = ["Ann (you)", "Bob"];
  assert.equal(resultText({ loser: 0, reason: "out" }, names, 0, t), "You lose");
  assert.equal(resultText({ loser: 1, reason: "out" }, names, 0, t), "Bob loses");
  assert.equal(resultText({ loser: null, reason: "last_card" }, names, 0, t), "Draw: the last card beats the lead");
  const seat = { seat: 0, letter: "A", kind: "human", taken: true, name: "Ann" };
  assert.equal(seatDisplayName(seat, 0, t), "Ann (you)");
  assert.equal(seatDisplayName(seat, null, t), "Ann");
  assert.equal(seatDisplayName({ ...seat, kind: "bot", bot: "medium" }, 0, t), "Bot A");
  assert.equal(seatDisplayName({ ...seat, taken: false }, 1, t), "free seat");
});

test("court letters follow the language", () => {
  const ru = (key) => ({ "card.short.Q": "Д", "card.short.A": "Т" })[key] ?? key;
  assert.equal(shortName("QS", ru), "Д♠");
  assert.equal(shortName("AH", ru), "Т♥");
  assert.equal(shortName("10D", ru), "10♦");
  assert.equal(shortName("QS"), "Q♠");
});

test("a hint reads as an instruction", () => {
  assert.equal(describeHint("beat 10H lead QS", t), "beat with 10♥, then lead Q♠");
  assert.equal(describeHint("lead 6D", t), "lead 6♦");
  assert.equal(describeHint("beat AH", t), "beat with A♥");
  assert.equal(describeHint("pickup", t), "pick up");
});

test("the order of going out lists who still holds cards last", () => {
  assert.deepEqual(outOrder({ out_order: [2, 0, 3] }, 4), { order: [2, 0, 3], rest: [1] });
  assert.deepEqual(outOrder(null, 2), { order: [], rest: [0, 1] });
});

// the hint's rating is worded here, from the real catalogues, in every language
import { readFileSync } from "node:fs";
import { percentText, ratingText } from "../../src/svoi_kozyri/web/static/cards.js";
import { translate } from "../../src/svoi_kozyri/web/static/i18n.js";

const CATS = Object.fromEntries(
  ["en", "ru", "it", "es", "nl", "pt", "ko"].map((l) => [
    l,
    JSON.parse(readFileSync(new URL(`../../src/svoi_kozyri/web/static/i18n/${l}.json`, import.meta.url), "utf8")),
  ]),
);
const tr = (lang) => (key, p) => translate(CATS, lang, key, p);
const EST = { kind: "estimated", value: null, score: 1, low: 0.9287, high: 1, samples: 50, source: "pimc", at_least: null, at_best: null };

test("an estimate never reads as a certainty, a proven value says so", () => {
  assert.equal(percentText(1, "en", true), ">99%");
  assert.equal(percentText(0.001, "en", true), "<1%");
  assert.equal(percentText(1, "en"), "100%");
  assert.equal(percentText(0.62, "ru", true), "62\u00a0%");
  const en = ratingText(EST, tr("en"), "en");
  assert.equal(en, "estimate: >99% chance of not being the durak (95%: 92% to 100%, 50 samples)");
  assert.equal(ratingText({ ...EST, kind: "proven", value: "win", score: 1 }, tr("en"), "en"), "proven: not the durak");
  assert.match(ratingText({ ...EST, at_least: "draw" }, tr("en"), "en"), /^proven: at least a draw; estimate: /);
  assert.equal(ratingText({ ...EST, kind: "unrated", samples: 0 }, tr("en"), "en"), "not rated (no time to search)");
});

test("the rating is worded in Russian, with Russian plurals, and in every language", () => {
  const ru = ratingText({ ...EST, score: 0.62, low: 0.55, high: 0.69, samples: 400 }, tr("ru"), "ru");
  assert.equal(ru, "оценка: 62\u00a0% — шанс не остаться дураком (95\u00a0%: от 55\u00a0% до 69\u00a0%, 400 выборок)");
  assert.match(ratingText({ ...EST, samples: 21 }, tr("ru"), "ru"), /21 выборка\)$/);
  assert.match(ratingText({ ...EST, samples: 3 }, tr("ru"), "ru"), /3 выборки\)$/);
  assert.equal(ratingText({ ...EST, kind: "proven", value: "loss", score: 0 }, tr("ru"), "ru"), "доказано: дурак");
  for (const lang of Object.keys(CATS)) {
    for (const r of [EST, { ...EST, kind: "proven", value: "draw" }, { ...EST, at_best: "draw" }, { ...EST, kind: "unrated" }]) {
      const text = ratingText(r, tr(lang), lang);
      assert.doesNotMatch(text, /[{}]|rating\./, `${lang}: ${text}`);
      if (lang !== "en") assert.notEqual(text, ratingText(r, tr("en"), "en"), lang);
    }
  }
});

test("handLayout: every card shows HIT px, rows fill up, then the hand scrolls", () => {
  // 9 cards on a 343 px phone hand: two rows, none narrower than a fingertip
  const nine = handLayout(343, 9, 62, 4);
  assert.ok(nine.step >= HIT);
  assert.equal(nine.rows.reduce((a, b) => a + b), 9);
  assert.equal(nine.scroll, false);
  // 36 cards: as many rows as allowed, still HIT px each, and sideways scrolling
  for (const maxRows of [1, 2, 4]) {
    const big = handLayout(343, 36, 62, maxRows);
    assert.equal(big.rows.length, maxRows);
    assert.equal(big.rows.reduce((a, b) => a + b), 36);
    assert.ok(big.step >= HIT);
    assert.equal(big.scroll, true);
  }
  // a wide screen: 18 cards in one row, no scrolling
  const wide = handLayout(900, 18, 80, 3);
  assert.deepEqual(wide.rows, [18]);
  assert.equal(wide.scroll, false);
  // rows overlap, so a row reaches over the one above, but never past HIT + lifts
  assert.ok(nine.rows.length === 1 || nine.overlap <= Math.round(62 * 1.4) - HIT - 12);
  assert.deepEqual(handLayout(343, 1, 62, 4).rows, [1]);
  // 25 cards in four rows of 7 are 3 px too wide with 62 px cards: a tenth narrower, no scroll
  const t25 = handLayout(343, 25, 62, 4);
  assert.equal(t25.scroll, false);
  assert.equal(t25.w, 56);
  assert.ok(t25.step >= HIT);
});
