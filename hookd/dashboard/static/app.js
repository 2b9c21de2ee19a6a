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
  open: new Set(), // seqs whose chain is shown
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

function clock(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString();
}

function ms(value) {
  return value === undefined || value === null ? "" : Number(value).toFixed(value < 10 ? 2 : 0);
}

function short(value, limit) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > limit ? text.slice(0, limit - 1) + "…" : text;
}

function payloadSummary(payload) {
  if (!payload || Object.keys(payload).length === 0) return "";
  let tool = payload.toolName || payload.tool_name;
  if (tool && typeof payload.agentToolName === "string" && payload.agentToolName !== tool) tool = `${tool} (${payload.agentToolName})`;
  const args = payload.args !== undefined ? payload.args : payload.tool_input;
  if (tool) return `${tool} ${args !== undefined ? short(args, 160) : ""}`;
  return short(payload, 160);
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

function eventRow(ev, fresh) {
  const decision = ev.decision || "";
  const text = ev.reason ? ev.reason : payloadSummary(ev.payload);
  const row = el(
    "tr",
    { class: `row kind-${ev.kind}${fresh ? " fresh" : ""}`, "data-seq": ev.seq, "data-point": ev.point, onclick: () => toggle(ev.seq) },
    el("td", { class: "num", text: ev.seq }),
    el("td", { text: clock(ev.time) }),
    el("td", { text: ev.kind }),
    el("td", { text: ev.point }),
    el("td", { text: ev.session || "" }),
    el("td", { text: agentOf(ev) }),
    el("td", { class: decision ? `decision-${decision}` : "", text: decision }),
    el("td", { class: "num", text: ms(ev.duration) }),
    el("td", { class: "wrap", text: short(text || "", 200) }),
  );
  return row;
}

function chainDetail(ev) {
  const parts = [];
  if (Array.isArray(ev.hooks) && ev.hooks.length) {
    const body = el("tbody");
    for (const run of ev.hooks) {
      const what = run.skipped ? `skipped (${run.skipped})` : run.error ? `${run.error}: ${run.message || ""}` : run.decision || "abstained";
      body.append(
        el(
          "tr",
          { class: "hook-run" },
          el("td", {}, run.hook.name, run.shadow ? el("span", { class: "shadow-tag", text: "shadow" }) : null),
          el("td", { text: `${run.hook.scope} · ${run.type || "decision"}` }),
          el("td", { class: run.decision ? `decision-${run.decision}` : "", text: what }),
          el("td", { class: "num", text: run.ms !== undefined ? `${ms(run.ms)} ms` : "" }),
          el("td", { class: "wrap", text: run.reason || "" }),
        ),
      );
    }
    parts.push(
      el("table", { class: "chain" }, el("thead", {}, el("tr", {}, ...["hook", "scope · type", "answer", "time", "reason"].map((h) => el("th", { text: h })))), body),
    );
  } else if (ev.kind === "decide") {
    const by = ev.decided_by ? `decided by ${ev.decided_by.name} (${ev.decided_by.scope}, ${ev.decided_by.source})` : "no hook decided";
    parts.push(el("p", { class: "note", text: `${by}${ev.duration !== undefined ? `; the chain took ${ms(ev.duration)} ms` : ""}` }));
  }
  if (ev.errors) parts.push(el("p", { class: "note", text: `${ev.errors} hook(s) failed` }));
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

function renderSessions() {
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
  const rows = [...sessions.values()]
    .sort((a, b) => b.last - a.last)
    .map((s) =>
      el(
        "tr",
        { "data-session": s.id },
        el("td", { text: s.id + (s.ended ? " (ended)" : "") }),
        el("td", { text: s.agent || "—" }),
        el("td", { class: "wrap", text: s.project || "" }),
        el("td", { class: "num", text: s.calls }),
        el("td", { class: "num", text: s.denied }),
        el("td", { text: clock(s.last) }),
      ),
    );
  $("sessions").tBodies[0].replaceChildren(...rows);
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

function countsCells(c) {
  return [c.calls, ms(c.p50), ms(c.p95), ms(c.p99), c.errors || 0, c.timeouts || 0, c.denies || 0, c.asks || 0].map((v) =>
    el("td", { class: "num", text: v === undefined ? "" : v }),
  );
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
  const rows = (stats.hooks || []).map((h) =>
    el(
      "tr",
      { "data-hook": h.hook.name },
      el("td", {}, h.hook.name, h.shadow ? el("span", { class: "shadow-tag", text: "shadow" }) : null),
      el("td", { text: h.point }),
      ...countsCells(h.life || {}),
    ),
  );
  const points = (stats.points || []).map((p) =>
    el("tr", { class: "point-row", "data-point": p.name }, el("td", { class: "note", text: "whole chain" }), el("td", { text: p.name }), ...countsCells(p.life || {})),
  );
  box.replaceChildren(
    el("table", {}, el("thead", {}, el("tr", {}, ...head.map((h, i) => el("th", { class: i > 1 ? "num" : "", text: h })))), el("tbody", {}, ...rows, ...points)),
    el("p", { class: "note", text: "over the daemon's life: durations in ms; err: failed, t/o: timed out; deny/ask: answers (a shadow hook's would-be answers)" }),
  );
  renderShadow();
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
        el("thead", {}, el("tr", {}, ...["shadow hook", "calls", "would deny", "would ask"].map((h) => el("th", { text: h })))),
        el(
          "tbody",
          {},
          ...shadowHooks.map((h) =>
            el("tr", {}, el("td", { text: h.hook.name }), el("td", { class: "num", text: h.life.calls }), el("td", { class: "num", text: h.life.denies || 0 }), el("td", { class: "num", text: h.life.asks || 0 })),
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
      parts.push(el("div", { class: "wrap", text: `#${ev.seq} ${ev.point}: ${run.hook.name} would ${run.decision}${run.reason ? ` (${run.reason})` : ""}` }));
    }
  }
  if (!parts.length) parts.push(el("p", { class: "note", text: "No shadow guard has answered yet." }));
  box.replaceChildren(...parts);
}

// ------------------------------------------------------------------- status

function renderStatus() {
  const pill = $("daemon");
  pill.textContent = state.connected ? "live" : "disconnected";
  pill.className = `pill ${state.connected ? "up" : "down"}`;
  const s = state.status;
  $("summary").textContent = s
    ? `hookd ${s.version} · pid ${s.pid} · ${s.sessions} sessions · ${s.hooks} hooks · ${s.decides || 0} decides · ${s.emits || 0} emits · ${s.connections} connections`
    : "";
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
  renderStatus();
  renderApprovals();
  renderSessions();
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
