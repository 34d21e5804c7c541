// Unit tests of the client's one request helper (api.js) as every page uses it:
// the stand-alone pages (page.js pages: tutorial, deals, analysis, session), the
// account pieces (account.js, profile.js, lobby_live.js) and the table app's api.
// The browser is stood in for by a cookie jar and a fetch that records what was
// sent (node --test tests/js/).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { errorText, request } from "../../src/svoi_kozyri/web/static/api.js";
import { LANGUAGES } from "../../src/svoi_kozyri/web/static/i18n.js";

const postJSON = (path, body, headers = {}) => request("POST", path, body, headers);

const TOKEN = "c".repeat(43);

/** Stand in for the browser: a document with the CSRF cookie, and a fetch that
 * answers with `answers` in turn (default 200 {}) and records every request. */
function browser(answers = []) {
  const sent = [];
  globalThis.document = { cookie: `sk_lang=en; sk_csrf=${TOKEN}` };
  globalThis.fetch = async (path, init = {}) => {
    sent.push({ path, method: init.method || "GET", headers: init.headers || {}, body: init.body });
    const [status, data] = answers.shift() || [200, {}];
    return { ok: status < 400, status, json: async () => data };
  };
  return sent;
}

test("a POST sends the CSRF token (tutorial, deals, rematch, analysis upload)", async () => {
  const sent = browser();
  await postJSON("/api/learn/lessons/first-card/try", { move: "lead 6S" });
  await postJSON("/api/tables/t1/rematch", {}, { "X-Seat-Token": "seat" });
  assert.equal(sent[0].headers["X-CSRF-Token"], TOKEN);
  assert.equal(sent[1].headers["X-CSRF-Token"], TOKEN);
  assert.equal(sent[1].headers["X-Seat-Token"], "seat");
  assert.equal(sent[0].method, "POST");
  assert.deepEqual(JSON.parse(sent[0].body), { move: "lead 6S" });
});

test("a GET carries no CSRF token, but keeps its own headers", async () => {
  const sent = browser();
  await request("GET", "/api/tables/t1/hands/1/analysis", undefined, { "X-Seat-Token": "seat" });
  assert.equal(sent[0].method, "GET");
  assert.equal(sent[0].headers["X-CSRF-Token"], undefined);
  assert.equal(sent[0].headers["X-Seat-Token"], "seat");
});

test("one request helper and one csrfToken(): no page has its own", () => {
  const dir = new URL("../../src/svoi_kozyri/web/static/", import.meta.url);
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".js")) continue;
    const text = readFileSync(new URL(name, dir), "utf8");
    if (name === "api.js") continue;
    assert.doesNotMatch(text, /function\s+(csrfToken|request)\b/, `${name} defines its own request helper`);
    assert.doesNotMatch(text, /sk_csrf/, `${name} reads the CSRF cookie itself`);
    // the one place that calls the API is api.js (i18n.js only loads the catalogues;
    // the service worker, sw.js, fetches the static files it caches, never the API)
    if (name !== "i18n.js" && name !== "sw.js") assert.doesNotMatch(text, /\bfetch\(/, `${name} calls fetch() itself`);
  }
});

test("a refused CSRF token is fetched again and the request sent once more", async () => {
  const sent = browser([[403, { code: "csrf", message: "missing or wrong CSRF token" }], [200, { csrf: TOKEN }], [200, { ok: 1 }]]);
  const data = await request("POST", "/api/deals/d1/play", { name: "Ann", seat: 0 });
  assert.deepEqual(data, { ok: 1 });
  assert.deepEqual(sent.map((s) => `${s.method} ${s.path}`), ["POST /api/deals/d1/play", "GET /api/account/me", "POST /api/deals/d1/play"]);
});

test("a refusal is worded from the catalogue by its code, the server's English only as a fallback", async () => {
  browser([[409, { code: "hand_running", message: "the hand is still running" }]]);
  await assert.rejects(postJSON("/api/tables/t1/hands/1/deal", {}), (e) => {
    assert.equal(e.code, "hand_running");
    assert.equal(e.status, 409);
    assert.equal(e.serverMessage, "the hand is still running");
    // no catalogue is loaded in Node, so the server's words stand in
    assert.equal(e.message, "the hand is still running");
    return true;
  });
  const ru = { "error.csrf": "Проверка не прошла", "error.http": "Ошибка {status}" };
  const tr = (key, params = {}) => (key in ru ? ru[key].replace("{status}", params.status) : key);
  assert.equal(errorText("csrf", "missing or wrong CSRF token", 403, tr), "Проверка не прошла");
  assert.equal(errorText("brand_new_code", "the server's words", 400, tr), "the server's words");
  assert.equal(errorText(undefined, "", 502, tr), "Ошибка 502");
  assert.equal(errorText(undefined, "", 502, (k) => k), "HTTP 502");
});

// Every code the server can answer with (collected from its source tree, so a new
// one cannot be forgotten) has its words in every catalogue.
function serverCodes() {
  const dir = new URL("../../src/svoi_kozyri/server/", import.meta.url);
  const codes = new Set();
  const calls = /\b(?:error_text|AccountError|TableError|FatalMessage|ServerError|_err|_error|_refuse)\(\s*"([a-z_]+)"/g;
  const literals = /"code"\s*:\s*"([a-z_]+)"/g;
  // the server is a tree of packages: every module of every package
  for (const name of readdirSync(dir, { recursive: true })) {
    if (!name.endsWith(".py")) continue;
    const text = readFileSync(new URL(name, dir), "utf8");
    for (const m of text.matchAll(calls)) codes.add(m[1]);
    for (const m of text.matchAll(literals)) codes.add(m[1]);
  }
  return codes;
}

test("every error code of the server has its words in every language", () => {
  const codes = serverCodes();
  for (const known of ["csrf", "not_your_turn", "bad_login", "throttled", "too_large", "hand_running", "name_reserved"]) {
    assert.ok(codes.has(known), `the collector misses ${known}`);
  }
  const dir = new URL("../../src/svoi_kozyri/web/static/i18n/", import.meta.url);
  for (const lang of LANGUAGES) {
    const cat = JSON.parse(readFileSync(new URL(`${lang}.json`, dir), "utf8"));
    const missing = [...codes].filter((c) => !(`error.${c}` in cat)).sort();
    assert.deepEqual(missing, [], `${lang} has no words for ${missing.join(", ")}`);
    assert.ok("error.http" in cat, `${lang}: error.http`);
    if (lang !== "en") {
      const en = JSON.parse(readFileSync(new URL("en.json", dir), "utf8"));
      const same = [...codes].filter((c) => cat[`error.${c}`] === en[`error.${c}`]);
      assert.deepEqual(same, [], `${lang} copies the English of ${same.join(", ")}`);
    }
  }
});
