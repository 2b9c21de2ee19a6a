/**
 * The client's record of the sessions it attached and the handlers it serves, replayed (attach_hooks with
 * `fresh`) on every new connection before anything else is sent. Handles the caller holds stay valid across a
 * daemon restart: each maps to the daemon's handle of now.
 */
import type { CallbackHook, Handler, HookSpec, HookType, OnError } from "./types.js";

export interface CallbackSpecWire {
  cb: number;
  name: string;
  point: string;
  type: HookType;
  priority?: number;
  timeout?: number | null;
  on_error?: OnError;
}

export type WireEntry = { kind: "command"; spec: HookSpec } | { kind: "callback"; spec: CallbackSpecWire };

interface Entry {
  wire: WireEntry;
  handle: string;
  current: string;
}

interface SessionRecord {
  project: string | null;
  entries: Entry[];
}

export class Book {
  readonly sessions = new Map<string, SessionRecord>();
  readonly served = new Map<number, Handler>();
  private readonly handles = new Map<string, { session: string; entry: Entry }>();
  private nextCb = 1;
  private nextAlias = 2;

  get serving(): boolean {
    return this.served.size > 0;
  }

  /** The wire form of one hook; a callback hook's handler gets a number and is served from now on. */
  entryFor(hook: CallbackHook | HookSpec): WireEntry {
    if ("handler" in hook) {
      if (typeof hook.handler !== "function") throw new TypeError("a callback hook's handler must be a function");
      const cb = this.nextCb++;
      this.served.set(cb, hook.handler);
      const spec: CallbackSpecWire = {
        cb,
        name: hook.name ?? (hook.handler.name || `callback-${cb}`),
        point: hook.point,
        type: hook.type ?? "decision",
      };
      if (hook.priority !== undefined) spec.priority = hook.priority;
      if (hook.timeout !== undefined) spec.timeout = hook.timeout;
      if (hook.on_error !== undefined) spec.on_error = hook.on_error;
      return { kind: "callback", spec };
    }
    return { kind: "command", spec: hook };
  }

  /** Stop serving the handlers of entries the daemon refused. */
  dropUnrecorded(entries: WireEntry[]): void {
    for (const e of entries) if (e.kind === "callback") this.served.delete(e.spec.cb);
  }

  /** Record an attach the daemon accepted; returns the handles the caller gets. */
  attached(session: string, project: string | null, entries: WireEntry[], handles: string[]): string[] {
    let rec = this.sessions.get(session);
    if (!rec) {
      rec = { project, entries: [] };
      this.sessions.set(session, rec);
    } else if (project !== null) {
      rec.project = project;
    }
    const out: string[] = [];
    entries.forEach((wire, i) => {
      const theirs = handles[i] ?? "";
      const entry: Entry = { wire, handle: this.unique(theirs), current: theirs };
      rec.entries.push(entry);
      this.handles.set(entry.handle, { session, entry });
      out.push(entry.handle);
    });
    return out;
  }

  /** The requests that re-create every recorded session, in order. */
  restoreRequests(nextId: () => number): Array<{ type: "attach_hooks"; id: number; session: string; project?: string; hooks: WireEntry[]; fresh: true }> {
    return [...this.sessions.entries()].map(([session, rec]) => ({
      type: "attach_hooks" as const,
      id: nextId(),
      session,
      ...(rec.project !== null ? { project: rec.project } : {}),
      hooks: rec.entries.map((e) => e.wire),
      fresh: true as const,
    }));
  }

  /** Map a restored session's new handles onto the recorded ones ("" when the daemon gave none: gone). */
  restored(session: string, handles: string[]): void {
    const rec = this.sessions.get(session);
    if (!rec) return;
    rec.entries.forEach((entry, i) => {
      entry.current = handles[i] ?? "";
    });
  }

  /** The daemon's handle now for the caller's `handle`, "" if its hook is gone, or `handle` if unknown. */
  current(handle: string): string {
    const known = this.handles.get(handle);
    return known ? known.entry.current : handle;
  }

  forgetHandle(handle: string): void {
    const known = this.handles.get(handle);
    if (!known) return;
    this.handles.delete(handle);
    const rec = this.sessions.get(known.session);
    if (rec) rec.entries = rec.entries.filter((e) => e !== known.entry);
    if (known.entry.wire.kind === "callback") this.served.delete(known.entry.wire.spec.cb);
  }

  forgetSession(session: string): void {
    const rec = this.sessions.get(session);
    if (!rec) return;
    this.sessions.delete(session);
    for (const entry of rec.entries) {
      this.handles.delete(entry.handle);
      if (entry.wire.kind === "callback") this.served.delete(entry.wire.spec.cb);
    }
  }

  private unique(handle: string): string {
    // A restarted daemon may hand out a handle the caller still holds from the one before: alias it.
    if (!this.handles.has(handle)) return handle;
    for (;;) {
      const alias = `${handle}~${this.nextAlias++}`;
      if (!this.handles.has(alias)) return alias;
    }
  }
}
