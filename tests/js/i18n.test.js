// Unit tests of the message catalogues and i18n.js (node --test tests/js/).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { LANGUAGES, cardTextIn, format, moveTextIn, pickLanguage, pluralKey, translate } from "../../src/svoi_kozyri/web/static/i18n.js";

const dir = new URL("../../src/svoi_kozyri/web/static/i18n/", import.meta.url);
const catalogues = Object.fromEntries(LANGUAGES.map((l) => [l, JSON.parse(readFileSync(new URL(`${l}.json`, dir), "utf8"))]));
const PLURAL = /\.(zero|one|two|few|many|other)$/;
const base = (key) => key.replace(PLURAL, "");
const params = (text) => new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));

// every catalogue, the table's keys and the tutorial's, analysis', deals', session's,
// chat's and rules pages' alike: a missing key would show English in that language
test("every language has every English message (plural forms aside)", () => {
  const en = new Set(Object.keys(catalogues.en).map(base));
  for (const lang of LANGUAGES) {
    const have = new Set(Object.keys(catalogues[lang]).map(base));
    const missing = [...en].filter((k) => !have.has(k));
    assert.deepEqual(missing, [], `${lang} misses ${missing.join(", ")}`);
  }
});

// the same placeholders as English: a lost {name} drops a fact, a misspelt one
// shows braces.  Only a plural form may leave out {count} ("No turn ...").
test("a translation has exactly the parameters of the English text", () => {
  // the parameters of a key over all its English plural forms
  const byBase = new Map();
  for (const [k, text] of Object.entries(catalogues.en)) {
    const b = byBase.get(base(k)) || new Set();
    for (const p of params(text)) b.add(p);
    byBase.set(base(k), b);
  }
  const enParams = (key) => byBase.get(base(key)) || new Set();
  for (const lang of LANGUAGES) {
    for (const [key, text] of Object.entries(catalogues[lang])) {
      const en = catalogues.en[key] ?? catalogues.en[`${base(key)}.other`] ?? catalogues.en[base(key)];
      assert.ok(en !== undefined, `${lang}: ${key} is not an English key`);
      const want = enParams(key);
      const have = params(text);
      for (const p of have) assert.ok(want.has(p), `${lang}: ${key} has {${p}}`);
      for (const p of want) {
        if (p === "count" && PLURAL.test(key)) continue;
        assert.ok(have.has(p), `${lang}: ${key} lacks {${p}}`);
      }
      assert.doesNotMatch(text, /\{(?!\w+\})|(?<!\{\w+)\}/, `${lang}: ${key} has a stray brace`);
    }
  }
});

test("every plural category a language needs has its form", () => {
  const counts = [0, 1, 2, 3, 5, 11, 21, 22, 25, 101, 1.5];
  for (const lang of LANGUAGES) {
    const rules = new Intl.PluralRules(lang);
    const keys = Object.keys(catalogues[lang]).filter((k) => PLURAL.test(k));
    for (const b of new Set(keys.map(base))) {
      for (const n of counts) {
        const cat = rules.select(n);
        assert.ok(`${b}.${cat}` in catalogues[lang] || `${b}.other` in catalogues[lang], `${lang}: ${b}.${cat}`);
      }
    }
  }
  // Russian is complete: one, few and many are all written out
  for (const b of new Set(Object.keys(catalogues.ru).filter((k) => k.endsWith(".few")).map(base))) {
    for (const cat of ["one", "few", "many", "other"]) assert.ok(`${b}.${cat}` in catalogues.ru, `ru: ${b}.${cat}`);
  }
});

test("Russian plural forms are chosen by Intl.PluralRules", () => {
  const t = (key, p) => translate(catalogues, "ru", key, p);
  assert.equal(t("table.cards", { count: 1 }), "1 карта");
  assert.equal(t("table.cards", { count: 3 }), "3 карты");
  assert.equal(t("table.cards", { count: 5 }), "5 карт");
  assert.equal(t("table.cards", { count: 21 }), "21 карта");
  assert.equal(t("table.cards", { count: 12 }), "12 карт");
  assert.equal(translate(catalogues, "en", "table.cards", { count: 1 }), "1 card");
  assert.equal(translate(catalogues, "en", "table.cards", { count: 2 }), "2 cards");
});

test("a missing key falls back to English, then to the key", () => {
  const cats = { en: { a: "A {x}", "n.one": "one", "n.other": "many" }, ru: {} };
  assert.equal(translate(cats, "ru", "a", { x: 1 }), "A 1");
  assert.equal(translate(cats, "ru", "n", { count: 4 }), "many");
  assert.equal(translate(cats, "ru", "nothing"), "nothing");
  assert.equal(pluralKey(cats.en, "n", 1, "en"), "n.one");
  assert.equal(pluralKey(cats.en, "a", undefined, "en"), "a");
});

test("parameters are replaced; unknown ones stay visible", () => {
  assert.equal(format("{who} leads {card}", { who: "B", card: "Q♠" }), "B leads Q♠");
  assert.equal(format("{who} leads {card}", { who: "B" }), "B leads {card}");
  assert.equal(format("no params"), "no params");
});

test("the language comes from the browser's list, else English", () => {
  assert.equal(pickLanguage(["ru-RU", "en-US"]), "ru");
  assert.equal(pickLanguage(["de-DE", "pt-BR"]), "pt");
  assert.equal(pickLanguage(["KO"]), "ko");
  assert.equal(pickLanguage(["de", "fr"]), "en");
  assert.equal(pickLanguage([]), "en");
  assert.equal(pickLanguage(undefined), "en");
});

// issue 21 item 5: a Russian text writes every card with the Russian court letters
// (В Д К Т, as the cards' corners), so "A" is only ever a seat, never an ace
test("cards and moves in texts use the court letters of the language", () => {
  assert.equal(cardTextIn(catalogues, "ru", "AH"), "Т♥");
  assert.equal(cardTextIn(catalogues, "ru", "QS"), "Д♠");
  assert.equal(cardTextIn(catalogues, "ru", "JC"), "В♣");
  assert.equal(cardTextIn(catalogues, "ru", "KD"), "К♦");
  assert.equal(cardTextIn(catalogues, "ru", "10H"), "10♥");
  assert.equal(cardTextIn(catalogues, "en", "AH"), "A♥");
  assert.equal(cardTextIn(catalogues, "ko", "QS"), "Q♠");
  assert.equal(cardTextIn(catalogues, "ru", ""), "");
  assert.equal(moveTextIn(catalogues, "ru", "beat 6D lead QS"), translate(catalogues, "ru", "analysis.mv.beatLead", { beat: "6♦", lead: "Д♠" }));
  assert.equal(moveTextIn(catalogues, "en", "lead AS"), "lead A♠");
  assert.equal(moveTextIn(catalogues, "ru", "pickup"), translate(catalogues, "ru", "analysis.mv.pickup"));
  const latin = /[JQKA][♠♥♦♣]/;
  for (const card of ["JS", "QH", "KD", "AC"]) {
    for (const move of [`lead ${card}`, `beat ${card}`, `beat ${card} lead ${card}`]) {
      assert.doesNotMatch(moveTextIn(catalogues, "ru", move), latin, move);
    }
  }
  // the catalogue's own Russian texts (lessons, hints) follow the same rule
  for (const [key, text] of Object.entries(catalogues.ru)) assert.doesNotMatch(text, latin, `ru: ${key}`);
});

// issue 21 item 17: a player's name is inserted as it is, so a Russian text may put
// it only where the nominative is right: as the subject, after a colon or a dot, or
// after the few reviewed words below ("Ходит Маша", "стол игрока Маша", "как Маша").
// "владельцу {to}" asked for a dative ("владельцу Маше") that no name can follow.
test("Russian texts never need a name in an oblique case", () => {
  const NOMINATIVE_AFTER = new Set(["", "Ходит", "игрока", "как"]);
  const NUMBERS = new Set(["lobby.live.page"]); // {from} and {to} are numbers there
  const bad = [];
  for (const [key, text] of Object.entries(catalogues.ru)) {
    if (NUMBERS.has(key)) continue;
    for (const m of text.matchAll(/(\S*)\s*\{(name|who|from|to)\}/g)) {
      const before = m[1];
      if (/[:·—(]$/.test(before) || NOMINATIVE_AFTER.has(before)) continue;
      bad.push(`${key}: «${before} {${m[2]}}»`);
    }
  }
  assert.deepEqual(bad, []);
  assert.equal(translate(catalogues, "ru", "log.transfer", { from: "Бот D", card: "6♠", to: "Маша (вы)" }), "Бот D отдаёт 6♠ владельцу масти: Маша (вы)");
});

// One catalogue system for every page: every literal key a module passes to t()
// is in the English catalogue (as it is or with its plural forms), so no page
// falls back to showing a key, and no module keeps strings of its own.
test("every key the client's modules ask for is in the catalogues", () => {
  const staticDir = new URL("../../src/svoi_kozyri/web/static/", import.meta.url);
  const en = catalogues.en;
  const missing = [];
  for (const name of readdirSync(staticDir)) {
    if (!name.endsWith(".js")) continue;
    const text = readFileSync(new URL(name, staticDir), "utf8");
    for (const m of text.matchAll(/\bt\(\s*"([a-z][\w.]*)"/g)) {
      if (!(m[1] in en) && !(`${m[1]}.other` in en)) missing.push(`${name}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});
