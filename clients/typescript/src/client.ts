/**
 * The hookd client: one connection, any number of requests in flight (pipelining), session hooks served by
 * the caller's own functions, and reconnect with restore.
 *
 * After a lost connection the client reconnects (capped backoff) and re-attaches its sessions before it sends
 * anything else: at once in the background when it serves handlers (the daemon calls them), otherwise on the
 * next call. Requests in flight when the connection was lost fail with ConnectionLost: their outcome is unknown.
 */
import type { Socket } from "node:net";
import { basename } from "node:path";
import { answerFrame } from "./answers.js";
import { Connection } from "./connection.js";
import { ConnectionLost, DaemonNotRunning, HookdError } from "./errors.js";
import { defaultSocketPath } from "./paths.js";
import { Book, type WireEntry } from "./sessions.js";
import { Subscription, type SubscribeOptions } from "./subscription.js";
import type { Accepted, Frame, HookSpec, InvokeContext, Outcome, SessionHook, Stats, Welcome } from "./types.js";

export interface ClientOptions {
  /** The daemon's socket (default: `defaultSocketPath()`). */
  path?: string;
  /** How the daemon names this client in its logs and events (default: the script's name). */
  name?: string;
  /** Seconds a call waits for the daemon to come back after a lost connection (default 10). */
  reconnect?: number;
}

export interface CallOptions {
  session?: string;
  /** An absolute path. */
  project?: string;
}

export interface AttachOptions {
  project?: string;
  hooks?: SessionHook[];
}

type Request = { type: string; id: number } & Record<string, unknown>;

export class Client {
  readonly path: string;
  readonly name: string;
  readonly reconnect: number;
  /** The daemon's welcome on the current connection. */
  welcome?: Welcome;
  /** Sessions the last reconnect could not restore, one error each. */
  restoreErrors: HookdError[] = [];
  private conn?: Connection;
  private connecting?: Promise<Connection>;
  private opening?: Socket; // the socket of a connection not greeted yet
  private readonly book = new Book();
  private nextIdValue = 1;
  private closing = false;
  private subscriptions = new Set<Subscription>();

  constructor(options: ClientOptions = {}) {
    this.path = options.path ?? defaultSocketPath();
    this.name = options.name ?? defaultName();
    this.reconnect = options.reconnect ?? 10;
  }

  /** A connected client. */
  static async connect(options: ClientOptions = {}): Promise<Client> {
    const client = new Client(options);
    await client.open();
    return client;
  }

  /** Connect (or reconnect) now; resolves with the daemon's welcome. */
  async open(): Promise<Welcome> {
    this.closing = false;
    const conn = await this.ready();
    return conn.welcome as Welcome;
  }

  /** Run the observers of `point`; with `wait`, resolve once they finished (their failures in `errors`). */
  async emit(point: string, payload: Record<string, unknown> = {}, options: CallOptions & { wait?: boolean } = {}): Promise<Accepted> {
    const reply = await this.call({ type: "emit", id: 0, point, payload, ...scope(options), ...(options.wait ? { wait: true } : {}) });
    return { observers: num(reply.observers), errors: (reply.errors as Accepted["errors"]) ?? [] };
  }

  /**
   * Run the decision hooks of `point` and resolve with their folded outcome; with `trace`, each hook's account in `trace`.
   * `timeout`: the seconds you will wait for the outcome; every wait of the call inside hookd (hook timeouts, an approval)
   * ends before it, so a fail-closed guard's deny reaches you in time.
   */
  async decide(
    point: string,
    payload: Record<string, unknown> = {},
    options: CallOptions & { trace?: boolean; timeout?: number } = {},
  ): Promise<Outcome> {
    const extra: Record<string, unknown> = {};
    if (options.trace) extra.trace = true;
    if (options.timeout !== undefined && options.timeout > 0) extra.timeout = options.timeout;
    const reply = await this.call({ type: "decide", id: 0, point, payload, ...scope(options), ...extra });
    return outcome(reply);
  }

  /** Per hook, point and session counts and durations, over the daemon's life and the last `window` seconds. */
  async stats(window?: number): Promise<Stats> {
    const reply = await this.call({ type: "stats", id: 0, ...(window !== undefined ? { window } : {}) });
    return {
      since: Number(reply.since),
      window: Number(reply.window),
      enabled: reply.enabled !== false,
      hooks: (reply.hooks as Stats["hooks"]) ?? [],
      points: (reply.points as Stats["points"]) ?? [],
      sessions: (reply.sessions as Stats["sessions"]) ?? [],
    };
  }

  /**
   * Attach `session` (claiming it for this connection) with hooks: command hooks (HookSpec) and hooks served
   * by this program's own functions (`{point, handler, type?, name?, priority?, timeout?, on_error?}`).
   * Resolves with one handle per hook, in order; the handles stay valid across reconnects.
   */
  async attachSession(session: string, options: AttachOptions = {}): Promise<string[]> {
    const entries: WireEntry[] = (options.hooks ?? []).map((h) => this.book.entryFor(h));
    const project = options.project ?? null;
    const message: Request = entries.every((e) => e.kind === "command")
      ? { type: "attach_session", id: 0, session, hooks: entries.map((e) => e.spec as HookSpec) }
      : { type: "attach_hooks", id: 0, session, hooks: entries };
    if (project !== null) message.project = project;
    let reply: Frame;
    try {
      reply = await this.call(message);
    } catch (err) {
      this.book.dropUnrecorded(entries);
      throw err;
    }
    return this.book.attached(session, project, entries, (reply.handles as string[]) ?? []);
  }

  /** Remove the session and its hooks; resolves with how many hooks were removed. */
  async disposeSession(session: string): Promise<number> {
    try {
      const reply = await this.call({ type: "dispose_session", id: 0, session });
      return num(reply.count);
    } finally {
      this.book.forgetSession(session);
    }
  }

  /** Remove one hook by the handle attachSession (or a raw register) gave. */
  async unregister(handle: string): Promise<void> {
    const current = this.book.current(handle);
    if (current === "") {
      this.book.forgetHandle(handle);
      throw new HookdError("stale_handle", `hook ${handle} is gone: its session could not be restored on the restarted daemon`);
    }
    try {
      await this.call({ type: "unregister", id: 0, handle: current });
    } finally {
      this.book.forgetHandle(handle);
    }
  }

  /** Any other request of docs/protocol.md, as a raw frame (`id` is set by the client); an error reply throws. */
  async request(message: { type: string } & Record<string, unknown>): Promise<Frame> {
    return this.call({ ...message, id: 0 });
  }

  /** The event stream on a connection of its own: `for await (const item of client.subscribe({...}))`. */
  subscribe(options: SubscribeOptions = {}): Subscription {
    const sub = new Subscription(this.path, this.name, options, () => this.subscriptions.delete(sub));
    this.subscriptions.add(sub);
    return sub;
  }

  /** Close the connection (the daemon disposes this client's sessions after its grace period) and every subscription. */
  async close(): Promise<void> {
    this.closing = true;
    for (const sub of [...this.subscriptions]) sub.close();
    const conn = this.conn;
    this.conn = undefined;
    conn?.close();
    // A connection still waiting for its welcome (a daemon that accepts and never answers) ends too, or it would
    // keep the process alive.
    this.opening?.destroy();
    await this.connecting?.catch(() => undefined);
  }

  private nextId = (): number => this.nextIdValue++;

  private async call(message: Request): Promise<Frame> {
    // A connection found dead before the request was written (the daemon restarted while this client was
    // idle) is not the caller's problem: send it on a new one, once.
    for (let attempt = 1; ; attempt++) {
      const conn = await this.ready();
      if (conn.closed && attempt === 1) continue;
      const reply = await conn.request({ ...message, id: this.nextId() });
      if (reply.type === "error") throw new HookdError(String(reply.code), String(reply.message));
      return reply;
    }
  }

  /** The current connection, greeted and restored; opening one when needed. */
  private ready(): Promise<Connection> {
    if (this.conn && !this.conn.closed) return Promise.resolve(this.conn);
    if (this.closing) return Promise.reject(new ConnectionLost("the client was closed"));
    if (!this.connecting) {
      const first = this.welcome === undefined;
      this.connecting = this.establish(first ? 0 : this.reconnect).finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  /** Open, greet and restore, retrying with capped backoff for `budget` seconds (Infinity: until closed). */
  private async establish(budget: number): Promise<Connection> {
    const deadline = Date.now() + budget * 1000;
    let delay = 10;
    for (;;) {
      try {
        return await this.openOnce();
      } catch (err) {
        const retryable = err instanceof DaemonNotRunning || err instanceof ConnectionLost;
        if (!retryable || this.closing || Date.now() + delay > deadline) {
          if (retryable && budget > 0 && err instanceof DaemonNotRunning) throw new DaemonNotRunning(this.path, `not back after ${budget} s`);
          throw err;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 250);
      }
    }
  }

  private async openOnce(): Promise<Connection> {
    let conn: Connection;
    try {
      conn = await Connection.open(
        this.path,
        this.name,
        this.nextId,
        (frame) => this.unasked(conn, frame),
        (c) => this.lost(c),
        (socket) => {
          this.opening = socket;
        },
      );
    } finally {
      this.opening = undefined;
    }
    if (this.closing) {
      conn.close();
      throw new ConnectionLost("the client was closed");
    }
    const requests = this.book.restoreRequests(this.nextId);
    const errors: HookdError[] = [];
    await Promise.all(
      requests.map(async (req) => {
        const reply = await conn.request(req);
        this.book.restored(req.session, reply.type === "attached" ? ((reply.handles as string[]) ?? []) : []);
        if (reply.type === "error") errors.push(new HookdError(String(reply.code), `restoring session ${JSON.stringify(req.session)}: ${String(reply.message)}`));
      }),
    );
    this.restoreErrors = errors;
    this.welcome = conn.welcome;
    this.conn = conn;
    return conn;
  }

  private lost(conn: Connection): void {
    if (conn !== this.conn) return;
    this.conn = undefined;
    if (this.book.serving && !this.closing && !this.connecting) {
      // The daemon calls this client's handlers: be back as soon as it is.
      this.connecting = this.establish(Infinity).finally(() => {
        this.connecting = undefined;
      });
      this.connecting.catch(() => undefined);
    }
  }

  private unasked(conn: Connection, frame: Frame): void {
    if (frame.type !== "invoke") return;
    const call = num(frame.call);
    const hook = String(frame.hook ?? "");
    const handler = this.book.served.get(num(frame.cb));
    const maxFrame = conn.welcome?.limits.max_frame;
    if (!handler) {
      conn.send(answerFrame(call, hook, { error: new Error(`this client serves no handler number ${String(frame.cb)}`) }, maxFrame));
      return;
    }
    const context: InvokeContext = {
      point: String(frame.point),
      hook,
      kind: frame.kind === "observer" ? "observer" : "decision",
      session: (frame.session as string | undefined) ?? null,
      project: (frame.project as string | undefined) ?? null,
      replay: frame.replay === true,
    };
    const payload = (frame.payload as Record<string, unknown> | undefined) ?? {};
    // Exactly one answer per invoke, whatever the handler does; on the connection the invoke came on.
    new Promise((resolve) => resolve(handler(payload, context))).then(
      (value) => conn.send(answerFrame(call, hook, { value: context.kind === "observer" ? null : value }, maxFrame)),
      (error) => conn.send(answerFrame(call, hook, { error }, maxFrame)),
    );
  }
}

function defaultName(): string {
  const script = process.argv[1];
  return script ? basename(script) : "node";
}

function scope(options: CallOptions): Record<string, string> {
  const out: Record<string, string> = {};
  if (options.session !== undefined) out.session = options.session;
  if (options.project !== undefined) out.project = options.project;
  return out;
}

function num(value: unknown): number {
  return typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : 0;
}

function outcome(reply: Frame): Outcome {
  return {
    decision: (reply.decision as Outcome["decision"]) ?? null,
    reason: (reply.reason as string | undefined) ?? null,
    injection: (reply.injection as string | undefined) ?? null,
    modifiedInput: (reply.modifiedInput as Record<string, unknown> | undefined) ?? null,
    modifiedOutput: reply.modifiedOutput ?? null,
    decided_by: (reply.decided_by as Outcome["decided_by"]) ?? null,
    errors: (reply.errors as Outcome["errors"]) ?? [],
    not_run: (reply.not_run as Outcome["not_run"]) ?? [],
    trace: (reply.trace as Outcome["trace"]) ?? null,
  };
}
