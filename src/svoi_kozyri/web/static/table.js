// @ts-check
// The card table: seats around a felt in play order (the viewer at the bottom),
// the pile in the middle with what a refusal takes, the viewer's fanned hand,
// the actions, the log and the score.  It only ever renders the view the
// server built for this viewer (docs/protocol.md: TableView).
import { api, downloadRecord } from "./api.js";
import { html, useEffect, useLayoutEffect, useRef, useState } from "./html.js";
import { language, t } from "./i18n.js";
import {
  LETTERS,
  SUIT_SYMBOLS,
  cardName,
  clickAction,
  describeHint,
  describeMove,
  handLayout,
  ROW_STEP,
  outOrder,
  parseLegal,
  pickupCards,
  playableCards,
  ratingText,
  resultText,
  seatDisplayName,
  seatPlaces,
  botName,
  shortName,
  sortHand,
} from "./cards.js";
import { fly, sound, sweep } from "./motion.js";
import { callBackToTurn } from "./pwa.js";
import { store } from "./store.js";
import { TableChat } from "./table-chat.js";
import { ReportButton } from "./report.js";
// cards in the chosen deck and corner letters (В Д К Т in Russian by default)
import { cardSrc } from "./theme.js";

function Suits({ suits }) {
  return html`<span class="suits">${[...suits].map(
    (s) => html`<span class=${"suit" + ("HD".includes(s) ? " red" : "")} aria-label=${t(`card.suit.${s}`)}>${SUIT_SYMBOLS[s]}</span>`,
  )}</span>`;
}

function MiniCard({ card, cls = "", label }) {
  return html`<img class=${"mini " + cls} src=${cardSrc(card)} alt=${label || cardName(card, t)} title=${shortName(card, t)} draggable="false" />`;
}

function names(view) {
  return view.seats.map((s) => seatDisplayName(s, view.viewer, t));
}

// ---------------------------------------------------------------- seats

function Clock({ deadlineAt, total }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(id);
  }, []);
  const left = Math.max(0, (deadlineAt - now) / 1000);
  const frac = total ? Math.min(1, left / total) : 1;
  return html`<span class=${"clock" + (left < 10 ? " low" : "")} id="clock" role="timer" aria-label=${t("table.timeLeft", { count: Math.ceil(left) })}>
    <svg viewBox="0 0 36 36" aria-hidden="true"><circle cx="18" cy="18" r="15" class="track" /><circle cx="18" cy="18" r="15" class="arc" style=${`stroke-dasharray:${(frac * 94.2).toFixed(1)} 94.2`} /></svg>
    <span>${t("table.seconds", { count: Math.ceil(left) })}</span>
  </span>`;
}

function Seat({ view, seat, place, clock }) {
  const s = view.seats[seat];
  const hand = view.hand;
  const acting = hand && !hand.result && hand.to_act === seat;
  const backs = Math.min(s.hand_size, 10);
  const open = hand?.open_hands?.[seat];
  const label = `${seatDisplayName(s, view.viewer, t)}, ${t("table.cards", { count: s.hand_size })}`;
  const status = [];
  if (s.kind === "bot") status.push(html`<span class="tag">${t("table.botLevel", { bot: botName(s.bot, t) })}</span>`);
  if (s.kind === "human" && s.taken && !s.connected)
    status.push(html`<span class="tag warn">${s.standin ? t("table.awayBot") : t("table.away")}</span>`);
  if (s.out) status.push(html`<span class="tag good">${t(`table.out.${s.out}`)}</span>`);
  return html`<section class=${`seat place-${place}${acting ? " to-act" : ""}${s.out ? " out" : ""}`} data-seat=${s.letter} aria-label=${label}>
    <div class="seat-head">
      <span class="letter" aria-hidden="true">${s.letter}</span>
      <span class="seat-name">${s.kind === "bot" ? t("table.botSeat", { letter: s.letter }) : s.taken ? s.name : t("table.freeSeat")}</span>
      ${s.kind === "human" && s.taken && seat !== view.viewer && view.status !== "finished" ? html`<${ReportButton} tableId=${view.table_id} name=${s.name} seat=${seat} />` : null}
      <${Suits} suits=${s.suits} />
      ${acting && clock}
    </div>
    <div class="seat-tags">${status}</div>
    ${open
      ? html`<div class="open-hand">${open.map((c) => html`<${MiniCard} card=${c} />`)}</div>`
      : html`<div class="backs" aria-hidden="true" data-count=${s.hand_size}>
          ${Array.from({ length: backs }, (_, i) => html`<img src="/cards/back.svg" alt="" style=${`--i:${i};--n:${backs}`} />`)}
          <span class="count">${s.hand_size}</span>
        </div>`}
    ${s.known.length && !open
      ? html`<div class="known" aria-label=${t("table.known")}><span class="small">${t("table.known")}:</span> ${s.known.map((c) => html`<${MiniCard} card=${c} />`)}</div>`
      : null}
  </section>`;
}

// ---------------------------------------------------------------- the pile

/** From this many cards a pickup asks "are you sure?" first. */
export const CONFIRM_PICKUP = 6;

// The pickup button sits by the pile, next to what it takes, away from the hand
// where the thumb rests to play; a pickup of CONFIRM_PICKUP cards or more asks first.
function PickupButton({ view, send }) {
  const hand = view.hand;
  const [asking, setAsking] = useState(false);
  const yes = useRef(null);
  useEffect(() => setAsking(false), [view.version]);
  useLayoutEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  const count = hand.pickup_count;
  if (!asking)
    return html`<button id="pickup-btn" class="danger" aria-keyshortcuts="P" onClick=${() => (count >= CONFIRM_PICKUP ? setAsking(true) : send("pickup"))}>${t("table.pickup", { count })}</button>`;
  return html`<div class="pickup-ask" id="pickup-ask" role="group" aria-label=${t("table.pickupAsk", { count })}>
    <span>${t("table.pickupAsk", { count })}</span>
    <button id="pickup-confirm" class="danger" ref=${yes} onClick=${() => send("pickup")}>${t("table.pickupYes", { count })}</button>
    <button id="pickup-no" onClick=${() => setAsking(false)}>${t("table.pickupNo")}</button>
  </div>`;
}

function Pile({ view, readOnly, showPile, setShowPile, send }) {
  const hand = view.hand;
  const nm = names(view);
  const mine = !readOnly && hand.to_act === view.viewer && !hand.result;
  const depth = hand.pile_size;
  const take = hand.result ? [] : pickupCards(hand.pile, hand.pickup_count);
  const under = Math.min(depth - 1, 3);
  let cost = null;
  if (hand.pickup_count && !hand.result && hand.to_act !== null) {
    if (hand.to_act === view.viewer && take.length) {
      cost = html`<div id="pickup-cost" class="cost mine">
        <span>${take.length <= 6
          ? t("table.refusal", { count: take.length, cards: take.map((c) => shortName(c, t)).join(" ") })
          : t("table.refusalMany", { count: take.length })}</span>
        <span class="window">${hand.pile.slice(-(take.length + 1)).map((c, i, arr) =>
          html`<${MiniCard} card=${c} cls=${i === 0 && arr.length > take.length ? "below" : "taken"} />`,
        )}</span>
      </div>`;
    } else {
      cost = html`<div id="pickup-cost" class="cost">${t("table.refusalThem", { name: nm[hand.to_act], count: hand.pickup_count })}</div>`;
    }
  }
  return html`<div class="pile-area">
    <div class="pile-row">
    <div class="pile-side">${depth > 1
      ? html`<button class="linklike" id="pile-toggle" aria-expanded=${showPile} onClick=${() => setShowPile(!showPile)}>${showPile ? t("table.hidePile") : t("table.showPile")}</button>`
      : null}</div>
    <div class="pile" aria-label=${t("table.pileCount", { count: depth })}>
      ${Array.from({ length: Math.max(0, under) }, (_, i) => html`<img class="under" src="/cards/back.svg" alt="" style=${`--k:${under - i}`} />`)}
      ${hand.top
        ? html`<img class=${"top-card" + (mine ? " facing" : "")} id="top-card" src=${cardSrc(hand.top)} alt=${t("table.topCard", { card: cardName(hand.top, t) })} draggable="false" />`
        : html`<div class="empty-pile" id="top-card">${t("table.emptyPile")}</div>`}
      <span class="depth" title=${t("table.pileCount", { count: depth })}>${depth}</span>
    </div>
    <div class="pile-side pickup-side">${mine && parseLegal(hand.legal).pickup ? html`<${PickupButton} view=${view} send=${send} />` : null}</div>
    </div>
    ${cost}
    ${showPile && hand.pile.length
      ? html`<div class="whole-pile" id="whole-pile">
          ${!hand.pile_full ? html`<span class="small">(${t("table.onlyVisible")})</span>` : null}
          ${hand.pile.map((c) => html`<${MiniCard} card=${c} />`)}
        </div>`
      : null}
  </div>`;
}

function Status({ view, readOnly, selectedBeat, pending }) {
  const hand = view.hand;
  const nm = names(view);
  if (!hand) {
    const free = view.seats.filter((s) => !s.taken).length;
    return html`<div class="status" id="status">${free ? t("table.waiting", { count: free }) : t("table.dealing")}</div>`;
  }
  if (hand.result) return html`<div class="status" id="status">${resultText(hand.result, nm, view.viewer, t)}</div>`;
  const mine = !readOnly && hand.to_act === view.viewer;
  if (mine) {
    let detail;
    const { leads, beats } = parseLegal(hand.legal);
    if (hand.mode === "free") detail = t("table.leadAny");
    else if (selectedBeat && pending)
      detail = t("table.confirmTurn", { beat: shortName(selectedBeat, t), top: shortName(hand.top, t), lead: shortName(pending, t) });
    else if (selectedBeat) detail = t("table.step2", { beat: shortName(selectedBeat, t), top: shortName(hand.top, t) });
    // nothing beats the top card (and nothing may be led): say so, not "beat it or pick up"
    else if (!beats.size && !leads.size) detail = t("table.onlyPickup", { top: shortName(hand.top, t) });
    else detail = t("table.step1", { top: shortName(hand.top, t) });
    return html`<div class="status mine" id="status"><strong>${t("table.yourTurn")}</strong> <span id="step">${detail}</span></div>`;
  }
  const who = nm[hand.to_act];
  return html`<div class="status" id="status">${hand.mode === "free" ? t("table.theirLead", { name: who }) : t("table.theirTurn", { name: who })}</div>`;
}

// ---------------------------------------------------------------- your hand

/** A touch screen (a phone, a tablet): a mis-tap there is easy, so the second card
 * of a turn waits for a confirmation and the keyboard's hint is not shown. */
export function touchScreen() {
  return typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches;
}

// how many rows the hand may take before it scrolls sideways: as many as fit
// between the hand's top and the bottom of the screen (the whole turn stays on
// one screen), at most four on a phone; a wide screen, which scrolls easily and
// is played with a mouse, always allows two and at most three
function maxRows(room, cardWidth, phone) {
  const rows = Math.floor((room - 26 - Math.round(cardWidth * 1.4)) / ROW_STEP) + 1;
  return phone ? Math.max(1, Math.min(4, rows)) : Math.max(2, Math.min(3, rows));
}

function Hand({ view, readOnly, selectedBeat, pending, onCard, hint }) {
  const hand = view.hand;
  const me = view.seats[view.viewer];
  const box = useRef(null);
  const [width, setWidth] = useState(360);
  const [room, setRoom] = useState(400);
  const phone = typeof matchMedia === "function" && matchMedia("(max-width: 600px)").matches;
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setWidth(el.clientWidth || 360);
    measure();
    const ro = typeof ResizeObserver === "function" ? new ResizeObserver(measure) : null;
    ro?.observe(el);
    return () => ro?.disconnect();
  }, []);
  // the room below the actions row, just above the hand: the hand's own rows never
  // move it (the hand's own top does move: a sideways-scrolling hand is padded
  // differently, and measuring that made the layout flip back and forth)
  useLayoutEffect(() => {
    const el = box.current;
    const above = el?.previousElementSibling;
    if (!el || !above) return;
    const below = Math.floor(innerHeight - (above.getBoundingClientRect().bottom + scrollY) - 12);
    if (Math.abs(below - room) > 2) setRoom(below);
  });
  const myTurn = !readOnly && hand.to_act === view.viewer && !hand.result;
  const playable = myTurn ? playableCards(hand.legal, selectedBeat) : new Set();
  const { beats } = parseLegal(myTurn ? hand.legal : []);
  const cards = sortHand(hand.hand, me.suits);
  const own = new Set([...me.suits]);
  const m = handLayout(width, cards.length, phone ? 62 : 80, maxRows(room, phone ? 62 : 80, phone));
  const rows = [];
  let k = 0;
  for (const len of m.rows) {
    rows.push(cards.slice(k, k + len));
    k += len;
  }
  // a hand that scrolls sideways shows its first playable card when the turn comes
  useLayoutEffect(() => {
    const el = box.current;
    if (!el || !m.scroll || !myTurn) return;
    const first = el.querySelector(".card.legal");
    if (!first) return;
    const r = first.getBoundingClientRect();
    const b = el.getBoundingClientRect();
    if (r.left < b.left || r.right > b.right) el.scrollLeft += r.left - b.left - 8;
  }, [view.version, m.scroll]);
  return html`<div class=${"hand" + (m.scroll ? " scroll" : "")} id="hand" ref=${box} role="group" aria-label=${t("table.hand")} data-rows=${m.rows.length} style=${`--card-w:${m.w}px;--row-overlap:${m.overlap}px`}>
    ${rows.map(
      (row) => html`<div class="hand-row">
        ${row.map((c, i) => {
          const can = playable.has(c);
          const selected = c === selectedBeat;
          const waiting = c === pending;
          const cls = ["card"];
          if (own.has(c.slice(-1))) cls.push("trump");
          if (myTurn) cls.push(can || selected ? "legal" : "dim");
          if (selected) cls.push("selected");
          if (waiting) cls.push("pending");
          if (hint && hint.split(" ").includes(c)) cls.push("hinted");
          const parts = [cardName(c, t)];
          if (own.has(c.slice(-1))) parts.push(t("card.yourTrump"));
          if (selected) parts.push(t("card.selected"));
          else if (waiting) parts.push(t("card.pending"));
          else if (can) parts.push(t("card.playable"));
          return html`<button
            class=${cls.join(" ")}
            data-card=${c}
            data-beat=${beats.has(c) ? "1" : null}
            aria-label=${parts.join(", ")}
            aria-disabled=${myTurn && !can && !selected ? "true" : null}
            aria-pressed=${selected || waiting ? "true" : null}
            style=${i ? `margin-left:${(m.step - m.w).toFixed(1)}px` : ""}
            onClick=${() => onCard(c)}
          ><img src=${cardSrc(c)} alt="" draggable="false" />${own.has(c.slice(-1)) ? html`<span class="trump-mark" aria-hidden="true">★</span>` : null}</button>`;
        })}
      </div>`,
    )}
  </div>`;
}

function Actions({ view, readOnly, selectedBeat, pending, cancel, confirm, undo, hint, hintRating, askHint }) {
  const hand = view.hand;
  if (readOnly || view.viewer === null || !hand) return null;
  const myTurn = hand.to_act === view.viewer && !hand.result;
  return html`<div class="actions">
    ${pending ? html`<button id="confirm-btn" class="primary" onClick=${confirm}>${t("table.confirm", { lead: shortName(pending, t) })}</button>` : null}
    ${pending ? html`<button id="undo-btn" onClick=${undo}>${t("table.undo")}</button>` : null}
    ${selectedBeat && !pending ? html`<button id="cancel-btn" aria-keyshortcuts="Escape" onClick=${cancel}>${t("table.cancel")}</button>` : null}
    ${myTurn && !pending ? html`<button id="hint-btn" aria-keyshortcuts="H" onClick=${askHint}>${t("table.hint")}</button>` : null}
    ${hint ? html`<span class="hint-text" id="hint-text">${t("table.hintIs", { move: describeHint(hint, t) })}</span>` : null}
    ${hint && hintRating ? html`<span class=${`hint-rating small ${hintRating.kind}`} id="hint-rating" data-kind=${hintRating.kind} title=${t("table.hintRating")}>${ratingText(hintRating, t, language())}</span>` : null}
  </div>`;
}

// ---------------------------------------------------------------- log, score, banners

function Log({ view }) {
  const hand = view.hand;
  const list = useRef(null);
  useLayoutEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  });
  const nm = names(view);
  const items = [];
  if (hand) {
    if (!hand.log_start)
      for (const [card, from, to] of hand.transfers)
        items.push(html`<li class="muted"><span class="n"></span>${t("log.transfer", { from: nm[from], card: shortName(card, t), to: nm[to] })}</li>`);
    hand.log.forEach((e, i) => {
      items.push(html`<li data-move=${e.move}><span class="n">${hand.log_start + i + 1}</span><span class=${e.move === "pickup" ? "pickup" : ""}>${describeMove(e, nm[e.seat], t)}</span></li>`);
    });
    if (hand.result) items.push(html`<li class="result"><span class="n"></span>${resultText(hand.result, nm, view.viewer, t)}</li>`);
  }
  return html`<section class="panel log-panel" aria-label=${t("table.turns")}>
    <h2>${t("table.turns")}${hand ? ` · ${t("table.handNo", { n: hand.number })}` : ""}</h2>
    <ol class="log" id="log" ref=${list} tabindex="0" aria-label=${t("table.turns")}>${items}</ol>
  </section>`;
}

function Score({ view }) {
  const s = view.session;
  const vals = s.mode === "losses" ? s.losses : s.points;
  const nm = names(view);
  return html`<section class="panel score" id="score" aria-label=${t("table.score")}>
    <h2>${t("table.score")}</h2>
    <p class="small">${t(s.mode === "losses" ? "score.losses" : "score.points", { count: s.target })}</p>
    <table>
      <tr>${view.seats.map((x) => html`<th scope="col">${nm[x.seat]}</th>`)}</tr>
      <tr>${vals.map((v) => html`<td>${v}</td>`)}</tr>
    </table>
  </section>`;
}

function Countdown({ seconds }) {
  const [left, setLeft] = useState(Math.ceil(seconds));
  useEffect(() => {
    const start = Date.now();
    const id = setInterval(() => setLeft(Math.max(0, Math.ceil(seconds - (Date.now() - start) / 1000))), 250);
    return () => clearInterval(id);
  }, [seconds]);
  return html`<span id="countdown">${left > 0 ? t("banner.nextIn", { count: left }) : t("banner.nextSoon")}</span>`;
}

// "Play again": the next session with the same seats and bots (POST .../rematch);
// the first player to ask creates it, the others' taps seat them at it.  Only the
// table's players have the button: the server answers a spectator bad_token.
function RematchButton({ tableId, token }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    setError("");
    try {
      const grant = await api.rematch(tableId, token);
      store.setToken(grant.table_id, grant.token);
      location.hash = `#/t/${grant.table_id}`;
    } catch (e) {
      setError(e.message); // worded from the catalogue by api.js
      setBusy(false);
    }
  };
  return html`<button type="button" class="primary" id="rematch-btn" disabled=${busy} onClick=${go}>${t("banner.playAgain")}</button>
    ${error ? html`<p class="error" role="alert" id="rematch-error">${error}</p>` : null}`;
}

// A tournament's game is one hand: at its end the entrant goes back to the
// tournament page, which pairs them again (an arena pairs only entrants who are
// looking at it), after a few seconds to read the result, or at once on the button.
const BACK_TO_TOURNAMENT_S = 6;
function BackToTournament({ tournament }) {
  useEffect(() => {
    const timer = setTimeout(() => {
      location.hash = `#/tournaments/${tournament}`;
    }, BACK_TO_TOURNAMENT_S * 1000);
    return () => clearTimeout(timer);
  }, [tournament]);
  return html`<a class="button primary" id="back-to-tournament" href=${`#/tournaments/${tournament}`}>${t("banner.backToTournament")}</a>
    <span class="small">${t("banner.backToTournamentSoon", { count: BACK_TO_TOURNAMENT_S })}</span>`;
}

function Banner({ view, tableId, readOnly, token }) {
  const s = view.session;
  const hand = view.hand;
  if (view.closed)
    return html`<div class="banner over" id="table-closed" role="status"><strong>${t("mod.tableClosed")}</strong>
      <div class="row"><a class="button" href="#/">${t("table.lobby")}</a></div></div>`;
  const nm = names(view);
  const order = hand ? outOrder(hand, view.seats.length) : null;
  const orderList = order
    ? html`<div class="order"><span class="small">${t("banner.order")}:</span>
        <ol>${order.order.map((seat) => html`<li>${nm[seat]}</li>`)}
          ${order.rest.map((seat) => html`<li class="holding">${nm[seat]} · ${t("banner.stillHolding")}</li>`)}</ol></div>`
    : null;
  if (s.over) {
    const you = view.viewer;
    const tournament = store.tournamentOf(tableId);
    const won = you !== null && s.winners.includes(you);
    return html`<div class="banner over" id="session-over" role="status">
      <strong>${t("banner.sessionOver")}</strong>
      ${won ? html`<div class="big">${t("banner.youWin")}</div>` : null}
      ${s.durak !== null ? html`<div>${s.durak === you ? t("banner.durakYou") : t("banner.durak", { name: nm[s.durak] })}</div>` : null}
      <div>${t("banner.winners", { count: s.winners.length, names: s.winners.map((w) => nm[w]).join(", ") })}</div>
      ${hand?.result ? html`<div>${resultText(hand.result, nm, you, t)}</div>` : null}
      ${orderList}
      <div class="row">
        ${!readOnly && token && view.viewer !== null
          ? tournament
            ? html`<${BackToTournament} tournament=${tournament} />`
            : html`<${RematchButton} tableId=${tableId} token=${token} />`
          : null}
        <button type="button" id="download-record" onClick=${() => downloadRecord(tableId, token)}>${t("table.record")}</button>
        <a class="button" href=${`#/r/${tableId}`} id="replay-link">${t("table.replay")}</a>
        <a class="button" href=${`/session?table=${tableId}`} id="session-link">${t("session.title")}</a>
        ${hand?.result ? html`<a class="button" href=${`/analysis?table=${tableId}&hand=${hand.number}`} id="analysis-link">${t("analysis.title")}</a>` : null}
        <a class="button" href="#/">${t("table.lobby")}</a>
      </div>
    </div>`;
  }
  if (hand?.result) {
    return html`<div class="banner" id="hand-over" role="status">
      <strong>${t("banner.handOver", { n: hand.number })}</strong>
      <div class="big">${resultText(hand.result, nm, view.viewer, t)}</div>
      ${orderList}
      <div class="small" id="banner-score">${t("table.score")}: ${view.seats.map((x) => `${nm[x.seat]} ${(s.mode === "losses" ? s.losses : s.points)[x.seat]}`).join(" · ")}</div>
      ${readOnly ? null : html`<div class="small">${view.hand_pause_s ? html`<${Countdown} seconds=${view.hand_pause_s} />` : t("banner.nextSoon")}</div>`}
      <div class="row"><a class="button" href=${`/analysis?table=${tableId}&hand=${hand.number}`} id="analysis-link" target="_blank" rel="noopener">${t("analysis.title")}</a></div>
    </div>`;
  }
  return null;
}

function InvitePanel({ tableId, inline }) {
  const invite = `${location.origin}/#/t/${tableId}`;
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(invite);
    } catch {
      /** @type {HTMLInputElement | null} */ (document.getElementById("invite-link"))?.select();
      document.execCommand?.("copy");
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return html`<div class=${"invite" + (inline ? " inline" : "")} id="invite-panel">
    <label for="invite-link">${t("table.inviteLabel")}</label>
    <textarea id="invite-link" readonly rows="2" onFocus=${(e) => e.target.select()}>${invite}</textarea>
    <button id="copy-invite" onClick=${copy}>${copied ? t("table.copied") : t("table.copy")}</button>
  </div>`;
}

function TableHead({ view, tableId, conn, readOnly, token, chat }) {
  const [open, setOpen] = useState(false);
  const host = view.seats.find((s) => s.kind === "human" && s.taken);
  const title = view.title || (host ? t("lobby.tableOf", { name: host.name }) : tableId);
  const waiting = view.seats.some((s) => !s.taken);
  return html`<div class="table-head">
    <h1 class="table-title">${title}</h1>
    ${readOnly ? null : html`<span class=${`tag conn-${conn}`} id="conn">${t(`table.conn.${conn}`)}</span>`}
    ${view.viewer === null ? html`<span class="tag" id="spectator">${t("table.spectator")}</span>` : null}
    ${view.hand ? html`<span class="tag">${t("table.handNo", { n: view.hand.number })}</span>` : null}
    <span class="grow"></span>
    ${readOnly || waiting ? null : html`<button class="small-btn" id="invite-btn" aria-expanded=${open} onClick=${() => setOpen(!open)}>${t("table.invite")}</button>`}
    ${readOnly ? null : html`<a class="small-btn" href=${`#/r/${tableId}`}>${t("table.replay")}</a>`}
    ${readOnly ? null : html`<button type="button" class="small-btn" onClick=${() => downloadRecord(tableId, token)}>${t("table.record")}</button>`}
    ${chat && !readOnly && view.viewer !== null ? html`<${TableChat} view=${view} conn=${conn} chat=${chat} />` : null}
    ${open && !waiting ? html`<${InvitePanel} tableId=${tableId} />` : null}
  </div>`;
}

// ---------------------------------------------------------------- motion of a new state

function announceText(prev, view) {
  // what changed between two views of the same hand, for the live region and the motion
  /** @type {{entries: any[], outs: number[]}} */
  const out = { entries: [], outs: [] };
  if (!prev?.hand || !view.hand || prev.hand.number !== view.hand.number) return out;
  const before = prev.hand.log_start + prev.hand.log.length;
  const after = view.hand.log_start + view.hand.log.length;
  for (let i = Math.max(before, after - 3); i < after; i++) {
    const e = view.hand.log[i - view.hand.log_start];
    if (e) out.entries.push(e);
  }
  out.outs = view.hand.out_order.filter((s) => !prev.hand.out_order.includes(s));
  return out;
}

function useMotion(view, root, readOnly) {
  const prev = useRef(null);
  const [announce, setAnnounce] = useState("");
  useLayoutEffect(() => {
    const old = prev.current;
    prev.current = view;
    if (!old || readOnly || !root.current) return;
    const { entries, outs } = announceText(old, view);
    const nm = names(view);
    const seatBox = (seat) =>
      seat === view.viewer
        ? root.current.querySelector("#hand")?.getBoundingClientRect()
        : root.current.querySelector(`[data-seat="${LETTERS[seat]}"]`)?.getBoundingClientRect();
    const top = root.current.querySelector("#top-card");
    const msgs = [];
    entries.forEach((e, k) => {
      const w = e.move.split(" ");
      const from = seatBox(e.seat);
      if (w[0] === "pickup") {
        const pile = root.current.querySelector(".pile");
        sweep(e.picked.length ? e.picked.map(cardSrc) : ["/cards/back.svg"], pile, from);
        msgs.push(t("announce.pickup", { name: nm[e.seat], count: e.picked.length }));
        sound("pickup");
      } else {
        const last = w[w.length - 1];
        if (k === entries.length - 1 && top && view.hand.top === last) fly(cardSrc(last), from, top);
        sound("card");
      }
    });
    for (const s of outs) {
      msgs.push(s === view.viewer ? t("announce.youOut") : t("announce.out", { name: nm[s] }));
      sound("out");
    }
    const mine = view.hand && !view.hand.result && view.hand.to_act === view.viewer;
    const wasMine = old.hand && !old.hand.result && old.hand.to_act === old.viewer;
    if (mine && !wasMine) {
      msgs.push(t("announce.yourTurn"));
      sound("turn");
      callBackToTurn(); // a hidden tab: its title, its icon, a notification (pwa.js)
    }
    if (msgs.length) setAnnounce(msgs.join(" · "));
  }, [view]);
  return announce;
}

// Announcements (pickups, going out, your turn) shown over the felt for a moment
// and read by screen readers from the same live region.
function Toast({ text }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!text) return undefined;
    setShown(true);
    const id = setTimeout(() => setShown(false), 2200);
    return () => clearTimeout(id);
  }, [text]);
  return html`<div class=${"toast" + (shown && text ? " shown" : "")} aria-live="polite" id="announce">${text}</div>`;
}

// ---------------------------------------------------------------- the table

/** The whole table for one view. `send(msg)` sends a client message; `readOnly`
 * for replays (no clocks, no actions, no connection state). */
export function Table({ view, tableId, conn = "connected", send = /** @type {(msg: any) => void} */ (() => {}), readOnly = false, flash = "", hint = null, hintRating = null, clearHint = () => {}, chat = null }) {
  const [selectedBeat, setSelectedBeatNow] = useState(null);
  // the second card of a two-card turn on a touch screen: shown, not yet sent
  const [pending, setPending] = useState(null);
  const [showPile, setShowPile] = useState(false);
  const root = useRef(null);
  const version = view.version;
  const setSelectedBeat = (card) => {
    setSelectedBeatNow(card);
    setPending(null);
  };
  useEffect(() => setSelectedBeat(null), [version]);
  const announce = useMotion(view, root, readOnly);
  const hand = view.hand;
  const myTurn = !readOnly && hand && hand.to_act === view.viewer && !hand.result && view.viewer !== null;
  const token = view.viewer !== null ? store.token(tableId) : null;

  const play = (move) => {
    setSelectedBeat(null);
    clearHint();
    send({ type: "move", move, version });
  };
  const onCard = (card) => {
    if (!myTurn) return;
    const act = clickAction(card, hand.legal, selectedBeat);
    if (!act) return;
    // on a touch screen the lead after a beat is held until it is confirmed (a
    // second tap on it, or Confirm): a mis-tap then costs nothing
    if (act.send && selectedBeat && touchScreen() && pending !== card) setPending(card);
    else if (act.send) play(act.send);
    else setSelectedBeat(act.select);
  };
  const confirm = () => pending && selectedBeat && play(`beat ${selectedBeat} lead ${pending}`);

  // keyboard play: arrows move between cards, Enter/Space play (native buttons),
  // P picks up, H asks for a hint, Escape cancels the first card of a two-card turn
  useEffect(() => {
    if (readOnly) return;
    const onKey = (ev) => {
      if (ev.target.closest?.("input, textarea, select")) return;
      const cards = [...(root.current?.querySelectorAll("#hand .card") || [])];
      const live = cards.filter((c) => c.getAttribute("aria-disabled") !== "true");
      const at = cards.indexOf(document.activeElement);
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
        if (!cards.length) return;
        ev.preventDefault();
        const pool = live.length ? live : cards;
        let i = pool.indexOf(document.activeElement);
        if (i < 0) i = at < 0 ? (ev.key === "ArrowRight" ? -1 : pool.length) : pool.findIndex((c) => cards.indexOf(c) > at) - (ev.key === "ArrowRight" ? 1 : 0);
        const next = pool[(i + (ev.key === "ArrowRight" ? 1 : -1) + pool.length) % pool.length];
        next?.focus();
      } else if ((ev.key === "p" || ev.key === "P") && myTurn) {
        root.current?.querySelector("#pickup-btn")?.click();
      } else if ((ev.key === "h" || ev.key === "H") && myTurn) {
        root.current?.querySelector("#hint-btn")?.click();
      } else if (ev.key === "Escape" && pending) {
        setPending(null);
      } else if (ev.key === "Escape" && selectedBeat) {
        setSelectedBeat(null);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [readOnly, myTurn, selectedBeat, pending, version]);

  // after a beat is chosen, keep the keyboard in the hand on the first card to lead
  useEffect(() => {
    const active = document.activeElement;
    if (!root.current || !active?.closest?.("#hand")) return;
    const first = root.current.querySelector("#hand .card.legal:not(.selected)") || root.current.querySelector("#hand .card.legal");
    if (first && active.getAttribute("aria-disabled") === "true") first.focus();
    else if (first && !active.isConnected) first.focus();
  });

  const clock =
    hand && hand.deadline_s !== null && hand.deadline_s !== undefined && !readOnly
      ? html`<${Clock} deadlineAt=${view._receivedAt + hand.deadline_s * 1000} total=${view.turn_timer_s || view.grace_s} />`
      : null;
  const places = seatPlaces(view.seats.length, view.viewer);
  const waiting = view.seats.some((s) => !s.taken);
  const me = view.viewer !== null ? view.seats[view.viewer] : null;
  return html`<div class="table-page" id="table" ref=${root} data-players=${view.seats.length} data-version=${view.version}>
    <${TableHead} view=${view} tableId=${tableId} conn=${conn} readOnly=${readOnly} token=${token} chat=${chat} />
    ${flash ? html`<div class="flash" id="flash" role="alert">${flash}</div>` : null}
    <div class="felt" role="region" aria-label=${t("table.label")}>
      ${places
        .filter((p) => p.place !== "bottom" || view.viewer === null)
        .map((p) => html`<${Seat} view=${view} seat=${p.seat} place=${p.place} clock=${clock} />`)}
      <div class="centre">
        <${Status} view=${view} readOnly=${readOnly} selectedBeat=${selectedBeat} pending=${pending} />
        ${hand ? html`<${Pile} view=${view} readOnly=${readOnly} showPile=${showPile} setShowPile=${setShowPile} send=${play} />` : null}
        ${waiting && !readOnly ? html`<${InvitePanel} tableId=${tableId} inline=${true} />` : null}
      </div>
      <${Banner} view=${view} tableId=${tableId} readOnly=${readOnly} token=${token} />
      ${me && hand
        ? html`<div class=${"me" + (myTurn ? " to-act" : "")} data-seat=${me.letter}>
            <div class="me-head">
              <strong class="seat-name">${t("table.youName", { name: me.name })}</strong>
              <span class="small">${t("table.ownSuits")}</span> <${Suits} suits=${me.suits} />
              ${myTurn && clock}
              ${me.standin ? html`<span class="tag warn">${t("table.standinYou")}</span>` : null}
            </div>
            <${Actions} view=${view} readOnly=${readOnly} selectedBeat=${selectedBeat} pending=${pending} cancel=${() => setSelectedBeat(null)} confirm=${confirm} undo=${() => setPending(null)} hint=${hint} hintRating=${hintRating} askHint=${() => send({ type: "hint" })} />
            <${Hand} view=${view} readOnly=${readOnly} selectedBeat=${selectedBeat} pending=${pending} onCard=${onCard} hint=${hint} />
          </div>`
        : null}
      <${Toast} text=${announce} />
    </div>
    <div class="side">
      <${Score} view=${view} />
      <${Log} view=${view} />
      ${readOnly || view.viewer === null || touchScreen() ? null : html`<p class="small keys" id="keys-hint">${t("table.keys")}</p>`}
    </div>
  </div>`;
}
