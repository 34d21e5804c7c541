// The table view: seats, pile, your hand with legal cards, actions, log, score.
// It only ever renders the view the server built for this viewer.
import { SUIT_SYMBOLS } from "./api.js";
import { h } from "./dom.js";

const LETTERS = "ABCD";

function suitText(suits) {
  return [...suits].map((s) => SUIT_SYMBOLS[s] || s).join("");
}

function cardImg(card, extra = {}) {
  const sym = card.slice(0, -1) + SUIT_SYMBOLS[card.slice(-1)];
  return h("img", { src: `/cards/${card}.svg`, alt: sym, title: sym, draggable: "false", ...extra });
}

function parseLegal(legal) {
  const leads = new Set();
  const beats = new Map(); // beat card -> Set of lead cards ("" for a last-card beat)
  let pickup = false;
  for (const m of legal) {
    const w = m.split(" ");
    if (w[0] === "pickup") pickup = true;
    else if (w[0] === "lead") leads.add(w[1]);
    else if (w[0] === "beat") {
      if (!beats.has(w[1])) beats.set(w[1], new Set());
      beats.get(w[1]).add(w.length === 4 ? w[3] : "");
    }
  }
  return { leads, beats, pickup };
}

export function renderTable(container, { tableId, onSend = () => {}, readOnly = false }) {
  let view = null;
  let selectedBeat = null;
  let showPile = false;
  let hint = null;
  let hintRating = null;
  let flash = "";
  let conn = "connecting";
  let ticker = null;
  let deadlineAt = null;

  const root = h("div", { class: "table", id: "table" });
  container.replaceChildren(root);

  function send(move) {
    selectedBeat = null;
    hint = null;
    onSend({ type: "move", move, version: view.version });
  }

  function seatName(i) {
    const s = view.seats[i];
    return `${s.letter} ${s.name}`;
  }

  function clickCard(card) {
    if (readOnly || !view.hand) return;
    const { leads, beats } = parseLegal(view.hand.legal);
    if (selectedBeat) {
      if (card === selectedBeat) {
        selectedBeat = null;
      } else if (beats.get(selectedBeat)?.has(card)) {
        send(`beat ${selectedBeat} lead ${card}`);
        return;
      }
    } else if (leads.has(card)) {
      send(`lead ${card}`);
      return;
    } else if (beats.has(card)) {
      const set = beats.get(card);
      if (set.has("") && set.size === 1) {
        send(`beat ${card}`);
        return;
      }
      selectedBeat = card;
    }
    draw();
  }

  function seatsPanel() {
    const hand = view.hand;
    return h(
      "div",
      { class: "seats" },
      view.seats
        .filter((s) => s.seat !== view.viewer)
        .map((s) => {
          const toAct = hand && hand.to_act === s.seat;
          const backs = Math.min(s.hand_size, 12);
          return h(
            "div",
            {
              class: `seat${toAct ? " to-act" : ""}${s.out ? " out" : ""}`,
              "data-seat": s.letter,
            },
            h(
              "div",
              { class: "seat-head" },
              h("strong", {}, `${s.letter} `),
              h("span", { class: "seat-name" }, s.name),
              s.kind === "bot" ? h("span", { class: "tag" }, "bot") : null,
              s.kind === "human" && s.taken && !s.connected ? h("span", { class: "tag warn" }, s.standin ? "away: bot plays" : "away") : null,
              !s.taken ? h("span", { class: "tag" }, "free seat") : null,
            ),
            h(
              "div",
              { class: "seat-info" },
              h("span", { class: "trumps", title: "own trump suit(s)" }, `trumps ${suitText(s.suits) || "-"}`),
              h("span", { class: "count", "data-count": String(s.hand_size) }, ` · ${s.hand_size} card${s.hand_size === 1 ? "" : "s"}`),
              s.out ? h("span", { class: "tag good" }, `out (${s.out})`) : null,
            ),
            h("div", { class: "backs" }, Array.from({ length: backs }, () => h("img", { src: "/cards/back.svg", alt: "" }))),
            s.known.length ? h("div", { class: "known small" }, "known: ", s.known.map((c) => cardImg(c, { class: "mini" }))) : null,
            view.hand?.open_hands ? h("div", { class: "known" }, view.hand.open_hands[s.seat].map((c) => cardImg(c, { class: "mini" }))) : null,
          );
        }),
    );
  }

  function centre() {
    const hand = view.hand;
    if (!hand) {
      const free = view.seats.filter((s) => !s.taken).length;
      return h("div", { class: "centre panel" }, free ? `Waiting for ${free} more player${free > 1 ? "s" : ""}…` : "Dealing…");
    }
    const turn = hand.to_act === null ? null : hand.to_act;
    const mine = turn !== null && turn === view.viewer;
    let status;
    if (hand.result) status = `Hand ${hand.number} over: ${hand.result.text}`;
    else if (mine) status = hand.mode === "free" ? "Your turn: lead any card" : "Your turn: beat the top card, then lead, or pick up";
    else status = `${seatName(turn)} to play${hand.mode === "free" ? " (free lead)" : ""}`;
    let clock = null;
    if (hand.deadline_s !== null && hand.deadline_s !== undefined && !readOnly) {
      clock = h("span", { class: "clock", id: "clock" });
    }
    const pile = hand.pile;
    const top = hand.top;
    const pileBox = h(
      "div",
      { class: "pile" },
      top ? cardImg(top, { class: "top-card", id: "top-card" }) : h("div", { class: "empty-pile" }, "empty pile"),
      h("div", { class: "pile-info" },
        h("div", {}, `pile: ${hand.pile_size} card${hand.pile_size === 1 ? "" : "s"}`),
        hand.pickup_count
          ? h("div", { id: "pickup-cost" }, `${mine ? "refusing" : `${LETTERS[turn]} refusing`} now takes ${hand.pickup_count}`)
          : null,
        hand.pile_size > 1 ? h("button", { id: "pile-toggle", onclick: () => { showPile = !showPile; draw(); } }, showPile ? "hide pile" : "show pile") : null,
      ),
    );
    return h(
      "div",
      { class: "centre panel" },
      h("div", { class: `status${mine ? " mine" : ""}`, id: "status" }, status, " ", clock),
      pileBox,
      showPile && pile.length
        ? h("div", { class: "whole-pile", id: "whole-pile" },
            !hand.pile_full ? h("span", { class: "muted small" }, "(only the visible part) ") : null,
            pile.map((c) => cardImg(c, { class: "mini" })))
        : null,
    );
  }

  function myHand() {
    const hand = view.hand;
    if (view.viewer === null || !hand) return null;
    const me = view.seats[view.viewer];
    const own = new Set([...me.suits]);
    const { leads, beats, pickup } = parseLegal(readOnly ? [] : hand.legal);
    let clickable;
    if (selectedBeat) clickable = new Set([...(beats.get(selectedBeat) || [])].filter((c) => c));
    else clickable = new Set([...leads, ...beats.keys()]);
    const cards = hand.hand.map((c) => {
      const cls = ["card"];
      if (own.has(c.slice(-1))) cls.push("trump");
      if (clickable.has(c)) cls.push("legal");
      if (c === selectedBeat) cls.push("selected");
      if (hint && hint.includes(c)) cls.push("hinted");
      return h(
        "button",
        { class: cls.join(" "), "data-card": c, disabled: !clickable.has(c) && c !== selectedBeat, onclick: () => clickCard(c), "aria-label": c },
        cardImg(c),
        own.has(c.slice(-1)) ? h("span", { class: "trump-mark", title: "your trump" }, "★") : null,
      );
    });
    const myTurn = hand.to_act === view.viewer && !hand.result;
    return h(
      "div",
      { class: "me panel" },
      h("div", { class: "seat-head" },
        h("strong", {}, `${me.letter} ${me.name} (you)`),
        h("span", { class: "trumps" }, ` · your trumps ${suitText(me.suits)}`),
        me.standin ? h("span", { class: "tag warn" }, "a bot played for you while away") : null),
      h("div", { class: "hand", id: "hand" }, cards),
      h(
        "div",
        { class: "actions row" },
        selectedBeat ? h("span", { class: "hint-text" }, `Beating with ${selectedBeat}: now choose the card to lead`) : null,
        selectedBeat ? h("button", { id: "cancel-btn", onclick: () => { selectedBeat = null; draw(); } }, "Cancel") : null,
        pickup && myTurn
          ? h("button", { id: "pickup-btn", class: "danger", onclick: () => send("pickup") }, `Pick up ${hand.pickup_count}`)
          : null,
        myTurn && !readOnly ? h("button", { id: "hint-btn", onclick: () => onSend({ type: "hint" }) }, "Hint") : null,
        hint ? h("span", { class: "hint-text", id: "hint-text" }, hintRating ? `Hint: ${hint} (${hintRating})` : `Hint: ${hint}`) : null,
      ),
    );
  }

  function logPanel() {
    const hand = view.hand;
    const items = [];
    if (hand) {
      if (!hand.log_start) for (const [card, from, to] of hand.transfers) items.push(h("li", { class: "muted" }, `${LETTERS[from]} hands ${card} to ${LETTERS[to]}`));
      for (const e of hand.log) {
        items.push(
          h("li", {},
            h("strong", {}, LETTERS[e.seat]), ` ${e.move}`,
            e.picked.length ? ` (${e.picked.join(" ")})` : "",
            e.by !== "player" ? h("span", { class: "muted small" }, ` [${e.by}]`) : null),
        );
      }
      if (hand.result) items.push(h("li", { class: "result" }, hand.result.text));
    }
    const list = h("ol", { class: "log", id: "log", start: String((hand?.log_start || 0) + 1) }, items);
    setTimeout(() => { list.scrollTop = list.scrollHeight; }, 0);
    return h("div", { class: "panel log-panel" }, h("h3", {}, `Turns${hand ? ` · hand ${hand.number}` : ""}`), list);
  }

  function scorePanel() {
    const s = view.session;
    const vals = s.mode === "losses" ? s.losses : s.points;
    return h(
      "div",
      { class: "panel score", id: "score" },
      h("h3", {}, `Session: ${s.mode === "losses" ? `first to ${s.target} losses is the durak` : `first to ${s.target} points wins`}`),
      h("table", {},
        h("tr", {}, view.seats.map((x) => h("th", {}, x.letter))),
        h("tr", {}, vals.map((v) => h("td", {}, String(v))))),
      h("div", { class: "small muted" }, s.hands.map((r, i) => `#${i + 1} ${r.text}`).join(" · ")),
    );
  }

  function banner() {
    const s = view.session;
    if (s.over) {
      const names = s.winners.map((w) => seatName(w)).join(", ");
      return h("div", { class: "banner over", id: "session-over" },
        h("strong", {}, "Session over. "),
        s.durak !== null ? `Durak: ${seatName(s.durak)}. ` : "",
        `Winner${s.winners.length > 1 ? "s" : ""}: ${names}.`,
        h("div", { class: "row" },
          h("a", { class: "button", href: `/api/tables/${tableId}/record${tokenQuery()}`, download: "", id: "download-record" }, "Download record"),
          h("a", { class: "button", href: `#/r/${tableId}`, id: "replay-link" }, "Replay"),
          h("a", { class: "button", href: "#/" }, "Lobby")));
    }
    if (view.hand?.result) {
      return h("div", { class: "banner", id: "hand-over" }, h("strong", {}, `Hand ${view.hand.number}: ${view.hand.result.text}. `), "The next hand starts shortly.");
    }
    return null;
  }

  function tokenQuery() {
    const t = view.viewer !== null ? localStorage.getItem(`sk.token.${tableId}`) : null;
    return t ? `?token=${encodeURIComponent(t)}` : "";
  }

  function header() {
    const invite = `${location.origin}/#/t/${tableId}`;
    return h(
      "div",
      { class: "table-head row" },
      h("strong", {}, view.title || `Table ${tableId}`),
      h("span", { class: `tag conn-${conn}`, id: "conn" }, conn),
      view.viewer === null ? h("span", { class: "tag" }, "spectator") : null,
      readOnly ? null : h("span", { class: "invite" },
        "Invite: ",
        h("input", { id: "invite-link", readonly: true, value: invite, onclick: (e) => e.target.select() }),
        h("button", { onclick: () => navigator.clipboard?.writeText(invite) }, "Copy")),
      h("a", { href: `#/r/${tableId}` }, "Replay"),
      h("a", { href: `/api/tables/${tableId}/record${tokenQuery()}`, download: "" }, "Record"),
    );
  }

  function tick() {
    const el = root.querySelector("#clock");
    if (!el || deadlineAt === null) return;
    const left = Math.max(0, Math.round((deadlineAt - Date.now()) / 1000));
    el.textContent = `⏱ ${left}s`;
  }

  function draw() {
    if (!view) {
      root.replaceChildren(
        conn === "refused"
          ? h("p", { class: "panel" }, "The server does not know this seat any more. ",
              h("a", { href: "#/", onclick: () => setTimeout(() => { location.hash = `#/t/${tableId}`; }, 0) }, "Open the table again"))
          : h("p", {}, "Connecting…"),
      );
      return;
    }
    const parts = [
      header(),
      flash ? h("div", { class: "flash", id: "flash" }, flash) : null,
      banner(),
      h("div", { class: "board" }, seatsPanel(), centre(), myHand()),
      h("div", { class: "side" }, scorePanel(), logPanel()),
    ];
    root.replaceChildren(...parts.filter(Boolean));
    tick();
  }

  if (!readOnly) ticker = setInterval(tick, 500);

  return {
    message(msg) {
      if (msg.type === "state") {
        const old = view;
        view = msg.view;
        if (!old || old.version !== view.version) {
          selectedBeat = null;
          hint = null;
          flash = "";
        }
        const d = view.hand?.deadline_s;
        deadlineAt = d === null || d === undefined ? null : Date.now() + d * 1000;
        draw();
      } else if (msg.type === "error") {
        flash = msg.message;
        draw();
      } else if (msg.type === "hint") {
        hint = msg.move;
        hintRating = msg.rating || null;
        draw();
      }
    },
    status(s) {
      conn = s;
      draw();
    },
    stop() {
      if (ticker) clearInterval(ticker);
    },
  };
}
