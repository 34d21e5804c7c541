// The socket's messages: the handler table of api.js (dispatch) and the client's
// JSDoc types of them (static/wire.js, checked by `make jstypes`), compared here
// with the server's source so that a message type the server adds cannot be
// missing from the client's types (node --test tests/js/).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { dispatch } from "../../src/svoi_kozyri/web/static/api.js";
import { chatChannel } from "../../src/svoi_kozyri/web/static/chat-panel.js";

const server = new URL("../../src/svoi_kozyri/server/", import.meta.url);
const wire = readFileSync(new URL("../../src/svoi_kozyri/web/static/wire.js", import.meta.url), "utf8");

/** The message types a side sends, by the server's source: the pydantic models
 * Client* / Server* (wire/schemas.py) and, for the server, the messages its
 * features write as plain JSON ({"type": "chat", ...}: chat, rematch). */
function serverTypes() {
  const client = new Set();
  const sent = new Set();
  const model = /class (Client|Server)\w+\(\w+\):(?:(?!\nclass )[\s\S])*?\n\s+type: Literal\["([a-z_]+)"\]/g;
  const literal = /["']type["']\s*:\s*["']([a-z_]+)["']/g;
  for (const name of readdirSync(server, { recursive: true })) {
    if (!name.endsWith(".py")) continue;
    const text = readFileSync(new URL(name, server), "utf8");
    for (const m of text.matchAll(model)) (m[1] === "Client" ? client : sent).add(m[2]);
    // the messages written as plain JSON, in code (not the docstrings' examples of
    // what a client sends); the Python client of the project (web/client.py)
    // sends what a browser sends
    const code = text.replace(/"""[\s\S]*?"""/g, "").replace(/#.*$/gm, "");
    if (!/client\.py$/.test(name)) for (const m of code.matchAll(literal)) sent.add(m[1]);
  }
  return { client, server: sent };
}

/** The `type`s of wire.js's message typedefs named `<prefix>...` (ClientHello, ServerState). */
function wireTypes(prefix) {
  const out = new Set();
  for (const m of wire.matchAll(new RegExp(`@typedef \\{\\{type: "([a-z_]+)"[^\\n]*\\} ${prefix}[A-Z]\\w*`, "g"))) out.add(m[1]);
  return out;
}

test("wire.js types every message type of the server's source, and no other", () => {
  const { client, server: sent } = serverTypes();
  for (const known of ["hello", "move", "chat", "mute", "chat_history"]) assert.ok(client.has(known), `collector misses client ${known}`);
  for (const known of ["welcome", "state", "error", "hint", "pong", "chat", "chat_history", "chat_mutes", "rematch"])
    assert.ok(sent.has(known), `collector misses server ${known}`);
  assert.deepEqual([...wireTypes("Client")].sort(), [...client].sort());
  assert.deepEqual([...wireTypes("Server")].sort(), [...sent].sort());
});

test("dispatch hands a message to the handler of its type, and ignores the rest", () => {
  const got = [];
  const handlers = { state: (m) => got.push(["state", m.view.version]), chat: (m) => got.push(["chat", m.text]) };
  assert.equal(dispatch(handlers, { type: "state", view: { version: 3 } }), true);
  assert.equal(dispatch(handlers, { type: "chat", seat: 0, name: "Ann", text: "gg", at: 0 }), true);
  assert.equal(dispatch(handlers, { type: "pong" }), false);
  // a type named like an Object method is no handler
  assert.equal(dispatch(handlers, { type: "toString" }), false);
  assert.deepEqual(got, [["state", 3], ["chat", "gg"]]);
});

test("the chat's messages reach every subscriber of the chat channel until it leaves", () => {
  const sent = [];
  const chat = chatChannel((m) => sent.push(m));
  const seen = [];
  const off = chat.channel.subscribe({ chat: (m) => seen.push(m.text), chat_mutes: (m) => seen.push(m.muted), error: (m) => seen.push(m.code) });
  dispatch(chat.handlers, { type: "chat", seat: 1, name: "Bo", text: "hi", at: 1 });
  dispatch(chat.handlers, { type: "chat_mutes", muted: [2] });
  chat.channel.send({ type: "chat_history" });
  off();
  dispatch(chat.handlers, { type: "chat", seat: 1, name: "Bo", text: "gone", at: 2 });
  assert.deepEqual(seen, ["hi", [2]]);
  assert.deepEqual(sent, [{ type: "chat_history" }]);
});
