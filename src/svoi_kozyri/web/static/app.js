// @ts-check
// Svoi Kozyri web client: the page shell (header, language, sounds), the
// router (#/ lobby, #/t/<id> table, #/r/<id> replay) and the table connection.
// Preact components with htm templates, ES modules, no build step.  Text typed
// by users is only ever rendered as text.
import { api, errorText, TableSocket } from "./api.js";
import { botName } from "./cards.js";
import { chatChannel } from "./chat-panel.js";
import { html, render, useEffect, useMemo, useRef, useState } from "./html.js";
import { Header } from "./header.js";
import { initI18n, language, onLanguage, t } from "./i18n.js";
import { Lobby, NameField, useAccount } from "./lobby.js";
import { Profile } from "./profile.js";
import { Friends } from "./friends.js";
import { Admin, ModLink } from "./admin.js";
import { Tournaments } from "./tournament.js";
import { paceMs } from "./motion.js";
import { store } from "./store.js";
import { Table } from "./table.js";
import { onTheme } from "./theme.js";

function useHash() {
  const [hash, setHash] = useState(location.hash || "#/");
  useEffect(() => {
    const on = () => setHash(location.hash || "#/");
    window.addEventListener("hashchange", on);
    // A change between the first render and this (passive, after-paint) effect fired
    // no listener: read the hash again, or the app stays on the old route.  Seen on
    // a loaded machine: a page opened at #/t/<id> and moved to #/ at once kept the table.
    on();
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return hash;
}

// ---------------------------------------------------------------- a live table

function JoinPanel({ tableId, view, onJoined }) {
  const user = useAccount();
  const [name, setName] = useState(store.name());
  const [error, setError] = useState("");
  const join = async () => {
    const n = user ? user.username : name.trim();
    if (!n) return setError(t("lobby.nameNeeded"));
    store.setName(n);
    try {
      const grant = await api.join(tableId, n);
      store.setToken(tableId, grant.token);
      onJoined(grant.token);
    } catch (e) {
      setError(e.message); // worded from the catalogue by api.js
    }
  };
  const host = view.seats.find((s) => s.kind === "human" && s.taken);
  const title = view.title || (host ? t("lobby.tableOf", { name: host.name }) : tableId);
  return html`<section class="panel join-panel">
    <h1>${t("join.title", { title })}</h1>
    <ul class="join-seats">${view.seats.map((s) => html`<li>${s.letter}: ${s.kind === "bot" ? t("lobby.seatBot", { bot: botName(s.bot, t) }) : s.taken ? s.name : t("table.freeSeat")}</li>`)}</ul>
    <${NameField} value=${name} onInput=${setName} account=${user?.username} />
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <div class="row">
      <button id="join-btn" class="primary" onClick=${join}>${t("join.take")}</button>
      <a class="button" href=${`#/t/${tableId}?watch`}>${t("join.watchInstead")}</a>
    </div>
  </section>`;
}

// Shows each incoming view at least paceMs() after the previous one changed the
// hand, so bot turns can be followed; with reduced motion they show at once.
function usePacedViews() {
  const [view, setView] = useState(null);
  const queue = useRef([]);
  const timer = useRef(null);
  const shownAt = useRef(0);
  const pump = () => {
    timer.current = null;
    while (queue.current.length) {
      const next = queue.current[0];
      const wait = shownAt.current + paceMs() - Date.now();
      if (next._moves && wait > 0 && queue.current.length < 12) {
        timer.current = setTimeout(pump, wait);
        return;
      }
      queue.current.shift();
      next._receivedAt = Date.now();
      if (next._moves) shownAt.current = Date.now();
      setView(next);
    }
  };
  const push = (v, prevRef) => {
    const last = queue.current.length ? queue.current[queue.current.length - 1] : prevRef;
    v._moves = !!(last?.hand && v.hand && (last.hand.number !== v.hand.number || last.hand.log.length + last.hand.log_start !== v.hand.log.length + v.hand.log_start));
    queue.current.push(v);
    if (!timer.current) pump();
  };
  useEffect(() => () => timer.current && clearTimeout(timer.current), []);
  return [view, push];
}

function TablePage({ tableId, watch }) {
  const [token, setToken] = useState(watch ? null : store.token(tableId));
  const [needJoin, setNeedJoin] = useState(null);
  const [error, setError] = useState("");
  const [conn, setConn] = useState("connecting");
  const [flash, setFlash] = useState("");
  const [hint, setHint] = useState(null);
  const [hintRating, setHintRating] = useState(null);
  const [view, pushView] = usePacedViews();
  const sock = useRef(null);
  // the chat's messages go to the chat panel (chat-panel.js), not to the table
  const chat = useMemo(() => chatChannel((m) => sock.current?.send(m)), []);
  const viewRef = useRef(null);
  viewRef.current = view;

  useEffect(() => {
    let stopped = false;
    if (!token && !watch) {
      api
        .table(tableId)
        .then((v) => {
          if (stopped) return;
          if (v.seats.some((s) => !s.taken)) setNeedJoin(v);
          else setNeedJoin(false);
        })
        .catch((e) => setError(e.message)); // worded from the catalogue by api.js
      return () => {
        stopped = true;
      };
    }
    return undefined;
  }, [tableId, token, watch]);

  const connected = token || watch || needJoin === false;
  useEffect(() => {
    if (!connected) return undefined;
    // what each server message does: a handler table keyed on the message type
    // (wire.js), the chat's types among them
    /** @type {import("./wire.js").ServerHandlers} */
    const messages = {
      ...chat.handlers,
      state: (msg) => {
        const old = viewRef.current;
        if (!old || old.version !== msg.view.version) {
          setFlash("");
          setHint(null);
        }
        pushView(msg.view, old);
      },
      error: (msg) => {
        if (chat.error(msg)) return;
        setFlash(errorText(msg.code, msg.message, 0));
      },
      hint: (msg) => {
        setHint(msg.move);
        setHintRating(msg.rating || null);
      },
    };
    const s = new TableSocket(tableId, watch ? null : token, {
      messages,
      onStatus: (st) => {
        // a token the server no longer knows (e.g. a reset database): forget it
        if (st === "refused" && token) store.forgetToken(tableId);
        setConn(st);
      },
    });
    sock.current = s;
    return () => s.close();
  }, [tableId, token, watch, connected]);

  if (error) return html`<section class="panel"><p class="error" role="alert">${t("join.cannot", { message: error })}</p><a href="#/">${t("table.lobby")}</a></section>`;
  if (needJoin && !token) return html`<${JoinPanel} tableId=${tableId} view=${needJoin} onJoined=${setToken} />`;
  if (!view) {
    if (conn === "refused")
      return html`<section class="panel"><p>${t("table.refused")}</p><a href=${`#/t/${tableId}`} onClick=${() => location.reload()}>${t("table.openAgain")}</a></section>`;
    return html`<p class="loading" role="status">${t("table.connecting")}</p>`;
  }
  return html`<${Table} view=${view} tableId=${tableId} conn=${conn} send=${(m) => sock.current?.send(m)} flash=${flash} hint=${hint} hintRating=${hintRating} clearHint=${() => setHint(null)} chat=${watch ? null : chat.channel} />`;
}

// ---------------------------------------------------------------- replay

function ReplayPage({ tableId }) {
  const [steps, setSteps] = useState(null);
  const [i, setI] = useState(0);
  const [error, setError] = useState("");
  useEffect(() => {
    api
      .replay(tableId, store.token(tableId))
      .then((d) => {
        setSteps(d.steps);
        setI(Math.max(0, d.steps.length - 1));
      })
      .catch((e) => setError(e.message));
  }, [tableId]);
  const go = (k) => setI(Math.max(0, Math.min((steps?.length || 1) - 1, k)));
  useEffect(() => {
    const onKey = (ev) => {
      if (ev.target.closest?.("input, select, textarea")) return;
      if (ev.key === "ArrowRight") go(i + 1);
      else if (ev.key === "ArrowLeft") go(i - 1);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });
  let body;
  if (error) body = html`<p class="error">${t("replay.cannot", { message: error })}</p>`;
  else if (!steps) body = html`<p>${t("app.loading")}</p>`;
  else if (!steps.length) body = html`<p>${t("replay.empty")}</p>`;
  else body = html`<${Table} view=${steps[i]} tableId=${tableId} readOnly=${true} />`;
  const n = steps?.length || 0;
  return html`<div class="replay">
    <div class="panel replay-controls" role="toolbar" aria-label=${t("replay.title")}>
      <strong>${t("replay.title")}</strong>
      <button id="replay-first" onClick=${() => go(0)} disabled=${i === 0}><span aria-hidden="true">«</span> ${t("replay.first")}</button>
      <button id="replay-prev" onClick=${() => go(i - 1)} disabled=${i === 0}><span aria-hidden="true">‹</span> ${t("replay.prev")}</button>
      <button id="replay-next" onClick=${() => go(i + 1)} disabled=${i >= n - 1}>${t("replay.next")} <span aria-hidden="true">›</span></button>
      <button id="replay-last" onClick=${() => go(n - 1)} disabled=${i >= n - 1}>${t("replay.last")} <span aria-hidden="true">»</span></button>
      <input type="range" id="replay-slider" aria-label=${t("replay.slider")} min="0" max=${Math.max(0, n - 1)} value=${i} onInput=${(e) => go(Number(e.target.value))} />
      <span id="replay-step" role="status">${t("replay.step", { i: i + 1, n })}</span>
      <a href=${`#/t/${tableId}`}>${t("replay.back")}</a>
    </div>
    ${body}
  </div>`;
}

// ---------------------------------------------------------------- the app

function App() {
  const [, setLang] = useState(language());
  useEffect(() => onLanguage(setLang), []);
  // a new deck or table colour redraws every card (theme.js)
  const [, setLook] = useState(0);
  useEffect(() => onTheme(() => setLook((n) => n + 1)), []);
  const hash = useHash();
  let m;
  let page;
  if ((m = hash.match(/^#\/t\/([a-z0-9]+)/))) page = html`<${TablePage} key=${hash} tableId=${m[1]} watch=${hash.includes("?watch")} />`;
  else if ((m = hash.match(/^#\/r\/([a-z0-9]+)/))) page = html`<${ReplayPage} key=${hash} tableId=${m[1]} />`;
  else if ((m = hash.match(/^#\/u\/([A-Za-z0-9_%-]{1,64})$/))) page = html`<${Profile} key=${hash} name=${decodeURIComponent(m[1])} />`;
  else if ((m = hash.match(/^#\/tournaments(?:\/([a-z0-9]{1,24}))?$/))) page = html`<${Tournaments} key=${hash} id=${m[1] || null} />`;
  else if (hash === "#/friends") page = html`<${Friends} key=${hash} />`;
  else if (hash === "#/admin") page = html`<${Admin} key=${hash} />`;
  else page = html`<${Lobby} />`;
  const atTable = /^#\/[tr]\//.test(hash);
  const current = atTable ? undefined : hash.startsWith("#/tournaments") ? "nav-tournaments" : hash === "#/friends" ? "nav-friends" : "back-to-lobby";
  return html`<${Header} inApp=${true} atTable=${atTable} current=${current} /><main id="app">${atTable ? null : html`<${ModLink} />`}${page}</main>`;
}

initI18n().then(() => {
  document.title = t("app.title");
  const root = /** @type {HTMLElement} */ (document.getElementById("root"));
  root.replaceChildren();
  render(html`<${App} />`, root);
});
