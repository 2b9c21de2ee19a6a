// Calls hookd's installed pi extension the way pi does, without a model: pi's own loader loads it (as pi loads
// every extension), then each case's event goes to its handlers in order, with a context like pi's. One case per
// line of stdin JSON: {"event": {"type", ...}, "session", "cwd", "hasUI"?, "confirm"?}; prints per case one JSON
// line {result, event, thrown}: what the handlers answered, the event as they left it (pi runs a tool with
// `event.input` as its tool_call handlers leave it), and what one threw.
//
//   node extension_driver.mjs PI_INDEX_URL EXTENSION_FILE < cases.jsonl
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [piIndex, file] = process.argv.slice(2);
const cases = readFileSync(0, "utf8"); // before pi is imported: it makes stdin non-blocking
const pi = await import(piIndex);
const empty = mkdtempSync(join(tmpdir(), "hookd-pi-driver-"));
const loaded = await pi.discoverAndLoadExtensions([file], empty, empty);
rmSync(empty, { recursive: true, force: true });
if (loaded.errors.length) throw new Error(JSON.stringify(loaded.errors));
const { handlers } = loaded.extensions[0];
const out = [];
for (const line of cases.split("\n")) {
  if (!line.trim()) continue;
  const { event, session, cwd, hasUI, confirm } = JSON.parse(line);
  if (event.cycle) event.input.self = event.input; // what JSON cannot carry
  delete event.cycle;
  const ctx = {
    cwd,
    hasUI: hasUI === true,
    sessionManager: { getSessionId: () => session, getCwd: () => cwd },
    ui: { confirm: async () => confirm === true, notify: (text) => process.stderr.write(`notice: ${text}\n`) },
  };
  let result = null;
  let thrown = null;
  try {
    for (const handler of handlers.get(event.type) ?? []) result = (await handler(event, ctx)) ?? result;
  } catch (err) {
    thrown = String(err?.message ?? err);
  }
  if (event.input && event.input.self === event.input) delete event.input.self;
  out.push(JSON.stringify({ result, event, thrown }));
}
// Exit only once stdout has taken it all (a long line can still be in flight to the pipe).
process.stdout.write(out.join("\n") + "\n", () => process.exit(0));
