// Loads hookd's pi extension the way pi loads it and, given a tool call, calls its tool_call handlers the way pi
// does: for `hookd bridge install pi` (does it load?) and `hookd doctor`'s canary (what does a tool call get?).
//
//   node load.mjs EXTENSION PI_INDEX [SESSION CWD ARGS_JSON]
//
// PI_INDEX: the file URL of pi's package index (its dist/index.js): the extension is loaded by pi's own loader
// (discoverAndLoadExtensions, which compiles TypeScript with jiti), with no other extension beside it. "-" when no
// pi is installed: Node imports EXTENSION as an ES module (a .mjs copy of the extension, which is JavaScript too).
// Prints one JSON line: {loaded} without a tool call; else {result, input, thrown}, what the handlers answered,
// the input as they left it, what one threw, and the milliseconds the handlers took (not pi's start).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [file, piIndex, session, cwd, input] = process.argv.slice(2);
let handlers;
if (piIndex !== "-") {
  const pi = await import(piIndex);
  const empty = mkdtempSync(join(tmpdir(), "hookd-pi-load-"));
  try {
    const loaded = await pi.discoverAndLoadExtensions([file], empty, empty);
    if (loaded.errors.length) throw new Error(loaded.errors.map((e) => e.error).join("; "));
    if (loaded.extensions.length !== 1) throw new Error(`pi loaded ${loaded.extensions.length} extensions from ${file}`);
    handlers = loaded.extensions[0].handlers;
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
} else {
  const module = await import(pathToFileURL(file).href);
  if (typeof module.default !== "function") throw new Error("the extension exports no default function");
  handlers = new Map();
  await module.default({ on: (name, handler) => handlers.set(name, [...(handlers.get(name) ?? []), handler]) });
}
if (!handlers.get("tool_call")?.length) throw new Error("the extension handles no tool_call");
let said = { loaded: true };
if (session !== undefined) {
  const event = { type: "tool_call", toolName: "bash", toolCallId: "hookd-canary", input: JSON.parse(input) };
  const ctx = { cwd, hasUI: false, sessionManager: { getSessionId: () => session, getCwd: () => cwd } };
  let result = null;
  let thrown = null;
  const started = performance.now();
  try {
    for (const handler of handlers.get("tool_call")) {
      result = (await handler(event, ctx)) ?? result;
      if (result?.block) break;
    }
  } catch (err) {
    thrown = String(err?.message ?? err);
  }
  said = { result, input: event.input, thrown, ms: Math.round((performance.now() - started) * 10) / 10 };
}
// Exit (the extension's connection would keep Node running) once stdout has taken the answer.
process.stdout.write(JSON.stringify(said) + "\n", () => process.exit(0));
