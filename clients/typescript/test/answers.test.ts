/** Hostile input, without a daemon: frames split anywhere, and handler answers of every shape. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { answerFrame, MAX_DEPTH } from "../src/answers.js";
import { decodeBody, encodeFrame, FrameReader } from "../src/framing.js";

// A small deterministic generator, so that a failure can be replayed from its seed.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomValue(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * (depth > 4 ? 6 : 11));
  switch (pick) {
    case 0: return null;
    case 1: return Math.floor(r() * 2 ** 40) - 2 ** 39;
    case 2: return r() * 1e6;
    case 3: return "x".repeat(Math.floor(r() * 50)) + "\u00e9\ud83d\ude00";
    case 4: return r() < 0.5;
    case 5: return undefined;
    case 6: return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    case 7: return Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, (_, i) => [`k${i}`, randomValue(r, depth + 1)]));
    case 8: return () => 1;
    case 9: return 2n ** BigInt(Math.floor(r() * 80));
    default: return new Map([["a", 1]]);
  }
}

test("frames survive any split of the byte stream", () => {
  const r = rng(7);
  for (let round = 0; round < 200; round++) {
    const messages = Array.from({ length: 1 + Math.floor(r() * 5) }, (_, i) => ({ type: "t", id: i + 1, v: "y".repeat(Math.floor(r() * 3000)) }));
    const bytes = Buffer.concat(messages.map((m) => encodeFrame(m)));
    const reader = new FrameReader();
    const got: unknown[] = [];
    for (let at = 0; at < bytes.length; ) {
      const step = 1 + Math.floor(r() * 700);
      for (const body of reader.feed(bytes.subarray(at, at + step))) got.push(decodeBody(body));
      at += step;
    }
    assert.deepEqual(got, messages);
  }
});

test("an oversized frame header is refused, not allocated", () => {
  const reader = new FrameReader(1024);
  assert.throws(() => reader.feed(Buffer.from([0, 0, 8, 0, 1])), /over the client's limit/);
});

test("every handler answer becomes exactly one valid invoke_result", () => {
  const r = rng(11);
  for (let round = 0; round < 2000; round++) {
    const value = r() < 0.7 ? { decision: ["allow", "deny", "ask", "continue", "block", null][Math.floor(r() * 6)], modifiedInput: randomValue(r), modifiedOutput: randomValue(r) } : randomValue(r);
    const frame = answerFrame(round, "h", r() < 0.1 ? { error: value } : { value }, 1 << 20);
    const body = decodeBody(frame.subarray(4)) as Record<string, unknown>;
    assert.equal(body.type, "invoke_result");
    assert.equal(body.call, round);
    assert.ok(("error" in body) !== ("decision" in body), JSON.stringify(body));
    if ("error" in body) assert.equal(typeof body.error, "string");
  }
});

test("nesting past what the daemon follows is refused by name", () => {
  let deep: Record<string, unknown> = {};
  const top = deep;
  for (let i = 0; i < MAX_DEPTH + 5; i++) {
    deep.n = {};
    deep = deep.n as Record<string, unknown>;
  }
  const body = decodeBody(answerFrame(1, "deep", { value: { decision: "allow", modifiedInput: top } }).subarray(4)) as Record<string, string>;
  assert.match(body.error, /nested deeper than 62 levels/);
  const big = decodeBody(answerFrame(2, "big", { value: { modifiedOutput: "z".repeat(2000) } }, 1000).subarray(4)) as Record<string, string>;
  assert.match(big.error, /over the daemon's frame limit of 1000 bytes/);
});

test("a key a HookDecision does not have is refused by name, never dropped", () => {
  const typo = decodeBody(answerFrame(1, "guard", { value: { decison: "deny", reason: "typo" } }).subarray(4)) as Record<string, unknown>;
  assert.equal(typo.decision, undefined);
  assert.match(typo.error as string, /unknown field "decison"; a HookDecision has only decision, reason/);
  const snake = decodeBody(answerFrame(2, "guard", { value: { decision: "allow", modified_input: {}, extra: 1 } }).subarray(4)) as Record<string, unknown>;
  assert.match(snake.error as string, /unknown fields "modified_input", "extra"/);
  const passed = decodeBody(answerFrame(3, "guard", { value: { decision: "deny", agentOutput: { systemMessage: "no" } } }).subarray(4)) as Record<string, unknown>;
  assert.deepEqual(passed.decision, { decision: "deny", agentOutput: { systemMessage: "no" } });
  const unset = decodeBody(answerFrame(5, "guard", { value: { decision: "deny", note: undefined } }).subarray(4)) as Record<string, unknown>;
  assert.deepEqual(unset.decision, { decision: "deny" }); // a key left undefined is not sent, so not refused
  const bad = decodeBody(answerFrame(4, "guard", { value: { agentOutput: "no" } }).subarray(4)) as Record<string, unknown>;
  assert.match(bad.error as string, /agentOutput that is not an object/);
});
