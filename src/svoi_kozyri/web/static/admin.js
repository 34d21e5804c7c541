// @ts-check
// The moderators' page (#/admin, docs/web.md "Moderation"): the queue of open
// reports (each settled with an action or dismissed), the bans and mutes in force
// (lift one, or give one), closing a table by its id, the audit log of every
// moderator action, and for admins the moderators (grant or take back the role).
// Talks to /api/mod/*; a player without a role is told the page is not theirs
// (the server refuses them too).  Nothing here shows a hidden card or a secret:
// the server sends none.
import { request } from "./api.js";
import { html, useEffect, useState } from "./html.js";
import { t } from "./i18n.js";

/** @param {string} path @param {object} [body] */
const post = (path, body = {}) => request("POST", path, body);

/** @param {number | null} at seconds since the epoch */
const when = (at) => (at === null ? t("mod.forever") : t("mod.until", { time: new Date(at * 1000).toLocaleString() }));

/** @param {Event} e */
const value = (e) => /** @type {HTMLInputElement} */ (e.currentTarget).value;

/** One open report and the form that settles it.
 * @param {{r: any, onDone: (text: string) => void}} props */
function ReportRow({ r, onDone }) {
  const [action, setAction] = useState("dismiss");
  const [minutes, setMinutes] = useState("");
  const [error, setError] = useState("");
  const settle = async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    try {
      await post(`/api/mod/reports/${r.id}/resolve`, { action, minutes: minutes ? Number(minutes) : null });
      onDone(t("mod.done"));
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  };
  const actions = ["dismiss", "remove_chat", "mute", "ban", "close_table"].filter(
    (a) => (a !== "remove_chat" || r.chat_id !== null) && ((a !== "mute" && a !== "ban") || r.account),
  );
  return html`<li class="panel mod-report" data-report-id=${String(r.id)}>
    <div><strong>${t("mod.reportLine", { reporter: r.reporter, target: r.target, table: r.table_id })}</strong></div>
    ${r.chat_text !== null ? html`<div class="small">${t("mod.chatLine", { text: r.chat_text })}</div>` : null}
    <div>${r.reason}</div>
    <form class="row" onSubmit=${settle}>
      <label class="field" for=${`act-${r.id}`}>${t("mod.action")}
        <select id=${`act-${r.id}`} onChange=${(/** @type {Event} */ e) => setAction(value(e))}>
          ${actions.map((a) => html`<option value=${a} selected=${a === action}>${t(`mod.act.${a}`)}</option>`)}
        </select></label>
      ${action === "mute" || action === "ban"
        ? html`<label class="field" for=${`min-${r.id}`}>${t("mod.minutes")}
            <input id=${`min-${r.id}`} type="number" min="1" value=${minutes} onInput=${(/** @type {Event} */ e) => setMinutes(value(e))} /></label>`
        : null}
      <button type="submit" class="primary">${t("mod.apply")}</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </li>`;
}

/** The form that bans or mutes an account by name.
 * @param {{onDone: (text: string) => void}} props */
function SanctionForm({ onDone }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState("mute");
  const [minutes, setMinutes] = useState("60");
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const give = async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    try {
      await post("/api/mod/sanctions", { username: name.trim(), kind, minutes: minutes ? Number(minutes) : null, reason });
      setName("");
      setReason("");
      setError("");
      onDone(t("mod.done"));
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  };
  return html`<form class="mod-form" id="sanction-form" onSubmit=${give}>
    <label class="field" for="sn-name">${t("mod.user")}<input id="sn-name" required maxlength="64" value=${name} onInput=${(/** @type {Event} */ e) => setName(value(e))} /></label>
    <label class="field" for="sn-kind">${t("mod.action")}
      <select id="sn-kind" onChange=${(/** @type {Event} */ e) => setKind(value(e))}>
        ${["mute", "ban"].map((k) => html`<option value=${k} selected=${k === kind}>${t(`mod.act.${k}`)}</option>`)}
      </select></label>
    <label class="field" for="sn-min">${t("mod.minutes")}<input id="sn-min" type="number" min="1" value=${minutes} onInput=${(/** @type {Event} */ e) => setMinutes(value(e))} /></label>
    <label class="field" for="sn-reason">${t("mod.why")}<input id="sn-reason" required maxlength="300" value=${reason} onInput=${(/** @type {Event} */ e) => setReason(value(e))} /></label>
    <button type="submit" class="primary" id="sn-send">${t("mod.apply")}</button>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </form>`;
}

/** Close a table by its id.
 * @param {{onDone: (text: string) => void}} props */
function CloseForm({ onDone }) {
  const [table, setTable] = useState("");
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const close = async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    try {
      await post(`/api/mod/tables/${encodeURIComponent(table.trim())}/close`, { reason });
      setTable("");
      setReason("");
      setError("");
      onDone(t("mod.done"));
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  };
  return html`<form class="mod-form" id="close-form" onSubmit=${close}>
    <label class="field" for="cl-table">${t("mod.tableId")}<input id="cl-table" required maxlength="32" value=${table} onInput=${(/** @type {Event} */ e) => setTable(value(e))} /></label>
    <label class="field" for="cl-reason">${t("mod.why")}<input id="cl-reason" required maxlength="300" value=${reason} onInput=${(/** @type {Event} */ e) => setReason(value(e))} /></label>
    <button type="submit" class="primary" id="cl-send">${t("mod.closeTable")}</button>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </form>`;
}

/** Admins: the moderators, and the form that grants or takes back the role.
 * @param {{roles: any[], onDone: (text: string) => void}} props */
function Roles({ roles, onDone }) {
  const [name, setName] = useState("");
  const [error, setError] = useState("");
  const set = async (/** @type {string} */ who, /** @type {string} */ role) => {
    try {
      await post("/api/mod/roles", { username: who, role });
      setName("");
      setError("");
      onDone(t("mod.done"));
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  };
  return html`<section class="panel" aria-labelledby="mod-roles"><h2 id="mod-roles">${t("mod.roles")}</h2>
    <ul class="mod-list">${roles.map(
      (r) => html`<li>${r.username} · ${t(`mod.role.${r.role}`)}
        ${r.role === "moderator" ? html` <button type="button" onClick=${() => set(r.username, "none")}>${t("mod.revoke")}</button>` : null}</li>`,
    )}</ul>
    <form class="mod-form" id="role-form" onSubmit=${(/** @type {Event} */ ev) => (ev.preventDefault(), set(name.trim(), "moderator"))}>
      <label class="field" for="role-name">${t("mod.user")}<input id="role-name" required maxlength="64" value=${name} onInput=${(/** @type {Event} */ e) => setName(value(e))} /></label>
      <button type="submit" id="role-send">${t("mod.grant")}</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </section>`;
}

export function Admin() {
  const [role, setRole] = useState(/** @type {string | null | undefined} */ (undefined));
  const [data, setData] = useState(/** @type {any} */ (null));
  const [status, setStatus] = useState("");
  const [tick, setTick] = useState(0);
  const done = (/** @type {string} */ text) => {
    setStatus(text);
    setTick((n) => n + 1);
  };
  useEffect(() => {
    let live = true;
    (async () => {
      const me = await request("GET", "/api/mod/me").catch(() => ({ role: null }));
      if (!live) return;
      setRole(me.role);
      if (!me.role) return;
      const [reports, sanctions, audit, roles] = await Promise.all([
        request("GET", "/api/mod/reports"),
        request("GET", "/api/mod/sanctions"),
        request("GET", "/api/mod/audit"),
        me.role === "admin" ? request("GET", "/api/mod/roles") : Promise.resolve({ roles: null }),
      ]);
      if (live) setData({ reports: reports.reports, sanctions: sanctions.sanctions, audit: audit.audit, roles: roles.roles });
    })().catch((e) => live && setStatus(/** @type {Error} */ (e).message));
    return () => {
      live = false;
    };
  }, [tick]);
  if (role === undefined) return html`<div class="friends-page"><section class="panel"><h1>${t("mod.title")}</h1></section></div>`;
  if (!role)
    return html`<div class="friends-page"><section class="panel"><h1>${t("mod.title")}</h1><p id="mod-forbidden">${t("mod.forbidden")}</p></section></div>`;
  return html`<div class="friends-page mod-page" id="mod-page">
    <section class="panel"><h1>${t("mod.title")}</h1>
      <p class="small" id="mod-status" role="status">${status}</p></section>
    ${data
      ? html`<section class="panel" aria-labelledby="mod-reports"><h2 id="mod-reports">${t("mod.reports")}</h2>
          ${data.reports.length
            ? html`<ul class="mod-list" id="report-queue">${data.reports.map((r) => html`<${ReportRow} key=${r.id} r=${r} onDone=${done} />`)}</ul>`
            : html`<p>${t("mod.noReports")}</p>`}
        </section>
        <section class="panel" aria-labelledby="mod-sanctions"><h2 id="mod-sanctions">${t("mod.sanctions")}</h2>
          ${data.sanctions.length
            ? html`<ul class="mod-list" id="sanction-list">${data.sanctions.map(
                (s) => html`<li data-sanction=${s.username}>${s.username} · ${t(`mod.kind.${s.kind}`)} · ${when(s.expires)} · ${s.reason}
                  <button type="button" onClick=${() => post(`/api/mod/sanctions/${s.id}/lift`).then(() => done(t("mod.done")), (e) => setStatus(e.message))}>${t("mod.lift")}</button></li>`,
              )}</ul>`
            : html`<p>${t("mod.noSanctions")}</p>`}
          <${SanctionForm} onDone=${done} />
        </section>
        <section class="panel" aria-labelledby="mod-close"><h2 id="mod-close">${t("mod.closeTable")}</h2><${CloseForm} onDone=${done} /></section>
        ${data.roles ? html`<${Roles} roles=${data.roles} onDone=${done} />` : null}
        <section class="panel" aria-labelledby="mod-audit"><h2 id="mod-audit">${t("mod.audit")}</h2>
          <ol class="mod-list" id="audit-log">${data.audit.map(
            (a) => html`<li><span class="small">${new Date(a.at * 1000).toLocaleString()}</span> ${a.actor} · ${a.action} · ${a.target} ${a.details ? `· ${a.details}` : ""}</li>`,
          )}</ol>
        </section>`
      : null}
  </div>`;
}

/** A link to the page, shown only to moderators and admins. */
export function ModLink() {
  const [role, setRole] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    const look = () => request("GET", "/api/mod/me").then((me) => setRole(me.role), () => setRole(null));
    look();
    window.addEventListener("sk-account", look);
    return () => window.removeEventListener("sk-account", look);
  }, []);
  return role ? html`<p class="mod-link"><a class="button" href="#/admin" id="mod-link">${t("mod.title")}</a></p>` : null;
}
