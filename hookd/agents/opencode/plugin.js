// hookd's opencode plugin, written by `hookd bridge install opencode`; `hookd bridge uninstall opencode`
// removes it. Every plugin event goes to hookd through hookd-client (bundled beside this file, no npm package):
// blockable events as decide, the others as emit. A tool call is first decided on tool.approval.pre in hookd's
// tool vocabulary (so one guard on `execute_command` covers opencode's `bash` as every other agent's shell), then
// on tool.execute.before as opencode names it. The outcome is applied the plugin way: `output` changed in place,
// a deny thrown as the block. Every payload names the agent: `agent: "opencode"`.
import { Client, HookdError, encodeFrame } from "__HOOKD_CLIENT__";

const OPTIONS = __HOOKD_OPTIONS__;
const AGENT = "opencode";
// hookd's tool vocabulary as hookd/core/vocabulary.py's table() gave it at install.
const VOCABULARY = __HOOKD_VOCABULARY__;
// __HOOKD_INCLUDE vocabulary.js__

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

// __HOOKD_INCLUDE plain.js__ plain(value): what msgpack can carry, or Unsendable

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

  // __HOOKD_INCLUDE deadline.js__ withDeadline(promise): the call given up after OPTIONS.timeout seconds

  function where(input) {
    const out = {};
    if (typeof input?.sessionID === "string" && input.sessionID) out.session = input.sessionID;
    if (typeof project === "string" && project.startsWith("/")) out.project = project;
    return out;
  }

  // The payload names the agent; opencode's own `agent` (its mode: build, plan) is kept as `opencodeAgent`.
  function named(p) {
    if (has(p, "agent")) p.opencodeAgent = p.agent;
    p.agent = AGENT;
    return p;
  }

  function payloadFor(event, input, output) {
    const p = named(plain(input));
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

  function replaceArgs(output, args) {
    for (const key of Object.keys(output.args)) delete output.args[key];
    Object.assign(output.args, args);
  }

  function refuse(outcome) {
    for (const n of outcome.not_run) warn(`guard '${n.hook?.name}' did not run: ${n.reason} (${n.message})`);
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

  function apply(event, outcome, output) {
    if (outcome.modifiedInput && event === "tool.execute.before" && output?.args) replaceArgs(output, outcome.modifiedInput);
    const mo = outcome.modifiedOutput;
    if (mo !== null && mo !== undefined && output && typeof output === "object") {
      if (event === "tool.execute.after" && typeof mo === "string") output.output = mo;
      else if (typeof mo === "object" && !Array.isArray(mo)) Object.assign(output, mo);
    }
    if (outcome.injection) {
      if (event === "tool.execute.after" && typeof output?.output === "string") output.output += `\n\n${outcome.injection}`;
      else if (event === "experimental.chat.system.transform" && Array.isArray(output?.system)) output.system.push(outcome.injection);
    }
    if (event === "permission.ask" && outcome.decision && output) {
      for (const n of outcome.not_run) warn(`guard '${n.hook?.name}' did not run: ${n.reason} (${n.message})`);
      output.status = outcome.decision;
      return;
    }
    refuse(outcome);
  }

  // A call that cannot be sent (larger than the daemon's frame limit, nested deeper than it can be encoded, not
  // readable at all). When a guard would have seen it, it is blocked (fail closed); when none is configured,
  // opencode proceeds.
  async function unsendable(event, scope, what) {
    const chain = await withDeadline(client.request({ type: "explain", point: event, ...scope }));
    const guards = (chain.decision_hooks ?? []).filter((h) => h.enabled !== false && h.trusted !== false).map((h) => h.name);
    if (guards.length) throw new Blocked(`Blocked by hookd: ${what}; the guard(s) ${guards.join(", ")} could not see it, so it is denied`);
    warn(`${what}; no guard is configured for it, so opencode proceeds`);
  }

  // __HOOKD_INCLUDE oversize.js__ tooLarge(point, payload, where): whether the call is over the frame limit (then said unsendable)

  // The outcome of deciding `point` with `payload`; null when it was too large and no guard would have seen it.
  // Throws Blocked, or the error that kept hookd from answering.
  async function ask(point, payload, scope) {
    if (await tooLarge(point, payload, scope)) return null;
    return await withDeadline(client.decide(point, payload, scope));
  }

  // A tool call hookd could not be asked about: blocked under failClosed, else it proceeds with a warning. One
  // that hookd was asked about and answered with an error (it could not handle it) is blocked either way: only a
  // hookd that cannot be reached at all leaves the choice to failClosed.
  function unchecked(what, err) {
    if (err instanceof Blocked) throw err;
    const why = `${what} not checked: ${err?.message ?? err}`;
    if (answered(err) || OPTIONS.failClosed) throw new Blocked(`Blocked by hookd: ${why}`);
    warn(`${why}; opencode proceeds`);
  }

  const UNREACHED = new Set(["not_running", "connection_lost", "untrusted_daemon"]);
  function answered(err) {
    return err instanceof HookdError && !UNREACHED.has(err.code);
  }

  async function decide(event, input, output) {
    let outcome;
    try {
      let payload;
      try {
        payload = payloadFor(event, input, output);
      } catch (err) {
        if (!(err instanceof Unsendable)) throw err;
        await unsendable(event, where(input), `the ${event} input cannot be handed to hookd: ${err.message}`);
        return;
      }
      outcome = await ask(event, payload, where(input));
    } catch (err) {
      if (event === "tool.execute.before") return unchecked(event, err);
      if (err instanceof Blocked) throw err;
      warn(`${event} not checked: ${err?.message ?? err}; opencode proceeds`);
      return;
    }
    if (outcome) apply(event, outcome, output);
  }

  // A tool call: decided on tool.approval.pre in hookd's vocabulary, its deny, ask or rewrite applied (the rewrite
  // in opencode's argument names), then on tool.execute.before as opencode names it.
  async function beforeTool(input, output) {
    const tool = input?.tool;
    let payload;
    let outcome;
    try {
      let args;
      try {
        args = plain(output?.args);
      } catch (err) {
        if (!(err instanceof Unsendable)) throw err;
        await unsendable("tool.approval.pre", where(input), `the ${tool} call cannot be handed to hookd: ${err.message}`);
        return;
      }
      const sent = { toolName: tool, args };
      if (typeof input?.sessionID === "string") sent.sessionID = input.sessionID;
      if (typeof input?.callID === "string") sent.callID = input.callID;
      payload = canonical(sent, AGENT);
      outcome = await ask("tool.approval.pre", payload, where(input));
    } catch (err) {
      // hookd could not be asked: tool.execute.before would not be either.
      unchecked("tool.approval.pre and tool.execute.before", err);
      return;
    }
    if (outcome) {
      refuse(outcome);
      if (isObject(outcome.modifiedInput) && output?.args) replaceArgs(output, agentArgs(AGENT, tool, outcome.modifiedInput, payload.args));
    }
    await decide("tool.execute.before", input, output);
  }

  function emit(point, input, extra = {}) {
    client.emit(point, named({ ...plain(input), ...extra }), where(input)).catch((err) => warn(`${point} not sent: ${err?.message ?? err}`));
  }

  const hooks = {};
  for (const event of BLOCKABLE) hooks[event] = (input, output) => decide(event, input, output);
  hooks["tool.execute.before"] = beforeTool;
  for (const event of OBSERVED) hooks[event] = async (input, output) => emit(event, input, output === undefined ? {} : { output: plain(output) });
  hooks.event = async ({ event } = {}) => {
    if (!event || QUIET_BUS_EVENTS.has(event.type)) return;
    const props = event.properties ?? {};
    const session = props.sessionID ?? props.info?.sessionID ?? (event.type?.startsWith("session.") ? props.info?.id : undefined);
    emit("event", { sessionID: session, type: event.type, properties: props });
  };
  return hooks;
};
