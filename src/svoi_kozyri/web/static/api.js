// HTTP and WebSocket helpers of the web client (see docs/protocol.md).

// The CSRF token the server set (cookie sk_csrf); state-changing requests send it
// back in X-CSRF-Token (docs/web.md, security model).
function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)sk_csrf=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

async function call(method, path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Seat-Token"] = token;
  if (method !== "GET" && csrfToken()) headers["X-CSRF-Token"] = csrfToken();
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    let msg = data.message;
    if (!msg && Array.isArray(data.detail)) {
      msg = data.detail.map((d) => `${d.loc.slice(1).join(".")}: ${d.msg}`).join("; ");
    }
    const err = new Error(msg || `HTTP ${res.status}`);
    err.code = data.code;
    throw err;
  }
  return data;
}

export const api = {
  bots: () => call("GET", "/api/bots"),
  rulesOptions: () => call("GET", "/api/rules-options"),
  lobby: () => call("GET", "/api/tables"),
  create: (name, config) => call("POST", "/api/tables", { name, config }),
  join: (tableId, name) => call("POST", `/api/tables/${tableId}/join`, { name }),
  table: (tableId, token) => call("GET", `/api/tables/${tableId}`, undefined, token),
  replay: (tableId, token) => call("GET", `/api/tables/${tableId}/replay`, undefined, token),
  // a 60-second signed link to the record written for the token's seat: the
  // token travels in a header, never in a URL (docs/protocol.md)
  recordLink: (tableId, token) => call("POST", `/api/tables/${tableId}/record-link`, {}, token),
};

/** Download the table's record as the token's seat sees it (a signed, short-lived link). */
export async function downloadRecord(tableId, token) {
  const { url } = await api.recordLink(tableId, token);
  const a = document.createElement("a");
  a.href = url;
  a.download = `svoi-kozyri-${tableId}.skr`;
  document.body.append(a);
  a.click();
  a.remove();
}

// A table connection that reconnects by itself: the seat belongs to the token,
// not to the socket, so a new socket with the same token gets the same seat.
export class TableSocket {
  constructor(tableId, token, handlers) {
    this.tableId = tableId;
    this.token = token;
    this.handlers = handlers;
    this.closed = false;
    this.retry = 0;
    this.open();
  }

  open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/${this.tableId}`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      ws.send(JSON.stringify({ type: "hello", token: this.token || null }));
      this.handlers.onStatus?.("connected");
    };
    ws.onmessage = (ev) => {
      this.handlers.onMessage?.(JSON.parse(ev.data));
    };
    ws.onclose = (ev) => {
      if (this.closed) return;
      if (ev.code === 4401 || ev.code === 4404) {
        this.handlers.onStatus?.("refused");
        return;
      }
      this.handlers.onStatus?.("reconnecting");
      const wait = Math.min(5000, 500 * 2 ** this.retry++);
      setTimeout(() => !this.closed && this.open(), wait);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    this.ws?.close();
  }
}
