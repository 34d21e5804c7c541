// Svoi Kozyri web client: lobby, table creation, live table, replay.
// Plain ES modules, no build step.  All text from users goes through textContent.
import { api, getName, getToken, setName, setToken, TableSocket } from "./api.js";
import { h } from "./dom.js";
import { renderTable } from "./table.js";
import { mountAccountBar } from "./account.js";
import { t } from "./accounts_common.js";
import { mountLiveLobby } from "./lobby_live.js";
import { profilePage } from "./profile.js";

const app = document.getElementById("app");
let current = null; // cleanup of the current view

function route() {
  if (current) current();
  current = null;
  const hash = location.hash || "#/";
  let m;
  if ((m = hash.match(/^#\/t\/([a-z0-9]+)/))) current = tablePage(m[1]);
  else if ((m = hash.match(/^#\/r\/([a-z0-9]+)/))) current = replayPage(m[1]);
  else if ((m = hash.match(/^#\/u\/([A-Za-z0-9_%-]{1,64})$/))) current = profilePage(app, decodeURIComponent(m[1]));
  else current = lobbyPage();
}

// ---------------------------------------------------------------- lobby

function nameField() {
  const input = h("input", {
    id: "player-name",
    value: getName(),
    maxlength: "24",
    placeholder: "your name",
    autocomplete: "nickname",
    required: true,
  });
  input.addEventListener("change", () => setName(input.value.trim()));
  return input;
}

function requireName() {
  const el = document.getElementById("player-name");
  const name = (el ? el.value : getName()).trim();
  if (!name) {
    alert("Please choose a name first.");
    el?.focus();
    return null;
  }
  setName(name);
  return name;
}

function select(id, options, value) {
  return h(
    "select",
    { id },
    options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)),
  );
}

function lobbyPage() {
  const list = h("section", { class: "panel", id: "lobby-live" });
  const seatsBox = h("div", { id: "seat-config", class: "seat-config" });
  const error = h("p", { class: "error", id: "create-error" });
  let bots = { bots: ["random"], default: "random" };

  const players = select("players", [["2", "2 players"], ["3", "3 players"], ["4", "4 players"]], "4");
  function drawSeats() {
    const n = Number(players.value);
    seatsBox.replaceChildren(
      ...Array.from({ length: n }, (_, i) => {
        const opts = [["human", i === 0 ? "You" : "Human (invite)"]];
        if (i > 0) for (const b of bots.bots) opts.push([`bot:${b}`, `Bot: ${b}`]);
        return h(
          "label",
          { class: "seat-choice" },
          `Seat ${"ABCD"[i]} `,
          select(`seat-${i}`, i === 0 ? opts.slice(0, 1) : opts, i === 0 ? "human" : `bot:${bots.default}`),
        );
      }),
    );
  }
  players.addEventListener("change", drawSeats);

  const form = h(
    "form",
    { id: "create-form", class: "panel" },
    h("h2", {}, "New table"),
    h("label", {}, "Title ", h("input", { id: "title", maxlength: "40", placeholder: "optional" })),
    h("label", {}, "Players ", players),
    seatsBox,
    h(
      "details",
      { open: true },
      h("summary", {}, "Rules"),
      h("label", {}, "Pickup ", select("pickup_rule", [
        ["graded", "graded: 3 / 5 / whole pile (standard)"],
        ["fixed", "fixed number of cards"],
        ["whole_pile", "whole pile"],
      ], "graded")),
      h("label", {}, "Fixed pickup count ", h("input", { id: "fixed_pickup_count", type: "number", min: "1", max: "36", value: "3" })),
      h("label", {}, "Trumps ", select("suit_assignment", [["agreed", "agreed (seat order)"], ["blind", "blind (random)"]], "agreed")),
      h("label", {}, "Draw rule ", select("draw_rule", [
        ["lead_only", "last card may beat a final lead (standard)"],
        ["any_last_card", "last card may beat any final card"],
        ["none", "no draws"],
      ], "lead_only")),
      h("label", {}, "Variant ", select("variant", [["standard", "standard"], ["besicovitch", "Besicovitch open game (2 players)"]], "standard")),
      h("label", {}, "Pile shown ", select("pile_visibility", [["full", "whole pile on demand"], ["table", "top card only"]], "full")),
    ),
    h(
      "details",
      { open: true },
      h("summary", {}, "Session"),
      h("label", {}, "Scoring ", select("session_mode", [["losses", "count losses"], ["points", "points for first out"]], "losses")),
      h("label", {}, "Length ", h("input", { id: "length", type: "number", min: "1", max: "50", value: "5" }), " losses / points"),
      h("label", {}, "Turn timer ", select("turn_timer", [["", "none"], ["30", "30 s"], ["60", "60 s"], ["120", "2 min"]], "")),
      h("label", {}, "Bot speed ", select("bot_delay", [["0", "instant"], ["0.3", "fast"], ["0.8", "normal"], ["1.5", "slow"]], "0.8")),
      h("label", {}, h("input", { id: "listed", type: "checkbox", checked: true }), " list in the lobby"),
      h("label", {}, h("input", { id: "rated", type: "checkbox" }), ` ${t("lobby.live.rated_create")}`),
    ),
    error,
    h("button", { type: "submit", id: "create-btn", class: "primary" }, "Create table"),
  );

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = requireName();
    if (!name) return;
    const v = (id) => document.getElementById(id).value;
    const n = Number(players.value);
    const seats = Array.from({ length: n }, (_, i) => {
      const s = v(`seat-${i}`);
      return s === "human" ? { kind: "human" } : { kind: "bot", bot: s.slice(4) };
    });
    const rules = {
      pickup_rule: v("pickup_rule"),
      suit_assignment: v("suit_assignment"),
      draw_rule: v("draw_rule"),
      pile_visibility: v("pile_visibility"),
      session_mode: v("session_mode"),
    };
    if (v("variant") === "besicovitch") {
      rules.variant = "besicovitch";
      if (rules.pickup_rule === "graded") delete rules.pickup_rule;
      delete rules.draw_rule;
    }
    if (rules.pickup_rule === "fixed") rules.fixed_pickup_count = Number(v("fixed_pickup_count"));
    if (rules.session_mode === "losses") rules.loss_limit = Number(v("length"));
    else rules.points_target = Number(v("length"));
    const config = {
      title: v("title"),
      seats,
      rules,
      bot_delay_s: Number(v("bot_delay")),
      listed: document.getElementById("listed").checked,
      rated: document.getElementById("rated").checked,
    };
    if (v("turn_timer")) config.turn_timer_s = Number(v("turn_timer"));
    try {
      const grant = await api.create(name, config);
      setToken(grant.table_id, grant.token);
      location.hash = `#/t/${grant.table_id}`;
    } catch (e) {
      error.textContent = e.message;
    }
  });

  app.replaceChildren(
    h(
      "div",
      { class: "lobby" },
      h(
        "section",
        { class: "panel" },
        h("h2", {}, "Welcome"),
        h("p", {}, "Pick a name (no account needed), then create a table or join one."),
        h("label", {}, "Name ", nameField()),
      ),
      form,
      list,
    ),
  );
  api.bots().then((b) => {
    bots = b;
    drawSeats();
  });
  drawSeats();
  return mountLiveLobby(list);
}

// ---------------------------------------------------------------- table

function tablePage(tableId) {
  const watch = location.hash.includes("?watch");
  let token = getToken(tableId);
  let sock = null;
  let ui = null;
  let stopped = false;

  async function start() {
    if (!token && !watch) {
      let view;
      try {
        view = await api.table(tableId);
      } catch (e) {
        app.replaceChildren(h("p", { class: "error" }, e.message), h("a", { href: "#/" }, "Back to the lobby"));
        return;
      }
      const free = view.seats.filter((s) => !s.taken).length;
      if (free > 0) {
        const error = h("p", { class: "error" });
        app.replaceChildren(
          h(
            "section",
            { class: "panel join-panel" },
            h("h2", {}, `Join ${view.title || "table " + tableId}`),
            h("p", {}, view.seats.map((s) => `${s.letter}: ${s.taken ? s.name : "free seat"}`).join(" · ")),
            h("label", {}, "Your name ", nameField()),
            error,
            h(
              "div",
              { class: "row" },
              h("button", {
                id: "join-btn",
                class: "primary",
                onclick: async () => {
                  const name = requireName();
                  if (!name) return;
                  try {
                    const grant = await api.join(tableId, name);
                    setToken(tableId, grant.token);
                    token = grant.token;
                    connect();
                  } catch (e) {
                    error.textContent = e.message;
                  }
                },
              }, "Take a seat"),
              h("a", { class: "button", href: `#/t/${tableId}?watch` }, "Watch instead"),
            ),
          ),
        );
        return;
      }
    }
    connect();
  }

  function connect() {
    if (stopped) return;
    ui = renderTable(app, { tableId, onSend: (msg) => sock.send(msg) });
    sock = new TableSocket(tableId, watch ? null : token, {
      onMessage: (msg) => ui.message(msg),
      onStatus: (s) => {
        // a token the server no longer knows (e.g. a reset database): forget it
        if (s === "refused" && token) localStorage.removeItem(`sk.token.${tableId}`);
        ui.status(s);
      },
    });
  }

  start();
  return () => {
    stopped = true;
    sock?.close();
    ui?.stop();
  };
}

// ---------------------------------------------------------------- replay

function replayPage(tableId) {
  const token = getToken(tableId);
  let steps = [];
  let i = 0;
  const holder = h("div", { class: "replay-table" });
  const counter = h("span", { id: "replay-step" });
  const slider = h("input", { type: "range", min: "0", max: "0", value: "0", id: "replay-slider" });
  let ui = null;
  function show() {
    counter.textContent = `step ${i + 1} / ${steps.length}`;
    slider.value = String(i);
    ui.message({ type: "state", view: steps[i] });
  }
  slider.addEventListener("input", () => {
    i = Number(slider.value);
    show();
  });
  app.replaceChildren(
    h(
      "div",
      { class: "replay" },
      h(
        "div",
        { class: "panel row replay-controls" },
        h("strong", {}, `Replay of ${tableId}`),
        h("button", { id: "replay-first", onclick: () => { i = 0; show(); } }, "⏮"),
        h("button", { id: "replay-prev", onclick: () => { if (i > 0) i--; show(); } }, "◀"),
        h("button", { id: "replay-next", onclick: () => { if (i < steps.length - 1) i++; show(); } }, "▶"),
        h("button", { id: "replay-last", onclick: () => { i = steps.length - 1; show(); } }, "⏭"),
        slider,
        counter,
        h("a", { href: `#/t/${tableId}` }, "Back to the table"),
      ),
      holder,
    ),
  );
  api
    .replay(tableId, token)
    .then((data) => {
      steps = data.steps;
      if (!steps.length) {
        holder.textContent = "Nothing has been played at this table yet.";
        return;
      }
      slider.max = String(steps.length - 1);
      ui = renderTable(holder, { tableId, readOnly: true });
      i = steps.length - 1;
      show();
    })
    .catch((e) => {
      holder.textContent = `Cannot load the replay: ${e.message}`;
    });
  return () => {};
}

window.addEventListener("hashchange", route);
mountAccountBar(document.getElementById("account-bar"));
route();
