// @ts-check
// Pure helpers of the table: cards, legal moves, seat layout, move and result
// texts.  No DOM and no globals, so the Node unit tests (tests/js) run them;
// texts go through the `t` function passed in.

export const SUITS = "SHDC";
export const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const RANKS = ["5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const LETTERS = "ABCD";

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const isRed = (card) => "HD".includes(suitOf(card));

/** "Q♠": the short form used inside sentences; with `t`, the court letters of the
 * language ("Д♠" in Russian), matching the corners of the cards. */
export function shortName(card, t) {
  const rank = rankOf(card);
  let shown = rank;
  if (t && "JQKA".includes(rank)) {
    const key = `card.short.${rank}`;
    const text = t(key);
    if (text !== key) shown = text;
  }
  return shown + SUIT_SYMBOLS[suitOf(card)];
}

/** "queen of spades" (in the current language), for screen readers. */
export function cardName(card, t) {
  return t("card.name", { rank: t(`card.rank.${rankOf(card)}`), suit: t(`card.suit.${suitOf(card)}`) });
}

/** The viewer's legal moves split for clicking: free leads, beats (with the
 * leads each allows, "" for a beat that is the last card) and whether a pickup is legal. */
export function parseLegal(legal) {
  const leads = new Set();
  const beats = new Map();
  let pickup = false;
  for (const m of legal || []) {
    const w = m.split(" ");
    if (w[0] === "pickup") pickup = true;
    else if (w[0] === "lead" && w.length === 2) leads.add(w[1]);
    else if (w[0] === "beat") {
      if (!beats.has(w[1])) beats.set(w[1], new Set());
      beats.get(w[1]).add(w.length === 4 ? w[3] : "");
    }
  }
  return { leads, beats, pickup };
}

/** What a click on `card` means given the legal moves and the beat chosen so far:
 * {send: move} to play, {select: card} to start a two-card turn, {select: null}
 * to cancel it, or null when the card cannot be played now. */
export function clickAction(card, legal, selectedBeat) {
  const { leads, beats } = parseLegal(legal);
  if (selectedBeat) {
    if (card === selectedBeat) return { select: null };
    if (beats.get(selectedBeat)?.has(card)) return { send: `beat ${selectedBeat} lead ${card}` };
    return null;
  }
  if (leads.has(card)) return { send: `lead ${card}` };
  if (beats.has(card)) {
    const set = beats.get(card);
    if (set.size === 1 && set.has("")) return { send: `beat ${card}` };
    return { select: card };
  }
  return null;
}

/** The cards that can be clicked now. */
export function playableCards(legal, selectedBeat) {
  const { leads, beats } = parseLegal(legal);
  if (selectedBeat) return new Set([...(beats.get(selectedBeat) || [])].filter(Boolean));
  return new Set([...leads, ...beats.keys()]);
}

/** The hand in display order: own trump suits together at the right end (so the
 * strongest cards are in one place), other suits grouped, low to high inside a suit. */
export function sortHand(cards, ownSuits) {
  const own = [...(ownSuits || "")];
  const suitKey = (s) => (own.includes(s) ? 10 + own.indexOf(s) : SUITS.indexOf(s));
  return [...cards].sort(
    (a, b) => suitKey(suitOf(a)) - suitKey(suitOf(b)) || RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)),
  );
}

/** The least a card of the hand shows of itself, in CSS px: a fingertip's target
 * (WCAG 2.5.5 asks 44x44).  Every card gets it, playable or not, so the fan does
 * not rearrange itself between the two steps of a turn. */
export const HIT = 46;
/** How far apart the rows of a hand of several rows sit, top to top (px): a card
 * of the row below, even lifted as the chosen beat (24 px) over a playable card
 * (lifted 12 px), leaves HIT px of the card above it. */
export const ROW_STEP = HIT + 12;

/** How the hand is laid out in a box `width` px wide: each card `cardWidth` wide,
 * at most `maxRows` rows, each card after the first of a row `step` px right of
 * the one before (never less than HIT, so a 36-card hand is as easy to hit as a
 * 9-card one).  `rows` holds the cards in each row; `overlap` is how far a row
 * reaches over the one above; when even `maxRows` rows are wider than the box,
 * `scroll` is true and the hand scrolls sideways instead of shrinking. */
export function handLayout(width, n, cardWidth, maxRows) {
  // a few px too wide for its rows: cards a tenth narrower (only the last of a
  // row shows whole) rather than a hand that scrolls for 3 px
  const full = layoutWith(width, n, cardWidth, maxRows);
  if (!full.scroll) return full;
  const narrow = layoutWith(width, n, Math.round(cardWidth * 0.9), maxRows);
  return narrow.scroll ? full : narrow;
}

function layoutWith(width, n, cardWidth, maxRows) {
  const w = cardWidth;
  const h = Math.round(w * 1.4);
  const room = Math.max(w, width - 8);
  if (n <= 1) return { w, step: w, rows: [n], overlap: 0, scroll: false };
  const perRowFits = Math.max(1, Math.floor((room - w) / HIT) + 1);
  const rows = Math.max(1, Math.min(maxRows, Math.ceil(n / perRowFits)));
  const counts = [];
  for (let left = n, r = rows; r > 0; r--) {
    const c = Math.ceil(left / r);
    counts.push(c);
    left -= c;
  }
  const widest = counts[0];
  const step = widest > 1 ? Math.max(HIT, Math.min(w + 6, (room - w) / (widest - 1))) : w;
  return {
    w,
    step,
    rows: counts,
    overlap: rows > 1 ? Math.max(0, h - ROW_STEP) : 0,
    scroll: w + (widest - 1) * step > room + 0.5,
  };
}

/** Where each seat sits around the table: the viewer (or seat 0 for a spectator)
 * at the bottom, the others in play order going clockwise (left, top, right). */
export function seatPlaces(n, viewer) {
  const bottom = viewer === null || viewer === undefined ? 0 : viewer;
  const ring = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] }[n];
  return Array.from({ length: n }, (_, k) => ({ seat: (bottom + k) % n, place: ring[k] }));
}

/** The cards a refusal takes now: the top `count` cards of the visible pile. */
export function pickupCards(pile, count) {
  if (!count || !pile?.length) return [];
  return pile.slice(-Math.min(count, pile.length));
}

/** A seat's display name: "you" for the viewer, the bot level for a bot. */
export function seatDisplayName(seat, viewer, t) {
  if (seat.kind === "bot") return t("table.botSeat", { letter: seat.letter });
  if (!seat.taken) return t("table.freeSeat");
  return seat.seat === viewer ? t("table.youName", { name: seat.name }) : seat.name;
}

/** A bot's level or name as shown ("medium", "средний"); unknown names as they are. */
export function botName(bot, t) {
  const key = `bot.${bot}`;
  const text = t(key);
  return text === key ? bot || "bot" : text;
}

/** One log entry as a sentence: "B beats with Q♠, leads 6♦". */
export function describeMove(entry, who, t) {
  const w = entry.move.split(" ");
  let text;
  if (w[0] === "lead") text = t("log.lead", { who, card: shortName(w[1], t) });
  else if (w[0] === "beat" && w.length === 4) text = t("log.beatLead", { who, beat: shortName(w[1], t), lead: shortName(w[3], t) });
  else if (w[0] === "beat") text = t("log.beatOut", { who, beat: shortName(w[1], t) });
  else
    text = t("log.pickup", {
      who,
      count: entry.picked.length,
      cards: entry.picked.map((c) => shortName(c, t)).join(" "),
    });
  if (entry.by && entry.by !== "player" && entry.by !== "bot") text += ` (${t(`log.by.${entry.by}`)})`;
  return text;
}

/** A suggested move as an instruction: "beat with 10♥, then lead Q♠". */
export function describeHint(move, t) {
  const w = move.split(" ");
  if (w[0] === "lead") return t("hint.lead", { card: shortName(w[1], t) });
  if (w[0] === "beat" && w.length === 4) return t("hint.beatLead", { beat: shortName(w[1], t), lead: shortName(w[3], t) });
  if (w[0] === "beat") return t("hint.beatOut", { beat: shortName(w[1], t) });
  return t("hint.pickup");
}

/** The result of a hand from the viewer's side: "You lose", "Ann loses", "Draw…". */
export function resultText(result, names, viewer, t) {
  if (!result) return "";
  if (result.loser === null || result.loser === undefined) {
    return t(
      { last_card: "result.drawLastCard", repetition: "result.drawRepetition", action_cap: "result.drawCap" }[result.reason] ||
        "result.draw",
    );
  }
  if (result.loser === viewer) return t("result.youLose");
  return t(result.reason === "action_cap" ? "result.losesCap" : "result.loses", { name: names[result.loser] });
}

/** The order in which seats went out, then the one(s) still holding cards. */
export function outOrder(hand, n) {
  const order = [...(hand?.out_order || [])];
  const rest = Array.from({ length: n }, (_, i) => i).filter((i) => !order.includes(i));
  return { order, rest };
}

/** A chance as a percentage in the language's own form ("62 %" in Russian).  For
 * an estimate (`estimate` true) never a bare 0 % or 100 %: the extremes read
 * "<1 %" and ">99 %", since sampling proves nothing. */
export function percentText(x, lang = "en", estimate = false) {
  const fmt = (v) => new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }).format(v);
  const v = Math.round(100 * x);
  if (estimate && v >= 100) return `>${fmt(0.99)}`;
  if (estimate && v <= 0) return `<${fmt(0.01)}`;
  return fmt(v / 100);
}

/** A hint's rating (server HintRating) in words: "proven: not the durak", or
 * "estimate: 62 % (95 %: 55 % to 69 %, 400 samples)", with the proven bounds of an
 * unsettled estimate ("at least a draw, proven").  Proven and estimated never
 * read alike. */
export function ratingText(r, t, lang = "en") {
  if (!r) return "";
  if (r.kind === "proven") return t(`rating.proven.${r.value}`);
  const parts = [];
  if (r.at_least) parts.push(t(`rating.atLeast.${r.at_least}`));
  if (r.at_best) parts.push(t(`rating.atBest.${r.at_best}`));
  if (r.kind === "estimated") {
    parts.push(
      t("rating.estimate", {
        score: percentText(r.score, lang, true),
        low: percentText(Math.floor(100 * r.low) / 100, lang),
        high: percentText(Math.ceil(100 * r.high) / 100, lang),
        count: r.samples,
      }),
    );
  } else if (!parts.length) parts.push(t("rating.unrated"));
  return parts.join("; ");
}
