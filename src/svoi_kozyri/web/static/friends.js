// @ts-check
// The friends page (#/friends, docs/web.md "Friends"): the challenges waiting for
// the player and their own, whom they follow and who follows them (online,
// playing, a table to watch), a challenge form, and the people they block.
// Talks to /api/friends* and /api/challenges*; the challenges come from the one
// poll that friends_nav.js runs for every page.  Guests are told that friends
// need an account (they still play friends by sending a table's invite link).
import { useAccount } from "./account.js";
import { api, request } from "./api.js";
import { botName } from "./cards.js";
import { challenges, refresh, rememberSecret, subscribe } from "./friends_nav.js";
import { html, useEffect, useState } from "./html.js";
import { t } from "./i18n.js";
import { store } from "./store.js";

/** @typedef {import("./friends_nav.js").Challenge} Challenge */
/**
 * @typedef {object} Person
 * @property {string} name
 * @property {boolean} online
 * @property {boolean} playing
 * @property {string | null} watch
 * @property {boolean} i_follow
 * @property {boolean} follows_me
 */
/** @typedef {{following: Person[], followers: Person[], blocked: string[]}} FriendsData */

const POLL_MS = 10000;
/** The rules options the challenge form offers (the lobby's table form has them all). */
const FORM_RULES = ["pickup_rule", "suit_assignment"];

/** @param {string} path @param {object} [body] */
const post = (path, body = {}) => request("POST", path, body);

/** The words for a rules option's value (the lobby's labels).
 * @param {string} name @param {unknown} value */
function optionLabel(name, value) {
  const key = `rule.${name}.${value}`;
  const text = t(key);
  return text === key ? String(value) : text;
}

/** What a challenge asks for, in words.
 * @param {Challenge} c */
export function challengeSummary(c) {
  const parts = [t("lobby.playersN", { count: c.players })];
  if (c.bot) parts.push(t("lobby.seatBot", { bot: botName(c.bot, t) }));
  parts.push(t(c.rated ? "friends.rated" : "friends.casual"));
  for (const k of FORM_RULES) if (k in c.rules) parts.push(optionLabel(k, c.rules[k]));
  if ("loss_limit" in c.rules) parts.push(t("friends.losses", { count: Number(c.rules.loss_limit) }));
  return parts.join(" · ");
}

/** Online, playing or offline, and a link to watch a listed game.
 * @param {{p: Person}} props */
function PresenceTag({ p }) {
  const state = p.playing ? "playing" : p.online ? "online" : "offline";
  return html`<span class=${`presence ${state}`}><span class="presence-dot" aria-hidden="true"></span>${t(`friends.${state}`)}</span>
    ${p.watch ? html`<a class="button small-button" href=${`#/t/${p.watch}?watch`}>${t("friends.watch")}</a>` : null}`;
}

/**
 * @typedef {object} Actions
 * @property {(path: string, name: string) => Promise<void>} act follow, unfollow, block or unblock
 * @property {(name: string) => void} challenge open the challenge form for a name
 */

/** One person of a list, with what can be done.
 * @param {{p: Person, list: "following" | "followers", actions: Actions}} props */
function PersonRow({ p, list, actions }) {
  return html`<li class="friend-row">
    <a class="friend-name" href=${`#/u/${encodeURIComponent(p.name)}`}>${p.name}</a>
    <${PresenceTag} p=${p} />
    <span class="friend-actions">
      <button type="button" class="challenge-btn" onClick=${() => actions.challenge(p.name)}>${t("friends.challenge")}</button>
      ${list === "following"
        ? html`<button type="button" onClick=${() => actions.act("unfollow", p.name)}>${t("friends.unfollow")}</button>`
        : p.i_follow
          ? null
          : html`<button type="button" onClick=${() => actions.act("follow", p.name)}>${t("friends.followBack")}</button>`}
      <button type="button" class="block-btn" onClick=${() => actions.act("block", p.name)}>${t("friends.block")}</button>
    </span>
  </li>`;
}

/**
 * @typedef {object} FormProps
 * @property {string} to
 * @property {{bots: string[], default: string}} bots
 * @property {any[]} options the rules options (GET /api/rules-options)
 * @property {(body: object) => Promise<void>} onSend
 * @property {() => void} onClose
 */

/** The challenge form: players, bots for the other seats, a few rules, rated.
 * @param {FormProps} props */
function ChallengeForm({ to, bots, options, onSend, onClose }) {
  const [players, setPlayers] = useState(2);
  const [bot, setBot] = useState(bots.default);
  const [rated, setRated] = useState(false);
  const [listed, setListed] = useState(true);
  const [losses, setLosses] = useState(5);
  /** @type {[Record<string, unknown>, (r: Record<string, unknown>) => void]} */
  const [rules, setRules] = useState({});
  const [error, setError] = useState("");
  const specs = FORM_RULES.map((k) => options.find((o) => o.name === k)).filter((o) => o && o.type === "choice");
  const submit = async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    setError("");
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [k, v] of Object.entries(rules)) if (v !== options.find((o) => o.name === k)?.default) out[k] = v;
    out.loss_limit = Number(losses);
    try {
      await onSend({ to, players, bot: players > 2 ? bot : null, rated, listed, rules: out });
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  };
  return html`<form id="challenge-form" class="panel challenge-form" onSubmit=${submit} aria-labelledby="challenge-title">
    <h2 id="challenge-title">${t("friends.challengeTo", { name: to })}</h2>
    <div class="challenge-fields">
      <label class="field" for="ch-players">${t("lobby.players")}
        <select id="ch-players" onChange=${(/** @type {Event} */ e) => setPlayers(Number(/** @type {HTMLSelectElement} */ (e.currentTarget).value))}>
          ${[2, 3, 4].map((k) => html`<option value=${k} selected=${k === players}>${t("lobby.playersN", { count: k })}</option>`)}
        </select></label>
      ${players > 2
        ? html`<label class="field" for="ch-bot">${t("friends.bots")}
            <select id="ch-bot" onChange=${(/** @type {Event} */ e) => setBot(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
              ${bots.bots.map((b) => html`<option value=${b} selected=${b === bot}>${botName(b, t)}</option>`)}
            </select></label>`
        : null}
      ${specs.map(
        (spec) => html`<label class="field" for=${`ch-${spec.name}`}>${t(`rule.${spec.name}`)}
          <select id=${`ch-${spec.name}`} onChange=${(/** @type {Event} */ e) => setRules({ ...rules, [spec.name]: /** @type {HTMLSelectElement} */ (e.currentTarget).value })}>
            ${spec.choices.map((/** @type {string} */ v) => html`<option value=${v} selected=${v === (rules[spec.name] ?? spec.default)}>${optionLabel(spec.name, v)}</option>`)}
          </select></label>`,
      )}
      <label class="field" for="ch-losses">${t("rule.loss_limit")}
        <input id="ch-losses" type="number" min="1" max="50" value=${losses} onInput=${(/** @type {Event} */ e) => setLosses(Number(/** @type {HTMLInputElement} */ (e.currentTarget).value))} /></label>
    </div>
    <label class="check" for="ch-rated"><input id="ch-rated" type="checkbox" checked=${rated} onChange=${(/** @type {Event} */ e) => setRated(/** @type {HTMLInputElement} */ (e.currentTarget).checked)} /> ${t("friends.ratedLong")}</label>
    <label class="check" for="ch-listed"><input id="ch-listed" type="checkbox" checked=${listed} onChange=${(/** @type {Event} */ e) => setListed(/** @type {HTMLInputElement} */ (e.currentTarget).checked)} /> ${t("friends.listed")}</label>
    ${error ? html`<p class="error" id="challenge-error" role="alert">${error}</p>` : null}
    <div class="row">
      <button type="submit" id="challenge-send" class="primary">${t("friends.send")}</button>
      <button type="button" id="challenge-close" onClick=${onClose}>${t("account.cancel")}</button>
    </div>
  </form>`;
}

/** The challenges waiting for the player, and their own.
 * @param {{onError: (e: unknown) => void, onBlock: (name: string) => void}} props */
function ChallengeList({ onError, onBlock }) {
  const [, redraw] = useState(0);
  useEffect(() => subscribe(() => redraw((n) => n + 1)), []);
  const { incoming, outgoing } = challenges();
  const accept = async (/** @type {Challenge} */ c) => {
    try {
      const r = await post(`/api/challenges/${c.id}/accept`);
      store.setToken(r.table_id, r.secret);
      location.hash = `#/t/${r.table_id}`;
    } catch (e) {
      onError(e);
      refresh();
    }
  };
  const answer = async (/** @type {string} */ path) => {
    try {
      await post(path);
    } catch (e) {
      onError(e);
    }
    refresh();
  };
  if (!incoming.length && !outgoing.length) return null;
  return html`<section class="panel" id="challenges" aria-labelledby="challenges-title">
    <h2 id="challenges-title">${t("friends.challenges")}</h2>
    <ul class="challenge-list">
      ${incoming.map(
        (c) => html`<li class="challenge incoming" id=${`challenge-${c.id}`}>
          <span><strong>${t("friends.challenged", { name: c.challenger })}</strong>
            <span class="small muted"> ${challengeSummary(c)}</span></span>
          <span class="friend-actions">
            <button type="button" class="primary accept-btn" onClick=${() => accept(c)}>${t("friends.accept")}</button>
            <button type="button" class="decline-btn" onClick=${() => answer(`/api/challenges/${c.id}/decline`)}>${t("friends.decline")}</button>
            <button type="button" class="block-btn" onClick=${() => onBlock(c.challenger)}>${t("friends.block")}</button>
          </span>
        </li>`,
      )}
      ${outgoing.map(
        (c) => html`<li class="challenge outgoing" id=${`challenge-${c.id}`}>
          <span><strong>${t("friends.youChallenged", { name: c.challenged })}</strong>
            <span class="small muted"> ${challengeSummary(c)}</span></span>
          <span class="friend-actions">
            <span class="small" role="status">${t(`friends.state.${c.state}`)}</span>
            ${c.state === "open" ? html`<button type="button" class="cancel-btn" onClick=${() => answer(`/api/challenges/${c.id}/cancel`)}>${t("account.cancel")}</button>` : null}
          </span>
        </li>`,
      )}
    </ul>
  </section>`;
}

/** What a guest sees: friends need an account. */
function GuestNote() {
  const open = () => {
    const btn = /** @type {HTMLButtonElement | null} */ (document.getElementById("account-open"));
    btn?.click();
    btn?.scrollIntoView({ block: "nearest" });
  };
  return html`<div class="friends-page"><section class="panel" id="friends-guest">
    <h1>${t("nav.friends")}</h1>
    <p>${t("friends.needAccount")}</p>
    <p class="small muted">${t("friends.guestInvite")}</p>
    <div class="row">
      <button type="button" class="primary" id="friends-login" onClick=${open}>${t("account.login")}</button>
      <button type="button" id="friends-register" onClick=${open}>${t("account.register")}</button>
    </div>
  </section></div>`;
}

/** The friends page. */
export function Friends() {
  const user = useAccount();
  /** @type {[FriendsData | null, (d: FriendsData | null) => void]} */
  const [data, setData] = useState(/** @type {FriendsData | null} */ (null));
  const [name, setName] = useState("");
  const [to, setTo] = useState(/** @type {string | null} */ (null));
  const [error, setError] = useState("");
  const [bots, setBots] = useState({ bots: ["random"], default: "random" });
  const [options, setOptions] = useState(/** @type {any[]} */ ([]));

  const load = () =>
    request("GET", "/api/friends")
      .then(setData)
      .catch(() => {});
  useEffect(() => {
    if (!user) return undefined;
    load();
    api.bots().then(setBots).catch(() => {});
    api.rulesOptions().then((d) => setOptions(d.options)).catch(() => {});
    // the light heartbeat: the lists' presence, and this account's own
    const id = setInterval(() => {
      if (!document.hidden) load();
    }, POLL_MS);
    return () => clearInterval(id);
  }, [user]);

  if (!user) return html`<${GuestNote} />`;
  const fail = (/** @type {unknown} */ e) => setError(/** @type {Error} */ (e).message);
  /** @type {Actions} */
  const actions = {
    act: async (path, who) => {
      setError("");
      try {
        await post(`/api/friends/${path}`, { name: who });
      } catch (e) {
        fail(e);
      }
      load();
      refresh();
    },
    challenge: (who) => {
      setError("");
      setTo(who);
    },
  };
  const send = async (/** @type {object} */ body) => {
    const made = await post("/api/challenges", body);
    rememberSecret(made.challenge.id, made.secret);
    setTo(null);
    refresh();
  };
  const typed = name.trim();
  return html`<div class="friends-page">
    <section class="panel">
      <h1>${t("nav.friends")}</h1>
      <p class="small muted">${t("friends.intro")}</p>
      <form class="friend-add" onSubmit=${(/** @type {Event} */ ev) => {
        ev.preventDefault();
        if (typed) actions.act("follow", typed).then(() => setName(""));
      }}>
        <label class="field" for="friend-name">${t("friends.name")}
          <input id="friend-name" maxlength="20" autocomplete="off" value=${name} onInput=${(/** @type {Event} */ e) => setName(/** @type {HTMLInputElement} */ (e.currentTarget).value)} /></label>
        <div class="row">
          <button type="submit" id="follow-btn" class="primary" disabled=${!typed}>${t("friends.follow")}</button>
          <button type="button" id="challenge-name-btn" disabled=${!typed} onClick=${() => actions.challenge(typed)}>${t("friends.challenge")}</button>
        </div>
      </form>
      ${error ? html`<p class="error" id="friends-error" role="alert">${error}</p>` : null}
    </section>
    ${to ? html`<${ChallengeForm} key=${to} to=${to} bots=${bots} options=${options} onSend=${send} onClose=${() => setTo(null)} />` : null}
    <${ChallengeList} onError=${fail} onBlock=${(/** @type {string} */ n) => actions.act("block", n)} />
    <section class="panel" aria-labelledby="following-title">
      <h2 id="following-title">${t("friends.following")}</h2>
      ${data && data.following.length
        ? html`<ul class="friend-list" id="following">${data.following.map((p) => html`<${PersonRow} key=${p.name} p=${p} list="following" actions=${actions} />`)}</ul>`
        : html`<p class="muted">${data ? t("friends.noFollowing") : t("app.loading")}</p>`}
    </section>
    <section class="panel" aria-labelledby="followers-title">
      <h2 id="followers-title">${t("friends.followers")}</h2>
      ${data && data.followers.length
        ? html`<ul class="friend-list" id="followers">${data.followers.map((p) => html`<${PersonRow} key=${p.name} p=${p} list="followers" actions=${actions} />`)}</ul>`
        : html`<p class="muted">${data ? t("friends.noFollowers") : t("app.loading")}</p>`}
    </section>
    ${data && data.blocked.length
      ? html`<section class="panel" aria-labelledby="blocked-title">
          <h2 id="blocked-title">${t("friends.blocked")}</h2>
          <ul class="friend-list" id="blocked">
            ${data.blocked.map(
              (n) => html`<li class="friend-row" key=${n}><span class="friend-name">${n}</span>
                <button type="button" onClick=${() => actions.act("unblock", n)}>${t("friends.unblock")}</button></li>`,
            )}
          </ul>
        </section>`
      : null}
  </div>`;
}
