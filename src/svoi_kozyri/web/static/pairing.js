// @ts-check
// "Play with people" (issue 22 item 1): the seek form on the first screen, the
// wait (rating range, seconds waited, bots to come), and the list of players
// looking for a game right now.  The server pairs seekers (server/platform/
// pairing.py); this page makes the seek, polls it twice a second and, once it is
// seated, opens the table with the seek's secret as the seat token: the server
// seated us by that secret's hash, so nothing else has to travel.
import { request } from "./api.js";
import { html, useEffect, useRef, useState } from "./html.js";
import { t } from "./i18n.js";
import { callBack } from "./pwa.js";
import { store } from "./store.js";

/** @typedef {{id: string, state: string, name: string, players: number, rated: boolean, preset: string,
 *   rating: number, range: number | null, waited_s: number, wait_s: number | null, bots_in_s: number | null,
 *   table_id: string | null, seat: number | null}} SeekView */
/** @typedef {{id: string, name: string, account: boolean, rating: number, players: number, rated: boolean,
 *   preset: string, waited_s: number}} OpenSeek */
/** @typedef {{players: number, rated: boolean, preset: string, wait_s: number | null}} SeekChoice */

export const PRESETS = ["standard", "one_hand", "blind_trumps", "whole_pile", "besicovitch"];
const WAITS = [10, 20, 30, 60, 120];
const POLL_MS = 500;
const LIST_MS = 3000;

/** @param {string} preset */
export const presetName = (preset) => t(`pairing.preset.${preset}`);

/** The seek's options in words, e.g. "4 players · rated · one hand".
 * @param {{players: number, rated: boolean, preset: string}} s */
export function seekSummary(s) {
  return [t("lobby.playersN", { count: s.players }), t(s.rated ? "pairing.rated" : "pairing.casual"), presetName(s.preset)].join(" · ");
}

/** What the player reads while waiting.
 * @param {SeekView} s */
export function waitText(s) {
  const parts = [t("pairing.waited", { count: Math.floor(s.waited_s) })];
  parts.push(s.range === null ? t("pairing.rangeAny") : t("pairing.range", { low: Math.max(0, s.rating - s.range), high: s.rating + s.range }));
  if (s.bots_in_s !== null) parts.push(t("pairing.botsIn", { count: Math.ceil(s.bots_in_s) }));
  else parts.push(t("pairing.noBots"));
  return parts.join(" · ");
}

/** @param {string} id
 * @param {string} token */
const seekHeaders = (id, token) => ({ "X-Seek-Token": token });

/** The seek being waited on, in this tab (sessionStorage: a reload goes on waiting). */
const current = {
  get() {
    try {
      return JSON.parse(sessionStorage.getItem("sk.seek") || "null");
    } catch {
      return null;
    }
  },
  /** @param {{id: string, token: string} | null} v */
  set(v) {
    try {
      if (v) sessionStorage.setItem("sk.seek", JSON.stringify(v));
      else sessionStorage.removeItem("sk.seek");
    } catch {
      /* storage blocked: the seek lives as long as the page */
    }
  },
};

/** The seek form and the wait.
 * @param {{name: string, user: {username: string} | null, prefill: SeekChoice | null}} props */
export function PlayWithPeople({ name, user, prefill }) {
  const saved = store.settings().seek || {};
  const [players, setPlayers] = useState(saved.players || 4);
  const [rated, setRated] = useState(!!(user && saved.rated));
  const [preset, setPreset] = useState(saved.preset || "standard");
  const [wait, setWait] = useState(saved.wait === undefined ? "30" : String(saved.wait));
  const [seek, setSeek] = useState(/** @type {SeekView | null} */ (null));
  const [error, setError] = useState("");
  const held = useRef(/** @type {{id: string, token: string} | null} */ (current.get()));

  // a listed seek's "Play" fills the form and starts at once
  useEffect(() => {
    if (!prefill) return;
    setPlayers(prefill.players);
    setRated(prefill.rated && !!user);
    setPreset(prefill.preset);
    start({ ...prefill, rated: prefill.rated && !!user, wait_s: wait === "" ? null : Number(wait) });
  }, [prefill]);

  // poll the seek while there is one
  useEffect(() => {
    let stopped = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const poll = async () => {
      const h = held.current;
      if (!h || stopped) return;
      try {
        /** @type {SeekView} */
        const v = await request("GET", `/api/seeks/${h.id}`, undefined, seekHeaders(h.id, h.token));
        // stopped, or cancelled (or replaced) while the answer was on its way: not ours to show
        if (stopped || held.current !== h) return;
        if (v.state === "seated" && v.table_id) {
          current.set(null);
          held.current = null;
          store.setToken(v.table_id, h.token);
          location.hash = `#/t/${v.table_id}`;
          callBack({ headline: t("pairing.found"), title: t("pairing.found"), body: t("pairing.foundBody"), tag: "sk-table-found" });
          return;
        }
        if (v.state !== "open" && v.state !== "claimed") {
          current.set(null);
          held.current = null;
          setSeek(null);
          if (v.state === "expired") setError(t("pairing.expired"));
          return;
        }
        setSeek(v);
      } catch (e) {
        if (stopped || held.current !== h) return;
        current.set(null);
        held.current = null;
        setSeek(null);
        setError(/** @type {Error} */ (e).message);
        return;
      }
      timer = setTimeout(poll, POLL_MS);
    };
    if (held.current) poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [seek?.id]);

  /** @param {SeekChoice} choice */
  const start = async (choice) => {
    setError("");
    const who = (user ? user.username : name.trim()) || t("lobby.guest");
    store.setName(who);
    store.setSettings({ ...store.settings(), seek: { players: choice.players, rated: choice.rated, preset: choice.preset, wait: choice.wait_s ?? "" } });
    try {
      const made = await request("POST", "/api/seeks", { name: who, ...choice });
      held.current = { id: made.seek.id, token: made.token };
      current.set(held.current);
      setSeek(made.seek);
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  };
  const submit = (/** @type {Event} */ ev) => {
    ev.preventDefault();
    start({ players: preset === "besicovitch" ? 2 : players, rated, preset, wait_s: wait === "" ? null : Number(wait) });
  };
  const cancel = async () => {
    const h = held.current;
    held.current = null;
    current.set(null);
    setSeek(null);
    if (h) await request("DELETE", `/api/seeks/${h.id}`, undefined, seekHeaders(h.id, h.token)).catch(() => {});
  };

  if (seek) {
    return html`<div class="seek-wait" id="seek-wait" role="status" aria-live="polite">
      <p class="seek-title"><span class="spinner" aria-hidden="true"></span> <strong>${t("pairing.looking")}</strong></p>
      <p class="small" id="seek-summary">${seekSummary(seek)}</p>
      <p class="small muted" id="seek-status">${waitText(seek)}</p>
      <button type="button" id="seek-cancel" onClick=${cancel}>${t("pairing.cancel")}</button>
    </div>`;
  }
  const n = preset === "besicovitch" ? 2 : players;
  return html`<form id="seek-form" class="seek-form" onSubmit=${submit}>
    <label class="field" for="seek-players">${t("lobby.players")}
      <select id="seek-players" disabled=${preset === "besicovitch"} onChange=${(/** @type {any} */ e) => setPlayers(Number(e.target.value))}>
        ${[2, 3, 4].map((k) => html`<option value=${k} selected=${k === n}>${t("lobby.playersN", { count: k })}</option>`)}
      </select></label>
    <label class="field" for="seek-preset">${t("pairing.preset")}
      <select id="seek-preset" onChange=${(/** @type {any} */ e) => setPreset(e.target.value)}>
        ${PRESETS.map((p) => html`<option value=${p} selected=${p === preset}>${presetName(p)}</option>`)}
      </select></label>
    <label class="field" for="seek-wait-s">${t("pairing.waitFor")}
      <select id="seek-wait-s" onChange=${(/** @type {any} */ e) => setWait(e.target.value)}>
        ${WAITS.map((w) => html`<option value=${w} selected=${String(w) === wait}>${t("pairing.botsAfter", { count: w })}</option>`)}
        <option value="" selected=${wait === ""}>${t("pairing.botsNever")}</option>
      </select></label>
    <label class="check" for="seek-rated" title=${user ? "" : t("pairing.ratedNeedsAccount")}>
      <input id="seek-rated" type="checkbox" checked=${rated} disabled=${!user} onChange=${(/** @type {any} */ e) => setRated(e.target.checked)} />
      ${t("pairing.ratedGame")}${user ? "" : html` <span class="small muted">(${t("pairing.ratedNeedsAccount")})</span>`}
    </label>
    ${error ? html`<p class="error" id="seek-error" role="alert">${error}</p>` : null}
    <button type="submit" id="seek-start" class="primary">${t("pairing.find")}</button>
  </form>`;
}

/** Players looking for a game now; "Play" seeks the same game.
 * @param {{onPlay: (choice: {players: number, rated: boolean, preset: string}) => void}} props */
export function OpenSeeks({ onPlay }) {
  const [seeks, setSeeks] = useState(/** @type {OpenSeek[] | null} */ (null));
  useEffect(() => {
    let stopped = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const load = async () => {
      try {
        const d = await request("GET", "/api/seeks");
        if (!stopped) setSeeks(d.seeks);
      } catch {
        /* the list is a convenience: try again later */
      }
      if (!stopped) timer = setTimeout(load, LIST_MS);
    };
    load();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, []);
  const own = current.get()?.id;
  const shown = (seeks || []).filter((s) => s.id !== own);
  return html`<div class="open-seeks" id="open-seeks">
    <h3>${t("pairing.openSeeks")}</h3>
    ${seeks === null
      ? html`<p class="small muted">${t("app.loading")}</p>`
      : shown.length === 0
        ? html`<p class="small muted" id="open-seeks-empty">${t("pairing.noSeeks")}</p>`
        : html`<ul class="seek-list">
            ${shown.map(
              (s) => html`<li class="seek-item" data-seek=${s.id}>
                <span class="seek-who"><strong>${s.name}</strong> <span class="muted small">${s.account ? s.rating : t("pairing.guest")}</span></span>
                <span class="small">${seekSummary(s)}</span>
                <button type="button" class="seek-play" onClick=${() => onPlay({ players: s.players, rated: s.rated, preset: s.preset })}>${t("pairing.play")}</button>
              </li>`,
            )}
          </ul>`}
  </div>`;
}
