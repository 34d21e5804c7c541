// Unit tests of the per-account preferences' sync (static/prefs.js): what is sent
// to the account, and what of a server answer the browser takes (node --test tests/js/).
import assert from "node:assert/strict";
import { test } from "node:test";

import { PREF_KEYS, changeToSend, cleanPrefs } from "../../src/svoi_kozyri/web/static/prefs.js";

const here = { deck: "four", letters: "auto", table: "dark", notify: false, lang: "ru" };

test("only the keys asked for that differ from the account's are sent", () => {
  assert.deepEqual(changeToSend(here, {}, ["deck"]), { deck: "four" });
  assert.deepEqual(changeToSend(here, { deck: "four" }, ["deck", "table"]), { table: "dark" });
  assert.deepEqual(changeToSend(here, { ...here }, PREF_KEYS), {});
  // false is a choice like any other: an account with notify on learns it is off
  assert.deepEqual(changeToSend(here, { notify: true }, ["notify"]), { notify: false });
  assert.deepEqual(changeToSend(here, { lang: "ru" }, new Set(["lang", "letters"])), { letters: "auto" });
});

test("a server answer keeps only known keys with known values", () => {
  assert.deepEqual(cleanPrefs({ deck: "large", table: "dark", notify: true, lang: "ko", letters: "ru" }), {
    deck: "large",
    table: "dark",
    notify: true,
    lang: "ko",
    letters: "ru",
  });
  assert.deepEqual(cleanPrefs({ deck: "rainbow", table: "DARK", notify: "yes", lang: "fr", colour: "dark" }), {});
  assert.deepEqual(cleanPrefs({ notify: false }), { notify: false });
  assert.deepEqual(cleanPrefs(null), {});
  assert.deepEqual(cleanPrefs("deck=four"), {});
  assert.deepEqual(cleanPrefs(JSON.parse('{"__proto__": {"deck": "four"}}')), {});
});
