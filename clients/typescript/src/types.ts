/** The wire's messages as TypeScript types (docs/protocol.md). Fields the daemon omits take their defaults. */

export type DecisionKind = "allow" | "deny" | "ask";
export type HookType = "observer" | "decision";
export type OnError = "continue" | "deny" | "ask";
export type Scope = "session" | "project" | "global";

/** What a decision hook answers (seed 000's HookDecision); `null` abstains. */
export interface HookDecision {
  decision?: DecisionKind | "continue" | null;
  reason?: string | null;
  injection?: string | null;
  modifiedInput?: Record<string, unknown> | null;
  modifiedOutput?: unknown;
  /** What the agent's bridge passes on that HookDecision has no field for (docs/protocol.md). */
  agentOutput?: Record<string, unknown> | null;
}

/** A command hook, as in YAML files and on the wire. */
export interface HookSpec {
  name: string;
  point: string;
  type: HookType;
  command: string;
  description?: string;
  args?: string[];
  env?: Record<string, string>;
  priority?: number;
  enabled?: boolean;
  timeout?: number | null;
  on_error?: OnError;
  match?: Record<string, string>;
  cwd?: string | null;
  mode?: "spawn" | "persistent";
  concurrency?: number;
}

export interface HookRef {
  name: string;
  scope: Scope;
  source: string;
}

export interface HookError {
  hook: HookRef;
  code: string;
  message: string;
}

export interface NotRun {
  hook: HookRef;
  reason: string;
  message: string;
}

export interface Limits {
  max_frame: number;
  hook_timeout: number;
  max_inflight: number;
}

export interface Welcome {
  type: "welcome";
  id: number;
  protocol: number;
  server: string;
  version: string;
  pid: number;
  limits: Limits;
}

export interface Accepted {
  observers: number;
  errors: HookError[];
}

export interface Outcome {
  decision: DecisionKind | null;
  reason: string | null;
  injection: string | null;
  modifiedInput: Record<string, unknown> | null;
  modifiedOutput: unknown;
  decided_by: HookRef | null;
  errors: HookError[];
  not_run: NotRun[];
  /** With `trace: true` on the decide: each hook of the call, in order (docs/observe.md); else null. */
  trace: TraceEntry[] | null;
}

/** Why a hook of a call did not run: a NotRun reason, or `match`, `decided`, `disabled`. */
export type SkipReason = string;

/** One hook of a decide as it went (on decide events): its answer, milliseconds, failure or why it did not run. */
export interface HookRun {
  hook: HookRef;
  type?: "decision" | "observer";
  decision?: DecisionKind;
  reason?: string;
  ms?: number;
  error?: "timeout" | "error";
  message?: string;
  skipped?: SkipReason;
  shadow?: boolean;
}

/** One hook of a traced decide: what it was given, its whole answer, excerpts of what it wrote. */
export interface TraceEntry extends HookRun {
  input?: Record<string, unknown>;
  answer?: Record<string, unknown>;
  why?: string;
  stdout?: string;
  stderr?: string;
}

/** Counters and duration quantiles (milliseconds) over one span of time; absent fields are 0 or none. */
export interface Counts {
  calls?: number;
  errors?: number;
  timeouts?: number;
  allows?: number;
  denies?: number;
  asks?: number;
  skips?: Record<string, number>;
  p50?: number;
  p95?: number;
  p99?: number;
  max?: number;
}

/** The reply to `stats` (docs/protocol.md). */
export interface Stats {
  since: number;
  window: number;
  enabled: boolean;
  hooks: { hook: HookRef; point: string; type: string; life: Counts; recent: Counts; shadow?: boolean; last_error?: string; last_error_time?: number }[];
  points: { name: string; life: Counts; recent: Counts }[];
  sessions: { name: string; life: Counts; recent: Counts }[];
}

/** One event of the stream. */
export interface StreamEvent {
  type: "event";
  seq: number;
  time: number;
  kind: "emit" | "decide" | "internal";
  point: string;
  session: string | null;
  project: string | null;
  payload: Record<string, unknown>;
  decision: DecisionKind | null;
  reason: string | null;
  decided_by: HookRef | null;
  errors: number;
  duration: number | null;
  /** A decide's hooks, each one's result (shadow hooks last). */
  hooks: HookRun[];
}

/** Matching events the subscriber did not get: it fell behind (`overflow`) or asked for more history than kept. */
export interface Gap {
  type: "gap";
  missed: number;
  first: number;
  last: number;
  reason: "overflow" | "history";
}

/** The replay is over; what follows is live. */
export interface Live {
  type: "live";
  seq: number;
}

export type StreamItem = StreamEvent | Gap | Live;

/** What a handler gets besides the payload. */
export interface InvokeContext {
  point: string;
  hook: string;
  kind: HookType;
  session: string | null;
  project: string | null;
  /** A journaled call run again by `hookd replay`: answer as you would, without side effects. */
  replay: boolean;
}

/** The agent's own function serving a hook: a HookDecision (or null to abstain), sync or async. */
export type Handler = (
  payload: Record<string, unknown>,
  context: InvokeContext,
) => HookDecision | null | undefined | void | Promise<HookDecision | null | undefined | void>;

/** A hook served by the client's own function. */
export interface CallbackHook {
  point: string;
  handler: Handler;
  type?: HookType;
  name?: string;
  priority?: number;
  timeout?: number | null;
  on_error?: OnError;
}

export type SessionHook = CallbackHook | HookSpec;

/** A raw frame from the daemon. */
export type Frame = { type: string; id?: number } & Record<string, unknown>;
