// @ts-check
// The first screen: a name, "Play now" against bots in one click, the open
// tables, and the full table form folded away.  The rules options, their
// allowed values and defaults come from the server (GET /api/rules-options,
// built from svoi_kozyri.core.rules); only their labels live in the catalogues.
import { api } from "./api.js";
import { botName } from "./cards.js";
import { html, useEffect, useState } from "./html.js";
import { t } from "./i18n.js";
import { store } from "./store.js";
import { cardSrc } from "./theme.js";
import { useAccount } from "./account.js";
import { LiveLobby } from "./lobby_live.js";
import { OpenSeeks, PlayWithPeople } from "./pairing.js";

export { useAccount };

/** Options shown in the form's first part, then the ones under "More rules". */
const MAIN_RULES = ["variant", "pickup_rule", "fixed_pickup_count", "suit_assignment", "draw_rule", "pile_visibility"];
const MORE_RULES = ["after_pickup", "equal_rank_beats", "free_lead_after_defence_out", "own_suits_cross_beat", "trumps_per_player_2p", "reassign_each_hand"];
const SPEEDS = [["0", "instant"], ["0.3", "fast"], ["0.8", "normal"], ["1.5", "slow"]];
const TIMERS = ["", "30", "60", "120"];

/** The player's name.  A logged-in player plays under the account's name (the
 * server uses it anyway), so for them the field shows it and cannot be edited. */
export function NameField({ value, onInput, account }) {
  if (account) {
    return html`<label class="field" for="player-name">${t("lobby.name")}
      <input id="player-name" value=${account} readonly aria-describedby="player-name-note" />
      <span class="small muted" id="player-name-note">${t("lobby.accountName", { name: account })}</span>
    </label>`;
  }
  return html`<label class="field" for="player-name">${t("lobby.name")}
    <input id="player-name" value=${value} maxlength="24" placeholder=${t("lobby.namePlaceholder")} autocomplete="nickname"
      onInput=${(e) => onInput(e.target.value)} onChange=${(e) => store.setName(e.target.value.trim())} />
  </label>`;
}

function optionLabel(name, value) {
  if (typeof value === "boolean") return t(value ? "form.yes" : "form.no");
  const key = `rule.${name}.${value}`;
  const text = t(key);
  return text === key ? String(value) : text;
}

function defaultFor(spec, variant) {
  return variant === "besicovitch" ? spec.besicovitch_default : spec.default;
}

function RuleField({ spec, value, variant, onChange }) {
  const id = `rule-${spec.name}`;
  const label = t(`rule.${spec.name}`);
  const def = defaultFor(spec, variant);
  if (spec.type === "choice" || spec.type === "bool") {
    const values = spec.type === "bool" ? [true, false] : spec.choices;
    return html`<label class="field" for=${id}>${label}
      <select id=${id} onChange=${(e) => onChange(values[Number(e.target.value)])}>
        ${values.map((v, i) => html`<option value=${i} selected=${v === value}>${v === def ? t("rule.default", { value: optionLabel(spec.name, v) }) : optionLabel(spec.name, v)}</option>`)}
      </select></label>`;
  }
  return html`<label class="field" for=${id}>${label}
    <input id=${id} type="number" min=${spec.min} max="36" value=${value ?? def} onInput=${(e) => onChange(Number(e.target.value))} /></label>`;
}

function TableForm({ bots, options, name, onCreate }) {
  const saved = store.settings();
  const [players, setPlayers] = useState(saved.players || 4);
  const [seats, setSeats] = useState(saved.seats || {});
  const [rules, setRules] = useState(saved.rules || {});
  const [title, setTitle] = useState("");
  const [length, setLength] = useState(saved.length || 5);
  const [timer, setTimer] = useState(saved.timer ?? "");
  const [delay, setDelay] = useState(saved.delay ?? "0.8");
  const [listed, setListed] = useState(saved.listed ?? true);
  const [rated, setRated] = useState(false);
  const [error, setError] = useState("");
  const byName = Object.fromEntries(options.map((o) => [o.name, o]));
  const variant = rules.variant || "standard";
  const value = (n) => (n in rules ? rules[n] : defaultFor(byName[n], variant));
  const setRule = (n, v) => {
    const next = { ...rules, [n]: v };
    if (n === "variant") {
      // the variant changes other defaults: start again from them
      for (const k of Object.keys(next)) if (k !== "variant" && k !== "session_mode") delete next[k];
      if (v === "besicovitch") setPlayers(2);
    }
    setRules(next);
  };
  const n = variant === "besicovitch" ? 2 : players;
  const seatValue = (i) => seats[i] || (i === 0 ? "human" : `bot:${bots.default}`);

  const visible = (list) =>
    list
      .filter((k) => byName[k])
      .filter((k) => !(byName[k].besicovitch_only && variant !== "besicovitch"))
      .filter((k) => k !== "fixed_pickup_count" || value("pickup_rule") === "fixed")
      .filter((k) => k !== "trumps_per_player_2p" || (n === 2 && variant !== "besicovitch"))
      .filter((k) => k !== "own_suits_cross_beat" || n === 2);

  const submit = async (ev) => {
    ev.preventDefault();
    const who = name.trim();
    if (!who) return setError(t("lobby.nameNeeded"));
    store.setName(who);
    const out = {};
    for (const k of [...visible(MAIN_RULES), ...visible(MORE_RULES)]) {
      const v = value(k);
      if (v !== defaultFor(byName[k], variant)) out[k] = v;
    }
    if (variant === "besicovitch") out.variant = "besicovitch";
    else if (n !== 4) out.num_players = n;
    const mode = rules.session_mode || "losses";
    if (mode !== "losses") out.session_mode = mode;
    out[mode === "losses" ? "loss_limit" : "points_target"] = Number(length);
    delete out.num_players; // the number of seats is the number of players
    const config = {
      title: title.trim(),
      seats: Array.from({ length: n }, (_, i) => {
        const s = seatValue(i);
        return s === "human" ? { kind: "human" } : { kind: "bot", bot: s.slice(4) };
      }),
      rules: out,
      bot_delay_s: Number(delay),
      listed,
      rated,
    };
    if (timer) config.turn_timer_s = Number(timer);
    store.setSettings({ players: n, seats, rules, length, timer, delay, listed });
    try {
      await onCreate(who, config);
    } catch (e) {
      setError(e.message);
    }
  };

  const seatOptions = (i) => {
    if (i === 0) return [["human", t("lobby.seatYou")]];
    return [["human", t("lobby.seatHuman")], ...bots.bots.map((b) => [`bot:${b}`, t("lobby.seatBot", { bot: botName(b, t) })])];
  };
  return html`<form id="create-form" onSubmit=${submit}>
    <label class="field" for="title">${t("lobby.title")}
      <input id="title" maxlength="40" placeholder=${t("lobby.titlePlaceholder")} value=${title} onInput=${(e) => setTitle(e.target.value)} /></label>
    <label class="field" for="players">${t("lobby.players")}
      <select id="players" disabled=${variant === "besicovitch"} onChange=${(e) => setPlayers(Number(e.target.value))}>
        ${[2, 3, 4].map((k) => html`<option value=${k} selected=${k === n}>${t("lobby.playersN", { count: k })}</option>`)}
      </select></label>
    <fieldset class="seat-config"><legend>${t("lobby.seats")}</legend>
      ${Array.from({ length: n }, (_, i) => html`<label class="field" for=${`seat-${i}`}>${t("lobby.seat", { letter: "ABCD"[i] })}
        <select id=${`seat-${i}`} onChange=${(e) => setSeats({ ...seats, [i]: e.target.value })}>
          ${seatOptions(i).map(([v, label]) => html`<option value=${v} selected=${v === seatValue(i)}>${label}</option>`)}
        </select></label>`)}
    </fieldset>
    <fieldset><legend>${t("lobby.rules")}</legend>
      ${visible(MAIN_RULES).map((k) => html`<${RuleField} spec=${byName[k]} value=${value(k)} variant=${variant} onChange=${(v) => setRule(k, v)} />`)}
      <details><summary>${t("lobby.moreRules")}</summary>
        ${visible(MORE_RULES).map((k) => html`<${RuleField} spec=${byName[k]} value=${value(k)} variant=${variant} onChange=${(v) => setRule(k, v)} />`)}
      </details>
    </fieldset>
    <fieldset><legend>${t("lobby.session")}</legend>
      ${byName.session_mode ? html`<${RuleField} spec=${byName.session_mode} value=${rules.session_mode || "losses"} variant=${variant} onChange=${(v) => setRules({ ...rules, session_mode: v })} />` : null}
      <label class="field" for="length">${t((rules.session_mode || "losses") === "losses" ? "rule.loss_limit" : "rule.points_target")}
        <input id="length" type="number" min="1" max="50" value=${length} onInput=${(e) => setLength(e.target.value)} /></label>
      <label class="field" for="turn_timer">${t("lobby.timer")}
        <select id="turn_timer" onChange=${(e) => setTimer(e.target.value)}>
          ${TIMERS.map((v) => html`<option value=${v} selected=${v === String(timer)}>${v ? t("lobby.seconds", { count: Number(v) }) : t("lobby.timerNone")}</option>`)}
        </select></label>
      <label class="field" for="bot_delay">${t("lobby.botSpeed")}
        <select id="bot_delay" onChange=${(e) => setDelay(e.target.value)}>
          ${SPEEDS.map(([v, k]) => html`<option value=${v} selected=${v === String(delay)}>${t(`lobby.speed.${k}`)}</option>`)}
        </select></label>
      <label class="check" for="listed"><input id="listed" type="checkbox" checked=${listed} onChange=${(e) => setListed(e.target.checked)} /> ${t("lobby.listed")}</label>
      <label class="check" for="rated"><input id="rated" type="checkbox" checked=${rated} onChange=${(e) => setRated(e.target.checked)} /> ${t("lobby.live.rated_create")}</label>
    </fieldset>
    ${error ? html`<p class="error" id="create-error" role="alert">${error}</p>` : null}
    <button type="submit" id="create-btn" class="primary">${t("lobby.create")}</button>
  </form>`;
}

export function Lobby() {
  const user = useAccount();
  const [typed, setName] = useState(store.name());
  // logged in, the account's name is the player's name (the server seats the
  // account under it); a guest's is the one typed
  const name = user ? user.username : typed;
  const [bots, setBots] = useState({ bots: ["random"], default: "random" });
  const [options, setOptions] = useState(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // a listed seek's "Play": the same game, sought at once (pairing.js)
  const [prefill, setPrefill] = useState(null);
  useEffect(() => {
    api.bots().then(setBots).catch(() => {});
    api.rulesOptions().then((d) => setOptions(d.options)).catch(() => setOptions([]));
    // the table list is the live lobby (lobby_live.js), which polls /api/lobby itself
  }, []);

  const create = async (who, config) => {
    const grant = await api.create(who, config);
    store.setToken(grant.table_id, grant.token);
    location.hash = `#/t/${grant.table_id}`;
  };
  const lossDefault = options?.find((o) => o.name === "loss_limit")?.default ?? 5;
  const playNow = async () => {
    // one click: the remembered name (or a guest name), three bots of the default level
    const who = name.trim() || t("lobby.guest");
    store.setName(who);
    setBusy(true);
    try {
      await create(who, {
        title: "",
        seats: [{ kind: "human" }, ...Array.from({ length: 3 }, () => ({ kind: "bot", bot: bots.default }))],
        rules: {},
        bot_delay_s: 0.8,
        listed: false,
      });
    } catch (e) {
      setError(e.message);
      setBusy(false);
    }
  };

  return html`<div class="lobby">
    <section class="panel hero">
      <div class="hero-fan" aria-hidden="true">${["6S", "QH", "AS", "KD", "JC"].map((c) => html`<img src=${cardSrc(c)} alt="" />`)}</div>
      <h1>${t("lobby.welcome")}</h1>
      <p>${t("lobby.intro")}</p>
      <div class="hero-row">
        <${NameField} value=${typed} onInput=${setName} account=${user?.username} />
        <button class="primary big" id="play-now" disabled=${busy} onClick=${playNow}>${t("lobby.playBots")}</button>
        <a class="button big" id="play-people" href="#play-people-panel" onClick=${(e) => {
          e.preventDefault();
          const panel = document.getElementById("play-people-panel");
          panel?.scrollIntoView({ behavior: "smooth", block: "start" });
          /** @type {HTMLElement | null | undefined} */ (panel?.querySelector("select, button"))?.focus({ preventScroll: true });
        }}>${t("lobby.playPeople")}</a>
      </div>
      <p class="small muted">${t("lobby.playNowHint", { bot: botName(bots.default, t), count: lossDefault })}</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <p class="first-steps">${t("lobby.firstSteps")}</p>
      <p class="row first-steps-links">
        <a class="button" id="lobby-learn" href="/learn">${t("nav.learn")}</a>
        <a class="button" id="lobby-daily" href="/deal?daily">${t("nav.daily")}</a>
      </p>
    </section>
    <section class="panel play-people" id="play-people-panel" aria-labelledby="play-people-title">
      <h2 id="play-people-title">${t("pairing.title")}</h2>
      <p class="small muted">${t("pairing.intro")}</p>
      <${PlayWithPeople} name=${name} user=${user} prefill=${prefill} />
      <${OpenSeeks} onPlay=${(choice) => {
        setPrefill({ ...choice });
        document.getElementById("play-people-panel")?.scrollIntoView({ block: "start" });
      }} />
    </section>
    <section class="panel">
      <${LiveLobby} />
    </section>
    <section class="panel">
      <details id="new-table">
        <summary><h2>${t("lobby.newTable")}</h2></summary>
        ${options ? html`<${TableForm} bots=${bots} options=${options} name=${name} onCreate=${create} />` : html`<p>${t("app.loading")}</p>`}
      </details>
    </section>
  </div>`;
}
