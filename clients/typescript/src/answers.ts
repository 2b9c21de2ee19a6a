/**
 * A handler's answer as a frame, whatever the handler did. Sans-IO.
 *
 * Every invoke gets exactly one invoke_result. A handler may throw anything, return something msgpack cannot
 * carry (a function, a symbol, a cycle, a bigint past 64 bits, nesting deeper than the daemon follows),
 * something the daemon would refuse (`decision: "block"`), or an answer larger than a frame: each becomes an
 * error answer naming the hook and what was wrong, so the daemon applies the hook's on_error at once instead
 * of waiting for its timeout.
 */
import { encodeFrame, HEADER_SIZE } from "./framing.js";
import type { HookDecision } from "./types.js";

/** The daemon follows 64 levels in anything foreign; invoke_result -> decision -> modifiedInput takes two. */
export const MAX_DEPTH = 62;
const MAX_ERROR = 4000;
const KINDS = new Set(["allow", "deny", "ask", "continue"]);
const FIELDS = new Set(["decision", "reason", "injection", "modifiedInput", "modifiedOutput", "agentOutput"]);
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

export function describe(err: unknown): string {
  let text: string;
  try {
    if (err instanceof Error) text = err.message ? `${err.name}: ${err.message}` : err.name;
    else text = `thrown ${typeof err}: ${String(err)}`;
  } catch {
    text = "the thrown value could not be read";
  }
  return clip(text, MAX_ERROR);
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, limit - 3) + "...";
}

/** Why `value` cannot travel (a path to the bad part and what it is), or null. */
export function unencodable(value: unknown, path = "decision", depth = 0, seen = new Set<object>()): string | null {
  if (depth > MAX_DEPTH) return `${path} is nested deeper than ${MAX_DEPTH} levels`;
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return null;
    case "number":
      return null;
    case "bigint":
      return value < INT64_MIN || value > UINT64_MAX ? `${path} is an integer outside 64 bits` : null;
    case "function":
    case "symbol":
      return `${path} is a ${typeof value}, which msgpack cannot carry`;
    case "object": {
      if (value === null || value instanceof Uint8Array) return null;
      if (seen.has(value)) return `${path} refers back to itself (a cycle)`;
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) {
            const bad = unencodable(value[i], `${path}[${i}]`, depth + 1, seen);
            if (bad) return bad;
          }
          return null;
        }
        if (value instanceof Map || value instanceof Set || value instanceof Date) {
          return `${path} is a ${value.constructor.name}; answer plain objects, arrays and scalars`;
        }
        for (const [k, v] of Object.entries(value)) {
          const bad = unencodable(v, `${path}.${k}`, depth + 1, seen);
          if (bad) return bad;
        }
        return null;
      } finally {
        seen.delete(value);
      }
    }
    default:
      return `${path} has a type msgpack cannot carry`;
  }
}

/** Why the daemon would refuse `value` as a HookDecision, or null. */
export function invalidDecision(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) return `answered ${Array.isArray(value) ? "an array" : typeof value}, not a HookDecision object or null`;
  const d = value as Record<string, unknown>;
  // An unknown key is an error, not dropped: a misspelt `decison` must not turn a deny into an abstention.
  const unknown = Object.keys(d).filter((key) => !FIELDS.has(key) && d[key] !== undefined); // undefined is never sent
  if (unknown.length) {
    return `answered unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => JSON.stringify(clip(key, 100))).join(", ")}; a HookDecision has only ${[...FIELDS].join(", ")}`;
  }
  if (d.decision !== undefined && d.decision !== null && !KINDS.has(d.decision as string)) {
    return `answered decision ${JSON.stringify(d.decision)}; expected allow, deny, ask, continue or null`;
  }
  for (const key of ["reason", "injection"]) {
    if (d[key] !== undefined && d[key] !== null && typeof d[key] !== "string") return `answered a ${key} that is not text`;
  }
  const mi = d.modifiedInput;
  if (mi !== undefined && mi !== null && (typeof mi !== "object" || Array.isArray(mi))) return "answered a modifiedInput that is not an object";
  const ao = d.agentOutput;
  if (ao !== undefined && ao !== null && (typeof ao !== "object" || Array.isArray(ao))) return "answered an agentOutput that is not an object";
  return null;
}

/** The HookDecision fields, as the daemon reads them (checked by invalidDecision first). */
function pick(d: HookDecision): HookDecision {
  const out: HookDecision = {};
  if (d.decision !== undefined) out.decision = d.decision;
  if (d.reason !== undefined) out.reason = d.reason;
  if (d.injection !== undefined) out.injection = d.injection;
  if (d.modifiedInput !== undefined) out.modifiedInput = d.modifiedInput;
  if (d.modifiedOutput !== undefined) out.modifiedOutput = d.modifiedOutput;
  if (d.agentOutput !== undefined) out.agentOutput = d.agentOutput;
  return out;
}

function failure(call: number, hook: string, what: string): Uint8Array {
  return encodeFrame({ type: "invoke_result", call, error: clip(`handler ${JSON.stringify(clip(hook, 200))} ${what}`, MAX_ERROR) });
}

/** The frame answering invoke `call`: the decision, or an error naming why it cannot be sent. */
export function answerFrame(call: number, hook: string, outcome: { value?: unknown; error?: unknown }, maxFrame?: number): Uint8Array {
  if ("error" in outcome) return failure(call, hook, `failed: ${describe(outcome.error)}`);
  const value = outcome.value ?? null;
  const bad = invalidDecision(value) ?? unencodable(value);
  if (bad) return failure(call, hook, bad);
  let frame: Uint8Array;
  try {
    frame = encodeFrame({ type: "invoke_result", call, decision: value === null ? null : pick(value as HookDecision) });
  } catch (err) {
    return failure(call, hook, `answered a value msgpack cannot carry (${describe(err)})`);
  }
  if (maxFrame !== undefined && frame.length - HEADER_SIZE > maxFrame) {
    return failure(call, hook, `answered ${frame.length - HEADER_SIZE} bytes, over the daemon's frame limit of ${maxFrame} bytes`);
  }
  return frame;
}
