// hookd dashboard: one page, live through server-sent events. Everything shown from the daemon is
// set as text (textContent), never as markup: payloads and reasons are written by others.
"use strict";

const MAX_EVENTS = 1000; // kept in the page
const MAX_ROWS = 400; // shown at once

const state = {
  events: [],
  pending: new Map(),
  status: null,
  stats: null,
  connected: false,
  approver: "",
  sessions: 0, // sessions listed in the Sessions card (the header says the same number)
  open: new Set(), // seqs whose details are shown
};

const $ = (id) => document.getElementById(id);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// One line of text, cut with an ellipsis where its column ends; the whole text on hover.
function clipped(text, kind) {
  const value = text === undefined || text === null ? "" : String(text);
  return el("span", { class: `clip ${kind || ""}`, title: value || null, text: value });
}

function tag(kind, text, title) {
  return el("span", { class: `tag ${kind}`, title: title || null, text });
}

// As `hookd tail` shows times: local, 24-hour, to the millisecond, with the date when it is not
// today. The same digits as tail's: Python takes the microsecond from the fraction of the second
// (rounded half to even), then cuts it to the millisecond; so does this.
function clock(seconds) {
  let whole = Math.floor(Number(seconds));
  const scaled = (Number(seconds) - whole) * 1e6;
  let micros = scaled - Math.floor(scaled) === 0.5 ? 2 * Math.round(scaled / 2) : Math.round(scaled);
  if (micros >= 1e6) {
    whole += 1;
    micros -= 1e6;
  }
  const when = new Date(whole * 1000 + Math.floor(micros / 1000));
  const pad = (n, width) => String(n).padStart(width || 2, "0");
  const stamp = `${pad(when.getHours())}:${pad(when.getMinutes())}:${pad(when.getSeconds())}.${pad(when.getMilliseconds(), 3)}`;
  if (when.toDateString() === new Date().toDateString()) return stamp;
  return `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())} ${stamp}`;
}

// A duration in milliseconds, as a number for the stats' columns.
function ms(value) {
  return value === undefined || value === null ? "" : Number(value).toFixed(value < 10 ? 2 : 0);
}

// A duration in milliseconds, with its unit: 0.52 ms, 113 ms, 2.35 s, 120.1 s, 12 min 5 s.
function duration(value) {
  if (value === undefined || value === null) return "";
  const v = Number(value);
  if (v < 10) return `${v.toFixed(2)} ms`;
  if (v < 1000) return `${v.toFixed(0)} ms`;
  if (v < 10000) return `${(v / 1000).toFixed(2)} s`;
  if (v < 600000) return `${(v / 1000).toFixed(1)} s`;
  const minutes = Math.floor(v / 60000);
  return `${minutes} min ${((v - minutes * 60000) / 1000).toFixed(0)} s`;
}

function short(value, limit) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > limit ? text.slice(0, limit - 1) + "…" : text;
}

// A path's last parts (its file, the folder it is in and the one above): enough to tell two files
// apart at a glance; the whole path is in the title.
function shortPath(path) {
  const text = String(path || "");
  if (!text.startsWith("/")) return text;
  const parts = text.split("/").filter(Boolean);
  return parts.length > 3 ? `…/${parts.slice(-3).join("/")}` : text;
}

function payloadSummary(payload) {
  if (!payload || Object.keys(payload).length === 0) return "";
  let tool = payload.toolName || payload.tool_name;
  if (tool && typeof payload.agentToolName === "string" && payload.agentToolName !== tool) tool = `${tool} (${payload.agentToolName})`;
  const args = payload.args !== undefined ? payload.args : payload.tool_input;
  if (tool) return `${tool} ${args !== undefined ? short(args, 300) : ""}`;
  return short(payload, 300);
}

// An internal event's payload on one line: key=value pairs, strings as they are.
function compactPayload(payload) {
  if (!payload || typeof payload !== "object") return "";
  return Object.entries(payload)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : short(value, 200)}`)
    .join("  ");
}

function agentOf(ev) {
  const p = ev.payload || {};
  if (typeof p.agent === "string") return p.agent;
  if (typeof p.agentName === "string") return p.agentName;
  return "";
}

// ------------------------------------------------------------------ filters

function globRegex(glob) {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}

function currentFilter() {
  const point = $("f-point").value.trim();
  const session = $("f-session").value.trim();
  const kind = $("f-kind").value;
  const decision = $("f-decision").value;
  const pointRe = point ? globRegex(point) : null;
  return (ev) => {
    if (pointRe && !pointRe.test(ev.point)) return false;
    if (session && ev.session !== session) return false;
    if (kind && ev.kind !== kind) return false;
    if (decision === "none" && ev.decision) return false;
    if (decision && decision !== "none" && ev.decision !== decision) return false;
    return true;
  };
}

// ------------------------------------------------------------------- events

// What the agent waited for a decide: its chain, and a person's answer when a hook asked for one.
function waitText(ev) {
  const approval = ev.approval;
  if (approval) {
    const who = approval.expired ? "the approval deadline" : `${approval.by || "an approver"} to answer`;
    const chain = ev.duration !== undefined && ev.duration !== null ? `, ${duration(ev.duration)} in the hooks' chain` : "";
    return `the agent waited ${duration(ev.waited)}: ${duration(approval.ms)} for ${who} (approval #${approval.offer})${chain}`;
  }
  if (ev.duration !== undefined && ev.duration !== null) return `the agent waited ${duration(ev.duration)}: the hooks' chain`;
  return "";
}

function waitedCell(ev) {
  const waited = ev.waited !== undefined && ev.waited !== null ? ev.waited : ev.duration;
  return el("td", {
    class: `num waited${ev.approval ? " waited-approval" : ""}`,
    "data-ms": waited === undefined || waited === null ? null : waited,
    title: waitText(ev) || null,
    text: duration(waited),
  });
}

function summaryCell(ev) {
  if (ev.reason) return el("td", { class: "fill reason", text: short(ev.reason, 600) });
  const text = ev.kind === "internal" ? compactPayload(ev.payload) : payloadSummary(ev.payload);
  return el("td", { class: "fill" }, el("span", { class: "clip summary", title: text ? short(text, 2000) : null, text: short(text, 400) }));
}

function eventRow(ev, fresh) {
  const decision = ev.decision || "";
  return el(
    "tr",
    { class: `row kind-${ev.kind}${fresh ? " fresh" : ""}`, "data-seq": ev.seq, "data-point": ev.point, "data-kind": ev.kind, onclick: () => toggle(ev.seq) },
    el("td", { class: "num", text: ev.seq }),
    el("td", { class: "time", text: clock(ev.time) }),
    el("td", { text: ev.kind }),
    el("td", {}, clipped(ev.point, "point")),
    el("td", { class: "session" }, clipped(ev.session, "id")),
    el("td", {}, clipped(agentOf(ev), "agent")),
    el("td", { class: decision ? `decision-${decision}` : "", text: decision }),
    waitedCell(ev),
    summaryCell(ev),
  );
}

// A hook of a decide's chain: its name (for "*", the file it stands for) over the file it comes from.
function hookLabel(ref, shadow) {
  const name = el("div", {}, ref.name);
  if (ref.name === "*") name.append(tag("every-tag", `every hook of ${shortPath(ref.source)}`, ref.source));
  if (shadow) name.append(tag("shadow-tag", "shadow"));
  return el("td", { class: "hook" }, name, el("div", { class: "source clip", title: ref.source, text: shortPath(ref.source) }));
}

function chainDetail(ev) {
  const parts = [];
  if (ev.kind === "decide") {
    const wait = waitText(ev);
    if (wait) parts.push(el("p", { class: "note wait", text: `${wait[0].toUpperCase()}${wait.slice(1)}.` }));
  }
  if (Array.isArray(ev.hooks) && ev.hooks.length) {
    const body = el("tbody");
    for (const run of ev.hooks) {
      let what = run.skipped ? `not run (${SKIPS[run.skipped] || run.skipped})` : run.error ? `${run.error}: ${run.message || ""}` : run.decision || "abstained";
      if (run.rule) what += ` · ${run.rule}`; // a built-in guard's rule: the name it is allowed or asked by
      body.append(
        el(
          "tr",
          { class: "hook-run" },
          hookLabel(run.hook, run.shadow),
          el("td", { class: "kind", text: `${run.hook.scope} · ${run.type || "decision"}` }),
          el("td", { class: `answer${run.decision ? ` decision-${run.decision}` : ""}`, text: what }),
          el("td", { class: "num", text: run.ms !== undefined ? `${ms(run.ms)} ms` : "" }),
          el("td", { text: run.reason || (run.skipped ? run.message || "" : "") }),
        ),
      );
    }
    parts.push(
      el("table", { class: "chain" }, el("thead", {}, el("tr", {}, ...["hook · file", "scope · type", "answer", "time", "reason"].map((h) => el("th", { text: h })))), body),
    );
  } else if (ev.kind === "decide") {
    const by = ev.decided_by ? `decided by ${ev.decided_by.name} (${ev.decided_by.scope}, ${ev.decided_by.source})` : "no hook decided";
    parts.push(el("p", { class: "note", text: `${by}${ev.duration !== undefined ? `; the chain took ${ms(ev.duration)} ms` : ""}` }));
  }
  if (ev.errors) parts.push(el("p", { class: "note", text: `${ev.errors} hook(s) failed` }));
  if (ev.session) parts.push(el("p", { class: "note", text: `session ${ev.session}${ev.project ? ` · project ${ev.project}` : ""}` }));
  parts.push(el("pre", { text: JSON.stringify(ev.payload || {}, null, 2) }));
  return el("tr", { class: "detail", "data-detail": ev.seq }, el("td", { colspan: 9 }, ...parts));
}

function toggle(seq) {
  if (state.open.has(seq)) state.open.delete(seq);
  else state.open.add(seq);
  renderEvents();
}

function renderEvents() {
  const body = $("events").tBodies[0];
  const keep = currentFilter();
  const rows = [];
  for (let i = state.events.length - 1; i >= 0 && rows.length < MAX_ROWS; i--) {
    const ev = state.events[i];
    if (!keep(ev)) continue;
    rows.push(eventRow(ev, false));
    if (state.open.has(ev.seq)) rows.push(chainDetail(ev));
  }
  body.replaceChildren(...rows);
  $("events-count").textContent = String(state.events.length);
}

function addEvent(ev) {
  state.events.push(ev);
  if (state.events.length > MAX_EVENTS) state.events.splice(0, state.events.length - MAX_EVENTS);
  $("events-count").textContent = String(state.events.length);
  if (currentFilter()(ev)) {
    const body = $("events").tBodies[0];
    body.prepend(eventRow(ev, true));
    while (body.rows.length > MAX_ROWS) body.deleteRow(body.rows.length - 1);
  }
}

// ----------------------------------------------------------------- sessions

function sessionList() {
  const sessions = new Map();
  for (const ev of state.events) {
    if (!ev.session) continue;
    let s = sessions.get(ev.session);
    if (!s) {
      s = { id: ev.session, project: "", agent: "", calls: 0, denied: 0, last: 0, ended: false };
      sessions.set(ev.session, s);
    }
    if (ev.project) s.project = ev.project;
    const agent = agentOf(ev);
    if (agent) s.agent = agent;
    if (ev.kind !== "internal") s.calls += 1;
    if (ev.decision === "deny") s.denied += 1;
    if (ev.point === "hookd.session.disposed") s.ended = true;
    if (ev.point === "hookd.session.attached") s.ended = false;
    s.last = Math.max(s.last, ev.time);
  }
  return [...sessions.values()].sort((a, b) => b.last - a.last);
}

function filterBySession(id) {
  $("f-session").value = id;
  renderEvents();
}

function renderSessions() {
  const list = sessionList();
  const rows = list.map((s) =>
    el(
      "tr",
      { "data-session": s.id, title: `show only this session's events`, onclick: () => filterBySession(s.id) },
      el("td", {}, clipped(s.id, "id"), s.ended ? tag("gone-tag", "ended") : null),
      el("td", {}, clipped(s.agent || "—", "agent")),
      el("td", { class: "fill" }, el("span", { class: "clip", title: s.project || null, text: shortPath(s.project) })),
      el("td", { class: "num", text: s.calls }),
      el("td", { class: "num", text: s.denied }),
      el("td", { class: "time", text: clock(s.last) }),
    ),
  );
  $("sessions").tBodies[0].replaceChildren(...rows);
  state.sessions = list.length;
  $("sessions-count").textContent = String(list.length);
  renderStatus();
}

// ---------------------------------------------------------------- approvals

function renderApprovals() {
  const box = $("approvals");
  const offers = [...state.pending.values()].sort((a, b) => a.offer - b.offer);
  $("approvals-count").textContent = String(offers.length);
  $("approver-note").textContent = state.approver
    ? `Answers from this page are signed ${state.approver}. The first approver to answer decides.`
    : "";
  const keep = new Set(offers.map((o) => String(o.offer)));
  for (const card of [...box.children]) if (!keep.has(card.dataset.offer)) card.remove();
  for (const offer of offers) {
    if (box.querySelector(`[data-offer="${offer.offer}"]`)) continue;
    box.append(offerCard(offer));
  }
  if (!offers.length) box.replaceChildren(el("p", { class: "note", text: "Nothing waits for a person." }));
  else for (const note of box.querySelectorAll("p.note")) note.remove();
}

function offerCard(offer) {
  const reason = el("input", { id: `reason-${offer.offer}`, placeholder: "reason (optional)", maxlength: 4000 });
  const result = el("div", { class: "note" });
  const send = (decision) => async () => {
    for (const b of card.querySelectorAll("button")) b.disabled = true;
    try {
      const answer = await fetch(`/api/approvals/${offer.offer}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ decision, reason: reason.value || null }),
      });
      const data = await answer.json();
      result.textContent = answer.ok ? `${decision} sent` : `not taken: ${data.error}`;
    } catch (err) {
      result.textContent = `not sent: ${err}`;
      for (const b of card.querySelectorAll("button")) b.disabled = false;
    }
  };
  const asked = offer.asked_by ? `${offer.asked_by.name} (${offer.asked_by.scope})` : "a hook";
  const card = el(
    "div",
    { class: "offer", "data-offer": offer.offer },
    el("div", { class: "title", text: `#${offer.offer} ${offer.point}` }),
    el("div", { text: [offer.session ? `session ${offer.session}` : "", offer.project || ""].filter(Boolean).join(" · ") }),
    el("div", { text: `${asked} asks: ${offer.reason || "(no reason given)"}` }),
    el("div", { class: "wrap", text: payloadSummary(offer.payload) }),
    el("div", { class: "note expires", "data-expires": offer.expires }),
    el(
      "div",
      { class: "actions" },
      reason,
      el("button", { class: "allow", id: `allow-${offer.offer}`, type: "button", onclick: send("allow"), text: "Allow" }),
      el("button", { class: "deny", id: `deny-${offer.offer}`, type: "button", onclick: send("deny"), text: "Deny" }),
    ),
    result,
  );
  return card;
}

function tickExpiries() {
  const now = Date.now() / 1000;
  for (const node of document.querySelectorAll("[data-expires]")) {
    const left = Math.max(0, Number(node.dataset.expires) - now);
    node.textContent = `the default decides in ${left.toFixed(0)} s if nobody answers`;
  }
}

// -------------------------------------------------------------------- stats

// Why a hook did not run, in words (the daemon's skip reasons).
const SKIPS = {
  match: "its match did not fit",
  decided: "an earlier hook decided",
  disabled: "disabled",
  untrusted: "not trusted",
  invalid_file: "its file is invalid",
  not_loaded: "its file was not loaded in time",
  plugin_failed: "its plugin failed",
  worker_failed: "its worker failed",
  shed: "shed under load",
  too_large: "the payload was too large for it",
  disconnected: "its client is gone",
  deadline: "the agent's deadline passed",
};

function skipsText(skips) {
  const parts = Object.entries(skips || {}).map(([why, n]) => `${SKIPS[why] || why} ×${n}`);
  return parts.join(", ");
}

function countsCells(c) {
  return [c.calls || 0, ms(c.p50), ms(c.p95), ms(c.p99), c.errors || 0, c.timeouts || 0, c.denies || 0, c.asks || 0].map((v) =>
    el("td", { class: "num", text: v === undefined ? "" : v }),
  );
}

// A stats row's hook: its name, and what it is: where it comes from, and whether it is still loaded.
function statsHookCell(h) {
  const ref = h.hook;
  const life = h.life || {};
  const name = el("div", { class: "name" });
  let source;
  if (h.every_hook_of !== undefined || ref.name === "*") {
    const file = h.every_hook_of || ref.source;
    name.append("*", tag("every-tag", `every hook of ${shortPath(file)}`, file));
    if (h.in_force === false) name.append(tag("gone-tag", "resolved", "the file loaded since, or is gone; these counts are from before"));
    const problems = (h.file_problems || []).join("\n");
    const why = skipsText(life.skips);
    source = el("div", {
      class: "source",
      title: `${file}${problems ? `\n${problems}` : ""}`,
      text: `${ref.scope} · ${h.in_force === false ? "did" : "does"} not load, so none of its hooks ran${why ? `: ${why}` : ""}`,
    });
  } else {
    name.append(ref.name);
    if (h.shadow) name.append(tag("shadow-tag", "shadow"));
    if (h.in_force === false) {
      name.append(tag("gone-tag", "removed", "no longer loaded: its file was deleted or no longer defines it; these counts are from before"));
    }
    const skipped = skipsText(life.skips);
    source = el("div", {
      class: "source clip",
      title: `${ref.source}${skipped ? `\nnot run: ${skipped}` : ""}${h.last_error ? `\nlast error: ${h.last_error}` : ""}`,
      text: `${ref.scope} · ${shortPath(ref.source)}`,
    });
  }
  return el("td", { class: "hook" }, name, source);
}

function rowState(h) {
  if (h.hook.name === "*") return h.in_force === false ? "resolved" : "not loaded";
  return h.in_force === false ? "removed" : h.in_force ? "in force" : "unknown";
}

function statsOrder(a, b) {
  const by = (h) => [h.hook.name === "*" ? 1 : 0, h.hook.name, h.point, h.in_force === false ? 1 : 0, h.hook.source];
  const x = by(a);
  const y = by(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

function renderStats() {
  const box = $("stats");
  const stats = state.stats;
  if (!stats) {
    box.replaceChildren(el("p", { class: "note", text: "No stats yet (this daemon does not answer the stats request)." }));
    renderShadow();
    return;
  }
  const head = ["hook", "point", "calls", "p50", "p95", "p99", "err", "t/o", "deny", "ask"];
  const rows = [...(stats.hooks || [])].sort(statsOrder).map((h) =>
    el(
      "tr",
      {
        class: h.in_force === false ? "gone" : null,
        title: h.hook.name === "*" ? `* stands for every hook of ${h.hook.source}, a file that did not load` : null,
        "data-hook": h.hook.name,
        "data-scope": h.hook.scope,
        "data-source": h.hook.source,
        "data-state": rowState(h),
      },
      statsHookCell(h),
      el("td", {}, clipped(h.point, "point")),
      ...countsCells(h.life || {}),
    ),
  );
  const points = (stats.points || []).map((p) =>
    el("tr", { class: "point-row", "data-point": p.name }, el("td", { text: "whole chain" }), el("td", {}, clipped(p.name, "point")), ...countsCells(p.life || {})),
  );
  box.replaceChildren(
    el("table", {}, el("thead", {}, el("tr", {}, ...head.map((h, i) => el("th", { class: i > 1 ? "num" : "", text: h })))), el("tbody", {}, ...rows, ...points)),
    el("p", {
      class: "note",
      text:
        "Over the daemon's life. Durations in ms: a hook's own run, or on \"whole chain\" rows a decide's whole chain. " +
        "err: failed, t/o: timed out; deny/ask: answers (a shadow hook's would-be answers). Under each hook: its scope and file; " +
        "\"removed\": no longer loaded, its counts are from before; \"*\": every hook of a file that did not load.",
    }),
  );
  renderShadow();
}

// The rules a hook's answers named (a built-in guard's), most frequent first: "git.reset-hard 3, files.rm-root 1".
function ruleCounts(rules) {
  return Object.entries(rules || {})
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([rule, n]) => `${rule} ${n}`)
    .join(", ");
}

function renderShadow() {
  const box = $("shadow");
  const parts = [];
  const shadowHooks = ((state.stats && state.stats.hooks) || []).filter((h) => h.shadow);
  if (shadowHooks.length) {
    parts.push(
      el(
        "table",
        {},
        el("thead", {}, el("tr", {}, ...["shadow hook", "calls", "would deny", "would ask", "rules"].map((h, i) => el("th", { class: i && i < 4 ? "num" : "", text: h })))),
        el(
          "tbody",
          {},
          ...shadowHooks.map((h) =>
            el(
              "tr",
              {},
              el("td", { class: "fill", title: h.hook.source, text: h.hook.name }),
              el("td", { class: "num", text: h.life.calls }),
              el("td", { class: "num", text: h.life.denies || 0 }),
              el("td", { class: "num", text: h.life.asks || 0 }),
              el("td", { text: ruleCounts(h.life.rules) }),
            ),
          ),
        ),
      ),
    );
  }
  const recent = [];
  for (let i = state.events.length - 1; i >= 0 && recent.length < 20; i--) {
    for (const run of state.events[i].hooks || []) {
      if (run.shadow && (run.decision === "deny" || run.decision === "ask")) recent.push([state.events[i], run]);
    }
  }
  if (recent.length) {
    parts.push(el("p", { class: "note", text: "Recent calls a shadow guard would have changed:" }));
    for (const [ev, run] of recent) {
      const rule = run.rule ? ` [${run.rule}]` : "";
      parts.push(el("div", { class: "wrap", text: `#${ev.seq} ${ev.point}: ${run.hook.name}${rule} would ${run.decision}${run.reason ? ` (${run.reason})` : ""}` }));
    }
  }
  if (!parts.length) parts.push(el("p", { class: "note", text: "No shadow guard has answered yet." }));
  box.replaceChildren(...parts);
}

// ------------------------------------------------------------------- status

// The header, and the note under the sessions: both follow the daemon's status and the sessions listed.
function renderStatus() {
  const attached = state.status ? ` ${state.status.sessions} attached to the daemon now.` : "";
  $("sessions-note").textContent = state.sessions
    ? `The sessions of the ${state.events.length} events shown, newest first; click one to see only its events.${attached}`
    : `No session in the events shown yet.${attached}`;
  const pill = $("daemon");
  pill.textContent = state.connected ? "live" : "disconnected";
  pill.className = `pill ${state.connected ? "up" : "down"}`;
  const s = state.status;
  const summary = $("summary");
  if (!s) {
    summary.replaceChildren();
    return;
  }
  const n = state.sessions;
  const parts = [
    el("span", { text: `hookd ${s.version}` }),
    el("span", { text: `pid ${s.pid}` }),
    el("span", {
      id: "summary-sessions",
      title: `the sessions listed in the Sessions card, from the events shown; ${s.sessions} attached to the daemon now`,
      text: `${n} session${n === 1 ? "" : "s"}`,
    }),
    el("span", { text: `${s.hooks} hooks` }),
    el("span", { text: `${s.decides || 0} decides` }),
    el("span", { text: `${s.emits || 0} emits` }),
    el("span", { text: `${s.connections} connections` }),
  ];
  summary.replaceChildren(...parts.flatMap((part, i) => (i ? [" · ", part] : [part])));
}

// ----------------------------------------------------------------- the feed

function connect() {
  const feed = new EventSource("/api/events");
  const on = (kind, handle) => feed.addEventListener(kind, (msg) => handle(JSON.parse(msg.data)));
  on("snapshot", (snap) => {
    state.events = snap.events;
    state.pending = new Map(snap.pending.map((o) => [o.offer, o]));
    state.status = snap.status;
    state.stats = snap.stats;
    state.connected = snap.connected;
    state.approver = snap.approver;
    renderAll();
    document.body.dataset.ready = "1";
  });
  on("event", (ev) => {
    addEvent(ev);
    renderSessions();
    if (ev.hooks) renderShadow();
  });
  on("offer", (offer) => {
    state.pending.set(offer.offer, offer);
    renderApprovals();
    tickExpiries();
  });
  on("closed", (approval) => {
    state.pending.delete(approval.offer);
    renderApprovals();
  });
  on("pending", () => {
    state.pending.clear();
    renderApprovals();
  });
  on("status", (status) => {
    state.status = status;
    renderStatus();
  });
  on("stats", (stats) => {
    state.stats = stats;
    renderStats();
  });
  on("daemon", (d) => {
    state.connected = d.connected;
    renderStatus();
  });
  feed.onerror = () => {
    const pill = $("daemon");
    pill.textContent = "reconnecting…";
    pill.className = "pill";
  };
}

function renderAll() {
  renderApprovals();
  renderSessions(); // and the header, which counts the sessions listed
  renderEvents();
  renderStats();
  tickExpiries();
}

for (const id of ["f-point", "f-session", "f-kind", "f-decision"]) {
  $(id).addEventListener("input", renderEvents);
  $(id).addEventListener("change", renderEvents);
}
$("filters").addEventListener("submit", (e) => e.preventDefault());
setInterval(tickExpiries, 1000);
connect();
