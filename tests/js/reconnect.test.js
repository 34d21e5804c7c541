// The table socket's reconnection (api.js TableSocket): a server process that is
// stopping closes with 1012 and the page reconnects at once without a word; any
// other close is said ("reconnecting") and retried with a bounded backoff.  The
// browser is stood in for by a fake WebSocket and node's mocked timers
// (node --test tests/js/; the real thing runs through nginx in
// tests/test_hosts_netns.py).
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { QUIET_MS, reconnectDelay, TableSocket } from "../../src/svoi_kozyri/web/static/api.js";

/** A WebSocket that records what is sent and lets the test open and close it. */
class FakeSocket {
  static OPEN = 1;
  /** @type {FakeSocket[]} */
  static made = [];
  /** @param {string} url */
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    /** @type {string[]} */
    this.sent = [];
    FakeSocket.made.push(this);
  }
  /** @param {string} text */
  send(text) {
    this.sent.push(text);
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  /** @param {number} code */
  drop(code) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  close() {
    this.readyState = 3;
  }
}

function setup() {
  FakeSocket.made = [];
  globalThis.WebSocket = /** @type {any} */ (FakeSocket);
  globalThis.location = /** @type {any} */ ({ protocol: "https:", host: "cards.example.org" });
  mock.timers.enable({ apis: ["setTimeout"] });
  /** @type {string[]} */
  const statuses = [];
  const sock = new TableSocket("abc", "tok", { messages: {}, onStatus: (s) => statuses.push(s) });
  return { sock, statuses };
}

test("a 1012 close reconnects within a quarter second and says nothing", (t) => {
  t.after(() => mock.timers.reset());
  const { sock, statuses } = setup();
  FakeSocket.made[0].open();
  assert.deepEqual(statuses, ["connected"]);
  assert.equal(FakeSocket.made[0].url, "wss://cards.example.org/ws/abc");
  FakeSocket.made[0].drop(1012);
  mock.timers.tick(250);
  assert.equal(FakeSocket.made.length, 2, "reconnected");
  FakeSocket.made[1].open();
  mock.timers.tick(QUIET_MS * 2);
  assert.deepEqual(statuses, ["connected", "connected"], "no 'reconnecting' shown");
  assert.deepEqual(JSON.parse(FakeSocket.made[1].sent[0]), { type: "hello", token: "tok" });
  sock.close();
});

test("a quiet reconnection is said when it takes long, or at once when it fails", (t) => {
  t.after(() => mock.timers.reset());
  const { sock, statuses } = setup();
  FakeSocket.made[0].open();
  FakeSocket.made[0].drop(1012);
  mock.timers.tick(250);
  assert.equal(FakeSocket.made.length, 2);
  mock.timers.tick(QUIET_MS - 300);
  assert.deepEqual(statuses, ["connected"], "still quiet");
  mock.timers.tick(100);
  assert.deepEqual(statuses, ["connected", "reconnecting"], "said once it took long");
  FakeSocket.made[1].drop(1012); // the new attempt failed too: said at once, backed off
  assert.deepEqual(statuses, ["connected", "reconnecting", "reconnecting"]);
  mock.timers.tick(QUIET_MS * 2);
  assert.equal(statuses.length, 3, "no quiet timer left behind");
  sock.close();
});

test("a broken connection is said and retried with a growing, bounded wait", (t) => {
  t.after(() => mock.timers.reset());
  const { sock, statuses } = setup();
  FakeSocket.made[0].open();
  FakeSocket.made[0].drop(1006);
  assert.deepEqual(statuses, ["connected", "reconnecting"]);
  mock.timers.tick(374);
  assert.equal(FakeSocket.made.length, 1, "not before three quarters of half a second");
  mock.timers.tick(126);
  assert.equal(FakeSocket.made.length, 2);
  sock.close();
  mock.timers.tick(10000);
  assert.equal(FakeSocket.made.length, 2, "a closed socket stays closed");
});

test("reconnectDelay: at once after a quiet close, else 0.5 s doubling to at most 5 s", () => {
  assert.equal(reconnectDelay(1012, 0, 0), 0);
  assert.equal(reconnectDelay(1012, 0, 0.999), 250);
  assert.equal(reconnectDelay(1001, 0, 0.5), 125);
  assert.equal(reconnectDelay(1012, 1, 0), 750, "a second failure backs off");
  assert.equal(reconnectDelay(1006, 0, 0), 375);
  assert.equal(reconnectDelay(1006, 0, 1), 500);
  assert.equal(reconnectDelay(1006, 3, 1), 4000);
  assert.equal(reconnectDelay(1006, 20, 1), 5000);
  assert.equal(reconnectDelay(1006, 20, 0), 3750);
});
