// Calls the installed hookd plugin the way opencode does (input, output), one case per line of stdin JSON:
// {"event", "input", "output"}; prints {"output", "thrown"} per case, one JSON line each.
//
//   node plugin_driver.mjs PLUGIN_FILE < cases.jsonl
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";

const { HookdPlugin } = await import(pathToFileURL(process.argv[2]).href);
const hooks = await HookdPlugin({ directory: process.cwd(), worktree: process.cwd() });
for (const line of readFileSync(0, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const { event, input, output } = JSON.parse(line);
  let thrown = null;
  try {
    await hooks[event](input, output);
  } catch (err) {
    thrown = String(err?.message ?? err);
  }
  process.stdout.write(JSON.stringify({ output, thrown }) + "\n");
}
process.exit(0);
