// hookd's pi extension, written by `hookd bridge install pi`; `hookd bridge uninstall pi` removes it. pi's events go to
// hookd through hookd-client (bundled beside this file, no npm package), each on the point of hookd's table (ROUTES,
// from hookd/agents/pi/protocol.py): the events pi lets an extension answer as decide, the others as emit. A tool call
// is decided on tool.approval.pre in hookd's tool vocabulary, so one guard on `execute_command` covers pi's `bash` as
// every other agent's shell; a deny blocks it with its reason (which the model is told), a rewrite changes its input in
// place. When hookd cannot be asked, a tool call is blocked, naming why (unless installed with --fail-open). Every
// payload names the agent: `agent: "pi"`. Written in the part of TypeScript that is also JavaScript: pi loads it
// through jiti, and Node can import it as a module too.
import { Client, HookdError, encodeFrame } from "__HOOKD_CLIENT__";

const OPTIONS = __HOOKD_OPTIONS__;
const AGENT = "pi";
// hookd's tool vocabulary as hookd/core/vocabulary.py's table() gave it at install.
const VOCABULARY = __HOOKD_VOCABULARY__;
// pi's events and hookd's points: event -> [point, decide], from hookd/agents/pi/protocol.py.
const ROUTES = __HOOKD_ROUTES__;
// __HOOKD_INCLUDE vocabulary.js__

// __HOOKD_INCLUDE plain.js__ plain(value): what msgpack can carry, or Unsendable

// The fields of a pi event that are plain values (its reason, ids, file names), without the large or live ones.
function scalars(event) {
  const out = {};
  for (const [k, v] of Object.entries(event ?? {})) {
    if (k !== "type" && (typeof v === "string" || typeof v === "number" || typeof v === "boolean")) out[k] = v;
  }
  return out;
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

// A hook's refusal: the text pi shows (the tool call's reason the model is told, the prompt's notice).
class Blocked extends Error {}

const UNREACHED = new Set(["not_running", "connection_lost", "untrusted_daemon"]);
function answered(err) {
  return err instanceof HookdError && !UNREACHED.has(err.code);
}

export default function hookd(pi) {
  // A daemon that went away gets a short while to come back (a restart), not the whole call budget per event.
  const client = new Client({ name: "pi", reconnect: Math.min(OPTIONS.timeout, 2) });
  let attached = null; // the session this extension attached
  let notify = null; // pi's own notices when it has a UI (writing to stderr would tear its screen)
  const pending = []; // injections (session start, prompt) for the next turn's context
  const ran = new Set(); // tool calls that reached tool_result (the others were blocked before they ran)

  // Each distinct warning once: with hookd down, every event of every turn would say the same.
  const warned = new Set();
  function warn(text) {
    if (warned.has(text)) return;
    if (warned.size < 1000) warned.add(text);
    if (notify) notify(`hookd: ${text}`);
    else process.stderr.write(`hookd: ${text}\n`);
  }

  // hookd not there at all: one line for every event that could not be sent, not one per point.
  function unreached(err, what) {
    if (err instanceof HookdError && UNREACHED.has(err.code)) {
      const then = OPTIONS.failOpen ? "pi runs tool calls unguarded (--fail-open)" : "pi blocks tool calls";
      warn(`${err.message}: pi's events are not sent to hookd, and ${then} until it answers`);
    } else {
      warn(`${what}: ${err?.message ?? err}`);
    }
  }

  function sessionOf(ctx) {
    try {
      const id = ctx?.sessionManager?.getSessionId?.();
      return typeof id === "string" && id ? id : undefined;
    } catch {
      return undefined; // a context pi has retired (after a session switch)
    }
  }

  function scope(ctx) {
    const out = {};
    const session = sessionOf(ctx);
    if (session) out.session = session;
    let cwd;
    try {
      cwd = ctx?.cwd;
    } catch {
      cwd = undefined;
    }
    if (typeof cwd === "string" && cwd.startsWith("/")) out.project = cwd;
    return out;
  }

  function named(p) {
    p.agent = AGENT;
    return p;
  }

  // __HOOKD_INCLUDE deadline.js__ withDeadline(promise): the call given up after OPTIONS.timeout seconds

  // A call that cannot be sent (larger than the daemon's frame limit, nested deeper than it can be encoded, not
  // readable at all). When a guard would have seen it, it is refused (fail closed); when none is configured, pi
  // proceeds.
  async function unsendable(point, where, what) {
    const chain = await withDeadline(client.request({ type: "explain", point, ...where }));
    const guards = (chain.decision_hooks ?? []).filter((h) => h.enabled !== false && h.trusted !== false).map((h) => h.name);
    if (guards.length) throw new Blocked(`Blocked by hookd: ${what}; the guard(s) ${guards.join(", ")} could not see it, so it is denied`);
    warn(`${what}; no guard is configured for it, so pi proceeds`);
  }

  // __HOOKD_INCLUDE oversize.js__ tooLarge(point, payload, where): whether the call is over the frame limit (then said unsendable)

  // The outcome of deciding `point`; null when the call could not be sent and no guard would have seen it. Throws
  // Blocked, or the error that kept hookd from answering.
  async function ask(point, build, where) {
    let payload;
    try {
      payload = build();
    } catch (err) {
      if (!(err instanceof Unsendable)) throw err;
      await unsendable(point, where, `the ${point} input cannot be handed to hookd: ${err.message}`);
      return null;
    }
    if (await tooLarge(point, payload, where)) return null;
    const outcome = await withDeadline(client.decide(point, payload, { ...where, timeout: OPTIONS.timeout }));
    return { outcome, payload };
  }

  // What refuses the event, as the text pi shows, or null: a deny, an ask (a confirmation pi can show only with a
  // UI), a hooks file that could not be loaded (its guards unknown) unless a hook allowed.
  async function refusal(outcome, ctx, confirm) {
    for (const n of outcome.not_run ?? []) warn(`guard '${n.hook?.name}' did not run: ${n.reason} (${n.message})`);
    if (outcome.decision === "deny") {
      const by = outcome.decided_by ? ` (${outcome.decided_by.name})` : "";
      return `Blocked by hookd${by}: ${outcome.reason ?? "denied"}`;
    }
    if (outcome.decision === "ask") {
      const why = outcome.reason ? `: ${outcome.reason}` : "";
      if (confirm && ctx?.hasUI && typeof ctx.ui?.confirm === "function") {
        let ok = false;
        try {
          ok = await ctx.ui.confirm("hookd: a hook asks for confirmation", outcome.reason ?? "Let this tool call run?");
        } catch {
          ok = false;
        }
        return ok ? null : `Blocked by hookd: the user declined what a hook asked to confirm${why}`;
      }
      return `Blocked by hookd: a hook asks for confirmation, which pi cannot show here${why}`;
    }
    const unknown = (outcome.not_run ?? []).find((n) => n.hook?.name === "*");
    if (unknown && outcome.decision !== "allow") {
      return `Blocked by hookd: a hooks file could not be loaded, so its guards are unknown: ${unknown.message}`;
    }
    return null;
  }

  // A decide for an event other than a tool call: hookd not answering lets pi proceed with a warning; a call that
  // cannot be sent to its guards is refused. Resolves with {outcome, payload}, {refused}, or null.
  async function decide(event, build, ctx) {
    const [point] = ROUTES[event];
    try {
      return await ask(point, build, scope(ctx));
    } catch (err) {
      if (err instanceof Blocked) return { refused: err.message };
      unreached(err, `${point} not checked, pi proceeds`);
      return null;
    }
  }

  function emit(event, build, ctx, point = ROUTES[event][0]) {
    let payload;
    try {
      payload = named(plain(build()));
    } catch (err) {
      warn(`${point} not sent: ${err?.message ?? err}`);
      return Promise.resolve();
    }
    return withDeadline(client.emit(point, payload, scope(ctx))).catch((err) => unreached(err, `${point} not sent`));
  }

  // ------------------------------------------------------------------ tool calls

  // A tool call hookd could not be asked about: blocked, naming why, unless installed with --fail-open. One that
  // hookd was asked about and answered with an error (it could not handle it) is blocked either way.
  function unchecked(point, err) {
    if (err instanceof Blocked) return { block: true, reason: err.message };
    const why = `${point} not checked: ${err?.message ?? err}`;
    if (answered(err) || !OPTIONS.failOpen) return { block: true, reason: `Blocked by hookd: ${why}` };
    unreached(err, `${why}; pi proceeds (--fail-open)`);
    return undefined;
  }

  pi.on("tool_call", async (event, ctx) => {
    const [point] = ROUTES.tool_call;
    const tool = event?.toolName;
    let asked;
    try {
      asked = await ask(
        point,
        () => {
          const sent = { toolName: tool, args: plain(event?.input) };
          if (typeof event?.toolCallId === "string") sent.toolCallId = event.toolCallId;
          return canonical(sent, AGENT);
        },
        scope(ctx),
      );
    } catch (err) {
      return unchecked(point, err);
    }
    if (!asked) return undefined;
    const { outcome, payload } = asked;
    const refused = await refusal(outcome, ctx, true);
    if (refused) return { block: true, reason: refused };
    // pi runs the tool with event.input as the handlers leave it (its documented way to change a call).
    if (isObject(outcome.modifiedInput) && isObject(event?.input)) {
      const args = agentArgs(AGENT, tool, outcome.modifiedInput, payload.args);
      for (const key of Object.keys(event.input)) delete event.input[key];
      Object.assign(event.input, args);
    }
    return undefined;
  });

  pi.on("tool_result", async (event, ctx) => {
    if (typeof event?.toolCallId === "string") {
      if (ran.size >= 10000) ran.clear();
      ran.add(event.toolCallId);
    }
    const build = () => {
      const p = { toolName: event?.toolName, args: plain(event?.input), output: textOf(event?.content), isError: event?.isError === true };
      if (typeof event?.toolCallId === "string") p.toolCallId = event.toolCallId;
      if (event?.details !== undefined) p.details = plain(event.details);
      return canonical(p, AGENT);
    };
    if (event?.isError === true) {
      await emit("tool_result", build, ctx, ROUTES.tool_result_error[0]);
      return undefined;
    }
    const asked = await decide("tool_result", build, ctx);
    if (!asked) return undefined;
    const refused = asked.refused ?? (await refusal(asked.outcome, ctx, false));
    if (refused) return { content: [{ type: "text", text: refused }], isError: true };
    const { outcome } = asked;
    const patch = {};
    const mo = outcome.modifiedOutput;
    if (typeof mo === "string") patch.content = [{ type: "text", text: mo }];
    else if (isObject(mo)) {
      if (typeof mo.content === "string") patch.content = [{ type: "text", text: mo.content }];
      else if (Array.isArray(mo.content)) patch.content = mo.content;
      if (mo.details !== undefined) patch.details = mo.details;
      if (typeof mo.isError === "boolean") patch.isError = mo.isError;
    }
    if (outcome.injection) {
      const content = patch.content ?? (Array.isArray(event?.content) ? event.content : []);
      patch.content = [...content, { type: "text", text: outcome.injection }];
    }
    return Object.keys(patch).length ? patch : undefined;
  });

  pi.on("tool_execution_end", async (event, ctx) => {
    const id = event?.toolCallId;
    if (typeof id === "string" && ran.delete(id)) return;
    // Never reached tool_result: blocked before it ran (by hookd or another extension), or refused by pi.
    await emit(
      "tool_execution_end",
      () => {
        const p = { toolName: event?.toolName, reason: textOf(event?.result?.content) };
        if (typeof id === "string") p.toolCallId = id;
        return canonical(p, AGENT);
      },
      ctx,
    );
  });

  // ------------------------------------------------------------------ the session and its prompts

  pi.on("session_start", async (event, ctx) => {
    if (ctx?.hasUI && typeof ctx.ui?.notify === "function") notify = (text) => ctx.ui.notify(text, "warning");
    const where = scope(ctx);
    if (where.session) {
      try {
        await withDeadline(client.attachSession(where.session, where.project ? { project: where.project } : {}));
        attached = where.session;
      } catch (err) {
        unreached(err, "session not attached");
      }
    }
    const asked = await decide("session_start", () => named(scalars(event)), ctx);
    if (!asked) return;
    const refused = asked.refused ?? (await refusal(asked.outcome, ctx, false));
    if (refused) warn(`${refused} (pi cannot refuse a session start)`);
    if (asked.outcome?.injection) pending.push(asked.outcome.injection);
  });

  pi.on("input", async (event, ctx) => {
    const build = () => {
      const p = named({ prompt: typeof event?.text === "string" ? event.text : "", source: event?.source });
      if (Array.isArray(event?.images) && event.images.length) p.images = event.images.length;
      return p;
    };
    const asked = await decide("input", build, ctx);
    if (!asked) return undefined;
    const refused = asked.refused ?? (await refusal(asked.outcome, ctx, true));
    if (refused) {
      warn(`${refused} (the prompt was not sent)`);
      return { action: "handled" };
    }
    const { outcome } = asked;
    if (outcome.injection) pending.push(outcome.injection);
    const text = isObject(outcome.modifiedInput) ? outcome.modifiedInput.prompt : undefined;
    if (typeof text === "string" && text !== event?.text) return { action: "transform", text };
    return undefined;
  });

  pi.on("before_agent_start", async (event, ctx) => {
    const build = () => named({ prompt: event?.prompt, systemPrompt: event?.systemPrompt });
    const asked = await decide("before_agent_start", build, ctx);
    const result = {};
    if (asked) {
      const refused = asked.refused ?? (await refusal(asked.outcome, ctx, false));
      if (refused) warn(`${refused} (pi cannot stop a prompt here; the input event can)`);
      const outcome = asked.outcome;
      let prompt = typeof event?.systemPrompt === "string" ? event.systemPrompt : "";
      let changed = false;
      if (isObject(outcome?.modifiedOutput) && typeof outcome.modifiedOutput.systemPrompt === "string") {
        prompt = outcome.modifiedOutput.systemPrompt;
        changed = true;
      }
      if (outcome?.injection) {
        prompt = `${prompt}\n\n${outcome.injection}`;
        changed = true;
      }
      if (changed) result.systemPrompt = prompt;
    }
    const notes = pending.splice(0);
    if (notes.length) result.message = { customType: "hookd", content: notes.join("\n\n"), display: false };
    return Object.keys(result).length ? result : undefined;
  });

  // The events pi lets an extension cancel: a deny (or what refuses) cancels them.
  const CANCELABLE = {
    session_before_compact: (event) => ({
      ...scalars(event),
      tokensBefore: event?.preparation?.tokensBefore,
      entries: Array.isArray(event?.branchEntries) ? event.branchEntries.length : undefined,
    }),
    session_before_switch: scalars,
    session_before_fork: scalars,
    session_before_tree: (event) => ({ ...scalars(event), targetId: event?.preparation?.targetId }),
  };
  for (const [name, fields] of Object.entries(CANCELABLE)) {
    pi.on(name, async (event, ctx) => {
      const asked = await decide(name, () => named(plain(fields(event))), ctx);
      if (!asked) return undefined;
      const refused = asked.refused ?? (await refusal(asked.outcome, ctx, false));
      if (!refused) return undefined;
      warn(`${refused} (${name} cancelled)`);
      return { cancel: true };
    });
  }

  // The events pi only tells about.
  const TOLD = {
    agent_start: () => ({}),
    turn_start: (event) => scalars(event),
    turn_end: (event) => ({ ...scalars(event), toolResults: Array.isArray(event?.toolResults) ? event.toolResults.length : 0 }),
    agent_end: (event) => ({ messages: Array.isArray(event?.messages) ? event.messages.length : 0 }),
    session_compact: (event) => ({
      fromExtension: event?.fromExtension === true,
      summary: event?.compactionEntry?.summary,
      tokensBefore: event?.compactionEntry?.tokensBefore,
    }),
    model_select: (event) => ({
      ...scalars(event),
      model: event?.model ? `${event.model.provider}/${event.model.id}` : undefined,
      previousModel: event?.previousModel ? `${event.previousModel.provider}/${event.previousModel.id}` : undefined,
    }),
  };
  for (const [name, fields] of Object.entries(TOLD)) {
    pi.on(name, (event, ctx) => {
      emit(name, () => fields(event), ctx);
    });
  }

  pi.on("session_shutdown", async (event, ctx) => {
    // Observers of the session's last event run before its hooks go away; then the connection closes, so pi exits.
    await emit("session_shutdown", () => scalars(event), ctx);
    if (attached) {
      try {
        await withDeadline(client.disposeSession(attached));
      } catch (err) {
        if (!(err instanceof HookdError && err.code === "not_found")) unreached(err, "session not disposed");
      }
      attached = null;
    }
    await client.close();
  });
}
