/**
 * The event stream on a dedicated connection: `for await (const item of sub)` yields events, gap notices and
 * the `live` marker in the daemon's order.
 *
 * With `resume` (the default) a lost connection is reopened and the stream picks up after the last seq it
 * delivered (`since_seq`), so nothing is skipped silently: what the new daemon no longer has arrives as a
 * `gap` of reason `history`.
 */
import { Connection } from "./connection.js";
import { DaemonNotTrusted, HookdError } from "./errors.js";
import type { Frame, StreamItem } from "./types.js";

export interface SubscribeOptions {
  /** Shell globs on the point, e.g. `tool.*`. */
  points?: string[];
  sessions?: string[];
  projects?: string[];
  /** Replay every matching event with seq >= sinceSeq first. */
  sinceSeq?: number;
  /** Replay the matching events at most this many seconds old first. */
  sinceAge?: number;
  /** false: end the stream after the replay (`live`). Default true. */
  follow?: boolean;
  queue?: number;
  queueBytes?: number;
  /** Reopen a lost stream after the last delivered seq (default true while following). */
  resume?: boolean;
}

export class Subscription implements AsyncIterable<StreamItem> {
  /** The `subscribed` reply of the current connection, once it came. */
  subscribed?: Frame;
  private readonly items: StreamItem[] = [];
  private waiter?: { resolve: () => void };
  private ended = false;
  private failure?: Error;
  private conn?: Connection;
  private lastSeq?: number;
  private nextId = 1;
  private readonly started: Promise<Frame>;

  constructor(
    private readonly path: string,
    private readonly name: string,
    private readonly options: SubscribeOptions,
    private readonly onEnd: () => void,
  ) {
    this.started = this.start(true);
    this.started.catch(() => undefined);
  }

  /** Resolves with the `subscribed` reply (or rejects with why the subscription failed). */
  ready(): Promise<Frame> {
    return this.started;
  }

  close(): void {
    this.ended = true;
    this.conn?.close();
    this.wake();
    this.onEnd();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamItem> {
    for (;;) {
      const item = this.items.shift();
      if (item) {
        yield item;
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.waiter = { resolve };
      });
    }
  }

  private async start(first: boolean): Promise<Frame> {
    const o = this.options;
    const request: { type: string; id: number } & Record<string, unknown> = { type: "subscribe", id: 0 };
    if (o.points) request.points = o.points;
    if (o.sessions) request.sessions = o.sessions;
    if (o.projects) request.projects = o.projects;
    if (this.lastSeq !== undefined) request.since_seq = this.lastSeq + 1;
    else if (o.sinceSeq !== undefined) request.since_seq = o.sinceSeq;
    else if (o.sinceAge !== undefined) request.since_age = o.sinceAge;
    if (o.follow === false) request.follow = false;
    if (o.queue !== undefined) request.queue = o.queue;
    if (o.queueBytes !== undefined) request.queue_bytes = o.queueBytes;
    const conn = await this.openRetrying(first);
    this.conn = conn;
    request.id = this.nextId++;
    const reply = await conn.request(request);
    if (reply.type === "error") {
      conn.close();
      const err = new HookdError(String(reply.code), String(reply.message));
      this.fail(err);
      throw err;
    }
    this.subscribed = reply;
    return reply;
  }

  private async openRetrying(first: boolean): Promise<Connection> {
    let delay = 10;
    for (;;) {
      try {
        return await Connection.open(
          this.path,
          this.name,
          () => this.nextId++,
          (frame) => this.frame(frame),
          (c) => this.lost(c),
        );
      } catch (err) {
        if (first || this.ended || err instanceof DaemonNotTrusted || !(err instanceof HookdError)) {
          this.fail(err as Error);
          throw err;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 250);
      }
    }
  }

  private frame(frame: Frame): void {
    if (frame.type === "event") {
      this.lastSeq = Number(frame.seq);
      this.push(withDefaults(frame));
    } else if (frame.type === "gap") {
      this.push({ type: "gap", missed: Number(frame.missed), first: Number(frame.first), last: Number(frame.last), reason: frame.reason === "history" ? "history" : "overflow" });
    } else if (frame.type === "live") {
      this.push({ type: "live", seq: Number(frame.seq) });
      if (this.options.follow === false) {
        this.ended = true;
        this.conn?.close();
        this.onEnd();
      }
    }
  }

  private lost(conn: Connection): void {
    if (conn !== this.conn || this.ended) return;
    if (this.options.resume === false || this.options.follow === false) {
      this.fail(new HookdError("connection_lost", "the event stream's connection was lost"));
      return;
    }
    this.start(false).catch(() => undefined);
  }

  private fail(err: Error): void {
    this.failure = err;
    this.ended = true;
    this.wake();
    this.onEnd();
  }

  private push(item: StreamItem): void {
    this.items.push(item);
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.resolve();
  }
}

function withDefaults(f: Frame): StreamItem {
  return {
    type: "event",
    seq: Number(f.seq),
    time: Number(f.time),
    kind: f.kind as "emit" | "decide" | "internal",
    point: String(f.point),
    session: (f.session as string | undefined) ?? null,
    project: (f.project as string | undefined) ?? null,
    payload: (f.payload as Record<string, unknown> | undefined) ?? {},
    decision: (f.decision as "allow" | "deny" | "ask" | undefined) ?? null,
    reason: (f.reason as string | undefined) ?? null,
    decided_by: (f.decided_by as never) ?? null,
    errors: Number(f.errors ?? 0),
    duration: (f.duration as number | undefined) ?? null,
    hooks: (f.hooks as never) ?? [],
  };
}
