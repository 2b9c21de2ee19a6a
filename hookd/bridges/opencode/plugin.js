// hookd's opencode plugin, written by `hookd bridge install opencode`; `hookd bridge uninstall opencode`
// removes it. Every plugin event goes to hookd through hookd-client: blockable events as decide, the others
// as emit. The outcome is applied the plugin way: `output` changed in place, a deny thrown as the block.
import { Client, encodeFrame } from "__HOOKD_CLIENT__";

const OPTIONS = __HOOKD_OPTIONS__;

// The events opencode (and the CLIs derived from it) hand to plugins, and whether each can block.
const BLOCKABLE = [
  "chat.message", "chat.params", "chat.headers", "user.approval", "command.execute.before",
  "tool.execute.before", "tool.execute.after", "tool.definition", "shell.env", "permission.ask",
  "experimental.chat.messages.transform", "experimental.chat.system.transform",
  "experimental.session.compacting", "experimental.text.complete",
];
const OBSERVED = ["chat.response", "chat.error", "chat.compression", "chat.finished", "turn.end", "config"];

// What `hookd tail` names a stream delta by; these arrive per token and are not forwarded one by one.
const QUIET_BUS_EVENTS = new Set(["message.part.delta"]);

function plain(value) {
  // What msgpack can carry: functions, cycles and class instances become what JSON makes of them.
  try {
    return JSON.parse(JSON.stringify(value ?? {}, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
  } catch {
    return {};
  }
}

// Each distinct warning once: with hookd down, every event of every turn would say the same.
const warned = new Set();
function warn(text) {
  if (warned.has(text)) return;
  if (warned.size < 1000) warned.add(text);
  process.stderr.write(`hookd: ${text}\n`);
}

class Blocked extends Error {
  constructor(message) {
    super(message);
    this.name = "HookdBlocked";
  }
}

export const HookdPlugin = async (ctx) => {
  const project = ctx?.worktree && ctx.worktree !== "/" ? ctx.worktree : ctx?.directory;
  // A daemon that went away gets a short while to come back (a restart), not the whole call budget per event.
  const client = new Client({ name: "opencode", reconnect: Math.min(OPTIONS.timeout, 2) });

  async function withDeadline(promise) {
    let timer;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${OPTIONS.timeout} s`)), OPTIONS.timeout * 1000);
    });
    try {
      return await Promise.race([promise, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  function where(input) {
    const out = {};
    if (typeof input?.sessionID === "string" && input.sessionID) out.session = input.sessionID;
    if (typeof project === "string" && project.startsWith("/")) out.project = project;
    return out;
  }

  function payloadFor(event, input, output) {
    const p = plain(input);
    if (event === "tool.execute.before") {
      p.args = plain(output?.args);
    } else if (event === "tool.execute.after") {
      p.output = output?.output;
      p.title = output?.title;
      p.metadata = plain(output?.metadata);
    } else {
      p.output = plain(output);
    }
    return p;
  }

  function apply(event, outcome, output) {
    if (outcome.modifiedInput && event === "tool.execute.before" && output?.args) {
      for (const key of Object.keys(output.args)) delete output.args[key];
      Object.assign(output.args, outcome.modifiedInput);
    }
    const mo = outcome.modifiedOutput;
    if (mo !== null && mo !== undefined && output && typeof output === "object") {
      if (event === "tool.execute.after" && typeof mo === "string") output.output = mo;
      else if (typeof mo === "object" && !Array.isArray(mo)) Object.assign(output, mo);
    }
    if (outcome.injection) {
      if (event === "tool.execute.after" && typeof output?.output === "string") output.output += `\n\n${outcome.injection}`;
      else if (event === "experimental.chat.system.transform" && Array.isArray(output?.system)) output.system.push(outcome.injection);
    }
    for (const n of outcome.not_run) warn(`guard '${n.hook?.name}' did not run: ${n.reason} (${n.message})`);
    if (event === "permission.ask" && outcome.decision && output) {
      output.status = outcome.decision;
      return;
    }
    const unknownGuard = outcome.not_run.find((n) => n.hook?.name === "*");
    if (outcome.decision === "deny") {
      const by = outcome.decided_by ? ` (${outcome.decided_by.name})` : "";
      throw new Blocked(`Blocked by hookd${by}: ${outcome.reason ?? "denied"}`);
    }
    if (outcome.decision === "ask") {
      // A plugin cannot ask the user; a guard that wants a confirmation must not pass silently.
      throw new Blocked(`Blocked by hookd: a hook asks for confirmation, which opencode plugins cannot show${outcome.reason ? `: ${outcome.reason}` : ""}`);
    }
    if (unknownGuard && outcome.decision !== "allow") {
      throw new Blocked(`Blocked by hookd: a hooks file could not be loaded, so its guards are unknown: ${unknownGuard.message}`);
    }
  }

  // A call larger than the daemon's frame limit cannot be sent. When a guard would have seen it, it is blocked
  // (fail closed); when none is configured, opencode proceeds.
  async function tooLarge(event, payload, scope) {
    const welcome = client.welcome ?? (await withDeadline(client.open()));
    let size;
    try {
      size = encodeFrame({ type: "decide", id: 1, point: event, payload, ...scope }).length - 4;
    } catch (err) {
      size = Infinity;
    }
    if (size <= welcome.limits.max_frame) return false;
    const chain = await withDeadline(client.request({ type: "explain", point: event, ...scope }));
    const guards = (chain.decision_hooks ?? []).filter((h) => h.enabled !== false && h.trusted !== false).map((h) => h.name);
    const what = `the ${event} input is ${size} bytes, over hookd's frame limit of ${welcome.limits.max_frame} bytes`;
    if (guards.length) throw new Blocked(`Blocked by hookd: ${what}; the guard(s) ${guards.join(", ")} could not see it, so it is denied`);
    warn(`${what}; no guard is configured for it, so opencode proceeds`);
    return true;
  }

  async function decide(event, input, output) {
    let outcome;
    try {
      const payload = payloadFor(event, input, output);
      const scope = where(input);
      if (await tooLarge(event, payload, scope)) return;
      outcome = await withDeadline(client.decide(event, payload, scope));
    } catch (err) {
      if (err instanceof Blocked) throw err;
      const why = `${event} not checked: ${err?.message ?? err}`;
      if (OPTIONS.failClosed && event === "tool.execute.before") throw new Blocked(`Blocked by hookd: ${why}`);
      warn(`${why}; opencode proceeds`);
      return;
    }
    apply(event, outcome, output);
  }

  function emit(point, input, extra = {}) {
    client.emit(point, { ...plain(input), ...extra }, where(input)).catch((err) => warn(`${point} not sent: ${err?.message ?? err}`));
  }

  const hooks = {};
  for (const event of BLOCKABLE) hooks[event] = (input, output) => decide(event, input, output);
  for (const event of OBSERVED) hooks[event] = async (input, output) => emit(event, input, output === undefined ? {} : { output: plain(output) });
  hooks.event = async ({ event } = {}) => {
    if (!event || QUIET_BUS_EVENTS.has(event.type)) return;
    const props = event.properties ?? {};
    const session = props.sessionID ?? props.info?.sessionID ?? (event.type?.startsWith("session.") ? props.info?.id : undefined);
    emit("event", { sessionID: session, type: event.type, properties: props });
  };
  return hooks;
};
