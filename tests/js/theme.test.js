// Unit tests of the theme (static/theme.js): a card image's address for every
// deck and corner letters, whatever the page's language (node --test tests/js/).
import assert from "node:assert/strict";
import { test } from "node:test";

import { CORNER_LETTERS, DECKS, TABLE_COLOURS, cardSrcFor, oneOf } from "../../src/svoi_kozyri/web/static/theme.js";

test("the default deck and letters add nothing to a card's address", () => {
  assert.equal(cardSrcFor("QS", { deck: "classic", letters: "auto" }, "en"), "/cards/QS.svg");
  assert.equal(cardSrcFor("QS", { deck: "classic", letters: "en" }, "ru"), "/cards/QS.svg");
});

test("the corner letters follow the language only when asked to", () => {
  assert.equal(cardSrcFor("QS", { deck: "classic", letters: "auto" }, "ru"), "/cards/QS.svg?letters=ru");
  assert.equal(cardSrcFor("QS", { deck: "classic", letters: "ru" }, "en"), "/cards/QS.svg?letters=ru");
  assert.equal(cardSrcFor("10H", { deck: "four", letters: "ru" }, "ko"), "/cards/10H.svg?letters=ru&deck=four");
  assert.equal(cardSrcFor("AS", { deck: "large", letters: "auto" }, "it"), "/cards/AS.svg?deck=large");
});

test("an unknown stored value is the default", () => {
  assert.equal(oneOf("plaid", DECKS), "classic");
  assert.equal(oneOf(null, CORNER_LETTERS), "auto");
  assert.equal(oneOf("dark", TABLE_COLOURS), "dark");
  assert.deepEqual(DECKS, ["classic", "four", "large"]);
});
