/** The TypeScript client against a real daemon. */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, ConnectionLost, DaemonNotRunning, DaemonNotTrusted, FrameReader, encodeFrame, type StreamItem } from "../src/index.js";
import { Daemon, PYTHON, until } from "./daemon.js";

const GUARD = `hooks:
  - name: no-rm-rf
    point: tool.execute.before
    type: decision
    command: ${PYTHON}
    args: ["-c", "import json,sys; p=json.load(sys.stdin); c=p.get('args',{}).get('command',''); print(json.dumps({'decision':'deny','reason':'no recursive force delete'}) if 'rm -rf' in c else 'null')"]
    enabled: true
  - name: slow-guard
    point: custom.slow
    type: decision
    command: ${PYTHON}
    args: ["-c", "import sys, time; sys.stdin.read(); time.sleep(60)"]
    timeout: 60
    on_error: deny
    enabled: true
`;

describe("framing", () => {
  test("hello encodes to the documented 47 bytes", () => {
    const frame = encodeFrame({ type: "hello", id: 1, protocol: 1, client: "demo", pid: 4242 });
    const hex = Buffer.from(frame).toString("hex");
    assert.equal(hex, "0000002d85a474797065a568656c6c6fa2696401a870726f746f636f6c01a6636c69656e74a464656d6fa3706964cd1092");
  });

  test("frames split over reads and many in one read", () => {
    const a = encodeFrame({ type: "x", id: 1 });
    const b = encodeFrame({ type: "y", id: 2, s: "z".repeat(1000) });
    const all = Buffer.concat([a, b]);
    const reader = new FrameReader();
    const bodies = [];
    for (let i = 0; i < all.length; i += 7) bodies.push(...reader.feed(all.subarray(i, i + 7)));
    assert.equal(bodies.length, 2);
    assert.equal(new FrameReader().feed(all).length, 2);
  });
});

describe("against a daemon", () => {
  let d: Daemon;
  before(async () => {
    d = new Daemon();
    d.writeGlobalHooks(GUARD);
    await d.start();
  });
  after(async () => d.stop());

  test("a decide's timeout cuts a slow fail-closed guard, which then denies in time", async () => {
    const c = await Client.connect({ path: d.socket, name: "ts-test" });
    try {
      const out = await c.decide("custom.slow", {}, { timeout: 1 });
      assert.equal(out.decision, "deny");
      assert.match(out.reason ?? "", /the agent stops waiting for the call sooner/);
    } finally {
      await c.close();
    }
  });

  test("decide runs the global guard; emit is accepted", async () => {
    const c = await Client.connect({ path: d.socket, name: "ts-test" });
    try {
      assert.equal(c.welcome?.server, "hookd");
      const denied = await c.decide("tool.execute.before", { tool: "bash", args: { command: "rm -rf /tmp/x" } }, { session: "s1" });
      assert.equal(denied.decision, "deny");
      assert.equal(denied.reason, "no recursive force delete");
      assert.equal(denied.decided_by?.name, "no-rm-rf");
      const fine = await c.decide("tool.execute.before", { tool: "bash", args: { command: "ls" } });
      assert.equal(fine.decision, null);
      assert.deepEqual(fine.not_run, []);
      const accepted = await c.emit("tool.execute.error", { error: "x" }, { wait: true });
      assert.deepEqual(accepted.errors, []);
      const traced = await c.decide("tool.execute.before", { tool: "bash", args: { command: "rm -rf /tmp/y" } }, { trace: true });
      assert.equal(traced.trace?.length, 1);
      assert.equal(traced.trace?.[0].hook.name, "no-rm-rf");
      assert.deepEqual(traced.trace?.[0].input, { tool: "bash", args: { command: "rm -rf /tmp/y" } });
      assert.equal(traced.trace?.[0].answer?.decision, "deny");
      assert.equal(fine.trace, null);
      const stats = await c.stats();
      const guard = stats.hooks.find((h) => h.hook.name === "no-rm-rf");
      assert.equal(guard?.life.calls, 3);
      assert.equal(guard?.life.denies, 2);
    } finally {
      await c.close();
    }
  });

  test("an error reply rejects with its code", async () => {
    const c = await Client.connect({ path: d.socket });
    try {
      await assert.rejects(c.decide("no.such.point"), (e: Error & { code?: string }) => e.code === "unknown_point");
      await assert.rejects(c.decide("tool.execute.before", {}, { project: "relative/path" }), (e: Error & { code?: string }) => e.code === "bad_request");
    } finally {
      await c.close();
    }
  });

  test("a request over the frame limit is refused before sending; the connection stays", async () => {
    const c = await Client.connect({ path: d.socket });
    try {
      const max = c.welcome?.limits.max_frame ?? 0;
      const inFlight = c.decide("tool.execute.before", { args: { command: "rm -rf /" } });
      await assert.rejects(c.decide("tool.execute.before", { big: "x".repeat(max) }), (e: Error & { code?: string }) => e.code === "frame_too_large" && /nothing was sent/.test(e.message));
      assert.equal((await inFlight).decision, "deny");
      assert.equal((await c.decide("tool.execute.before", { args: { command: "rm -rf /" } })).decision, "deny");
    } finally {
      await c.close();
    }
  });

  test("pipelined decides are matched to their replies", async () => {
    const c = await Client.connect({ path: d.socket });
    try {
      await c.attachSession("pipe", {
        hooks: [{ point: "tool.execute.before", name: "double", handler: async (p) => ({ decision: "allow", modifiedInput: { n: (p.args as { n: number }).n * 2 } }) }],
      });
      const n = 300;
      const outs = await Promise.all(Array.from({ length: n }, (_, i) => c.decide("tool.execute.before", { args: { n: i } }, { session: "pipe" })));
      outs.forEach((o, i) => {
        assert.equal(o.decision, "allow");
        assert.deepEqual(o.modifiedInput, { n: i * 2 });
      });
    } finally {
      await c.close();
    }
  });

  test("session hooks: every invoke answered once, whatever the handler does", async () => {
    const c = await Client.connect({ path: d.socket });
    const seen: string[] = [];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const answers: Record<string, () => unknown> = {
      deny: () => ({ decision: "deny", reason: "from node" }),
      throws: () => {
        throw new Error("handler broke");
      },
      rejects: async () => Promise.reject(new TypeError("async broke")),
      function: () => ({ decision: "allow", modifiedInput: { f: () => 1 } }),
      cycle: () => ({ decision: "allow", modifiedInput: cyclic }),
      bigint: () => ({ decision: "allow", modifiedInput: { n: 2n ** 70n } }),
      block: () => ({ decision: "block" }),
      string: () => "allow",
      abstain: () => undefined,
    };
    try {
      await c.attachSession("answers", {
        project: d.root,
        hooks: [
          {
            point: "tool.execute.before",
            name: "answers",
            handler: (p, ctx) => {
              seen.push(`${ctx.point}:${ctx.session}:${ctx.project}`);
              return answers[p.what as string]() as never;
            },
          },
        ],
      });
      const deny = await c.decide("tool.execute.before", { what: "deny" }, { session: "answers" });
      assert.equal(deny.decision, "deny");
      assert.equal(deny.reason, "from node");
      assert.equal(deny.decided_by?.scope, "session");
      for (const [what, text] of [
        ["throws", "Error: handler broke"],
        ["rejects", "TypeError: async broke"],
        ["function", "decision.modifiedInput.f is a function"],
        ["cycle", "a cycle"],
        ["bigint", "outside 64 bits"],
        ["block", 'decision "block"'],
        ["string", "not a HookDecision"],
      ]) {
        const o = await c.decide("tool.execute.before", { what }, { session: "answers" });
        assert.equal(o.decision, null, what);
        assert.equal(o.errors.length, 1, what);
        assert.equal(o.errors[0].code, "error", what);
        assert.ok(o.errors[0].message.includes(text), `${what}: ${o.errors[0].message}`);
      }
      const none = await c.decide("tool.execute.before", { what: "abstain" }, { session: "answers" });
      assert.equal(none.decision, null);
      assert.deepEqual(none.errors, []);
      assert.equal(seen[0], `tool.execute.before:answers:${(await import("node:fs")).realpathSync(d.root)}`);
    } finally {
      await c.close();
    }
  });

  test("a failing handler with on_error deny fails closed", async () => {
    const c = await Client.connect({ path: d.socket });
    try {
      await c.attachSession("closed", {
        hooks: [{ point: "tool.execute.before", name: "strict", on_error: "deny", handler: () => { throw new Error("no"); } }],
      });
      const o = await c.decide("tool.execute.before", {}, { session: "closed" });
      assert.equal(o.decision, "deny");
      assert.equal(o.decided_by?.name, "strict");
    } finally {
      await c.close();
    }
  });

  test("observers, command hooks in a session, unregister and dispose", async () => {
    const c = await Client.connect({ path: d.socket });
    try {
      const seen: unknown[] = [];
      const handles = await c.attachSession("mixed", {
        hooks: [
          { point: "tool.execute.after", type: "observer", name: "watch", handler: (p) => { seen.push(p.n); } },
          { name: "cmd", point: "tool.execute.before", type: "decision", command: PYTHON, args: ["-c", "print('{\"decision\": \"ask\"}')"] },
        ],
      });
      assert.equal(handles.length, 2);
      await c.emit("tool.execute.after", { n: 7 }, { session: "mixed", wait: true });
      assert.deepEqual(seen, [7]);
      assert.equal((await c.decide("tool.execute.before", {}, { session: "mixed" })).decision, "ask");
      await c.unregister(handles[1]);
      assert.equal((await c.decide("tool.execute.before", {}, { session: "mixed" })).decision, null);
      assert.equal(await c.disposeSession("mixed"), 1);
      await c.emit("tool.execute.after", { n: 8 }, { session: "mixed", wait: true });
      assert.deepEqual(seen, [7]);
    } finally {
      await c.close();
    }
  });

  test("subscribe: history, then live, filtered by session", async () => {
    const c = await Client.connect({ path: d.socket });
    try {
      await c.decide("tool.execute.before", { args: { command: "rm -rf /" } }, { session: "hist" });
      const sub = c.subscribe({ sessions: ["hist"], sinceSeq: 0 });
      const got: StreamItem[] = [];
      const reading = (async () => {
        for await (const item of sub) {
          got.push(item);
          if (item.type === "event" && item.point === "custom.after") break;
        }
      })();
      await sub.ready();
      await c.emit("custom.after", {}, { session: "hist" });
      await reading;
      sub.close();
      const kinds = got.map((i) => (i.type === "event" ? `${i.kind}:${i.point}:${i.decision}` : i.type));
      assert.deepEqual(kinds, ["decide:tool.execute.before:deny", "live", "emit:custom.after:null"]);
      const first = got[0];
      assert.ok(first.type === "event" && first.session === "hist" && first.decided_by?.name === "no-rm-rf");
    } finally {
      await c.close();
    }
  });

  test("no daemon: DaemonNotRunning; a socket directory others can write: DaemonNotTrusted", async () => {
    await assert.rejects(Client.connect({ path: join(d.root, "nothing-here.sock") }), DaemonNotRunning);
    const open = mkdtempSync(join(tmpdir(), "hookd-ts-open-"));
    chmodSync(open, 0o777);
    writeFileSync(join(open, "hookd.sock"), "");
    await assert.rejects(Client.connect({ path: join(open, "hookd.sock") }), DaemonNotTrusted);
    const linked = mkdtempSync(join(tmpdir(), "hookd-ts-link-"));
    symlinkSync(join(d.root, "run"), join(linked, "dir"));
    await assert.rejects(Client.connect({ path: join(linked, "dir", "hookd.sock") }), DaemonNotTrusted);
  });
});

describe("history gaps", () => {
  test("a since_seq older than the daemon keeps starts with a history gap", async () => {
    const d = await Daemon.start(["--history", "5"]);
    const c = await Client.connect({ path: d.socket });
    try {
      for (let i = 0; i < 12; i++) await c.emit("custom.tick", { i });
      const sub = c.subscribe({ points: ["custom.tick"], sinceSeq: 1, follow: false });
      const got: StreamItem[] = [];
      for await (const item of sub) got.push(item);
      assert.equal(got[0].type, "gap");
      assert.ok(got[0].type === "gap" && got[0].reason === "history" && got[0].missed > 0);
      assert.equal(got.at(-1)?.type, "live");
      const ticks = got.filter((i) => i.type === "event").map((i) => (i.type === "event" ? i.payload.i : -1));
      assert.ok(ticks.length > 0 && ticks.length <= 5);
      assert.equal(ticks.at(-1), 11);
    } finally {
      await c.close();
      await d.stop();
    }
  });
});

describe("reconnect and restore", () => {
  test("a restarted daemon gets the sessions back, handles keep working, the stream resumes", async () => {
    const d = await Daemon.start();
    const c = await Client.connect({ path: d.socket, reconnect: 30 });
    const calls: string[] = [];
    try {
      const [h1, h2] = await c.attachSession("keep", {
        project: d.root,
        hooks: [
          { point: "tool.execute.before", name: "guard", handler: (p) => { calls.push(String(p.n)); return { decision: "deny", reason: "restored" }; } },
          { point: "tool.execute.after", type: "observer", name: "obs", handler: () => undefined },
        ],
      });
      const sub = c.subscribe({ points: ["custom.*"] });
      await sub.ready();
      assert.equal((await c.decide("tool.execute.before", { n: 1 }, { session: "keep" })).decision, "deny");
      const pid = c.welcome?.pid;
      await d.kill();
      await d.start();
      // The client serves a handler, so it reconnects and restores by itself; a decide from another client shows it.
      const other = await Client.connect({ path: d.socket });
      await until(async () => (await other.decide("tool.execute.before", { n: 2 }, { session: "keep" })).decision === "deny", "the session restored");
      assert.notEqual(c.welcome?.pid, pid);
      assert.deepEqual(c.restoreErrors, []);
      assert.ok(calls.includes("2"));
      await c.unregister(h1);
      assert.equal((await other.decide("tool.execute.before", { n: 3 }, { session: "keep" })).decision, null);
      await c.unregister(h2);
      await other.emit("custom.after-restart", {});
      for await (const item of sub) {
        if (item.type === "event" && item.point === "custom.after-restart") break;
      }
      sub.close();
      await other.close();
    } finally {
      await c.close();
      await d.stop();
    }
  });

  test("a client that serves nothing reconnects on its next call", async () => {
    const d = await Daemon.start();
    const c = await Client.connect({ path: d.socket, reconnect: 30 });
    try {
      await c.emit("custom.one", {});
      await d.kill();
      await d.start();
      const accepted = await c.emit("custom.two", {});
      assert.equal(accepted.observers, 0);
    } finally {
      await c.close();
      await d.stop();
    }
  });
});


describe("a daemon that accepts and never answers", () => {
  test("close ends a connection still waiting for its welcome, so nothing keeps the process alive", { timeout: 20_000 }, async () => {
    const { createServer } = await import("node:net");
    const dir = mkdtempSync(join(tmpdir(), "hookd-mute-"));
    chmodSync(dir, 0o700);
    const path = join(dir, "hookd.sock");
    let closedByClient!: () => void;
    const ended = new Promise<void>((resolve) => (closedByClient = resolve));
    const server = createServer((socket) => socket.on("close", () => closedByClient()).resume()); // reads the hello, says nothing
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const c = new Client({ path });
      const opening = c.open();
      await new Promise((r) => setTimeout(r, 100)); // connected, the hello written, no welcome
      await c.close();
      await assert.rejects(opening, (err) => err instanceof ConnectionLost);
      await ended;
    } finally {
      server.close();
    }
  });
});
