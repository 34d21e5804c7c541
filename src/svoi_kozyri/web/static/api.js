// @ts-check
// HTTP and WebSocket helpers of the web client (see docs/protocol.md).  The one
// request helper of every page: the table app, the account pieces and the
// stand-alone pages all call request() here, so every state-changing request carries the CSRF token and
// every refusal is worded from the page's catalogue the same way.
import { t } from "./i18n.js";

/** @typedef {import("./wire.js").ClientMessage} ClientMessage */
/** @typedef {import("./wire.js").ServerMessage} ServerMessage */
/** @typedef {import("./wire.js").ServerHandlers} ServerHandlers */

/** A refusal: an Error worded for the page, with the server's code and status.
 * @typedef {Error & {code?: string, status?: number, serverMessage?: string}} RequestError */

// The CSRF token the server set (cookie sk_csrf); state-changing requests send it
// back in X-CSRF-Token (docs/web.md, security model).  Guests have one too (set
// by GET /api/account/me), logged-in players must send theirs on every POST.
export function csrfToken() {
  const m = (globalThis.document?.cookie || "").match(/(?:^|;\s*)sk_csrf=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

/** The words for a refusal in the page's language: the catalogue's `error.<code>`
 * when there is one; the server's own message (English) only for a code the
 * catalogue does not know, or a refusal without a code. `tr` is the translator
 * (the page's t(); a parameter so that the Node tests can pass their own). */
/**
 * @param {string | undefined} code
 * @param {string | undefined} message
 * @param {number} status
 * @param {(key: string, params?: Record<string, unknown>) => string} [tr]
 */
export function errorText(code, message, status, tr = t) {
  if (code) {
    const key = `error.${code}`;
    const text = tr(key);
    if (text && text !== key) return text;
  }
  if (message) return message;
  const key = "error.http";
  const text = tr(key, { status });
  return text && text !== key ? text : `HTTP ${status}`;
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A JSON request.  State-changing ones send X-CSRF-Token; when the server
 * refuses the token (403 csrf: the cookie was lost or belongs to an old
 * session), the token is fetched again from /api/account/me and the request
 * sent once more.  A refusal throws an Error whose message is already worded
 * for the page (errorText) and which keeps the server's `code`, `status` and
 * `serverMessage`. */
/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 * @returns {Promise<any>}
 */
export async function request(method, path, body, headers = {}) {
  const send = () => {
    /** @type {Record<string, string>} */
    const all = { "Content-Type": "application/json", ...headers };
    const csrf = csrfToken();
    if (UNSAFE.has(method) && csrf) all["X-CSRF-Token"] = csrf;
    return fetch(path, {
      method,
      headers: all,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  };
  let res = await send();
  let data = await res.json().catch(() => ({}));
  if (res.status === 403 && data.code === "csrf" && UNSAFE.has(method)) {
    await fetch("/api/account/me", { credentials: "same-origin" }).catch(() => null);
    res = await send();
    data = await res.json().catch(() => ({}));
  }
  if (!res.ok) {
    let msg = data.message;
    if (!msg && Array.isArray(data.detail)) {
      msg = data.detail.map((/** @type {{loc?: string[], msg: string}} */ d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    }
    const err = /** @type {RequestError} */ (new Error(errorText(data.code, msg, res.status)));
    err.code = data.code;
    err.status = res.status;
    err.serverMessage = msg || "";
    throw err;
  }
  return data;
}

/** A request as one seat: the seat's token travels in a header, never in a URL.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {string | null} [token] */
const call = (method, path, body, token) => request(method, path, body, token ? { "X-Seat-Token": token } : {});

/** @typedef {(tableId: string, token?: string | null) => Promise<any>} SeatCall */
export const api = {
  bots: () => call("GET", "/api/bots"),
  rulesOptions: () => call("GET", "/api/rules-options"),
  lobby: () => call("GET", "/api/tables"),
  create: (/** @type {string} */ name, /** @type {object} */ config) => call("POST", "/api/tables", { name, config }),
  join: (/** @type {string} */ tableId, /** @type {string} */ name) => call("POST", `/api/tables/${tableId}/join`, { name }),
  table: /** @type {SeatCall} */ ((tableId, token) => call("GET", `/api/tables/${tableId}`, undefined, token)),
  replay: /** @type {SeatCall} */ ((tableId, token) => call("GET", `/api/tables/${tableId}/replay`, undefined, token)),
  // a 60-second signed link to the record written for the token's seat: the
  // token travels in a header, never in a URL (docs/protocol.md)
  recordLink: /** @type {SeatCall} */ ((tableId, token) => call("POST", `/api/tables/${tableId}/record-link`, {}, token)),
  // the next session with the same seats, your seat at it (table.js's banner)
  rematch: /** @type {SeatCall} */ ((tableId, token) => call("POST", `/api/tables/${tableId}/rematch`, {}, token)),
};
/** Download the table's record as the token's seat sees it (a signed, short-lived link).
 * @param {string} tableId
 * @param {string | null} token */
export async function downloadRecord(tableId, token) {
  const { url } = await api.recordLink(tableId, token);
  const a = document.createElement("a");
  a.href = url;
  a.download = `svoi-kozyri-${tableId}.skr`;
  document.body.append(a);
  a.click();
  a.remove();
}

/** Hand a server message to its handler in `handlers` (message type -> handler);
 * a type without a handler is ignored.  Returns whether a handler took it.
 * @param {ServerHandlers} handlers
 * @param {ServerMessage} msg */
export function dispatch(handlers, msg) {
  const handler = /** @type {((m: ServerMessage) => void) | undefined} */ (Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : undefined);
  if (!handler) return false;
  handler(msg);
  return true;
}

/**
 * @typedef {object} SocketHandlers
 * @property {ServerHandlers} messages what each server message type does
 * @property {(status: "connected" | "reconnecting" | "refused") => void} [onStatus]
 */

/** Close codes of a server process that is stopping (1012 service restart,
 * 1001 going away): the socket is handed to another process, so the client
 * reconnects at once and says nothing unless that takes long (docs/deploy.md). */
export const QUIET_CLOSE = new Set([1001, 1012]);
/** How long a quiet reconnection may take before the page says "reconnecting". */
export const QUIET_MS = 2000;

/** Milliseconds before reconnection attempt number `retry` (0 first) after a close
 * with `code`: at once (spread over a quarter second, so a stopping process's
 * players do not all arrive in the same instant) after a quiet close, else an
 * exponential backoff from half a second to five, with jitter; `random` in [0, 1).
 * @param {number} code @param {number} retry @param {number} random */
export function reconnectDelay(code, retry, random) {
  if (QUIET_CLOSE.has(code) && retry === 0) return Math.round(250 * random);
  return Math.round(Math.min(5000, 500 * 2 ** retry) * (0.75 + 0.25 * random));
}

// A table connection that reconnects by itself: the seat belongs to the token,
// not to the socket, so a new socket with the same token gets the same seat; the
// server sends the whole table at its current version after the hello, whichever
// process it reaches, so nothing has to be resent.
export class TableSocket {
  /**
   * @param {string} tableId
   * @param {string | null} token
   * @param {SocketHandlers} handlers
   */
  constructor(tableId, token, handlers) {
    this.tableId = tableId;
    this.token = token;
    this.handlers = handlers;
    this.closed = false;
    this.retry = 0;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.quiet = undefined;
    this.open();
  }

  open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/${this.tableId}`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      clearTimeout(this.quiet);
      ws.send(JSON.stringify({ type: "hello", token: this.token || null }));
      this.handlers.onStatus?.("connected");
    };
    ws.onmessage = (ev) => {
      dispatch(this.handlers.messages, JSON.parse(ev.data));
    };
    ws.onclose = (ev) => {
      if (this.closed) return;
      if (ev.code === 4401 || ev.code === 4404) {
        this.handlers.onStatus?.("refused");
        return;
      }
      clearTimeout(this.quiet);
      if (QUIET_CLOSE.has(ev.code) && this.retry === 0) {
        this.quiet = setTimeout(() => !this.closed && this.handlers.onStatus?.("reconnecting"), QUIET_MS);
      } else {
        this.handlers.onStatus?.("reconnecting");
      }
      const wait = reconnectDelay(ev.code, this.retry++, Math.random());
      setTimeout(() => !this.closed && this.open(), wait);
    };
  }

  /** @param {ClientMessage} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearTimeout(this.quiet);
    this.ws?.close();
  }
}
