#!/usr/bin/env node
// A persistent hook in Node, no dependencies: answers several requests at once
// (use it with `concurrency: 8`), in whatever order they finish.
//
//   hooks:
//     - name: slow-check
//       point: tool.approval.pre
//       type: decision
//       command: node
//       args: ["/path/to/examples/warm-hooks/audit.mjs"]
//       mode: persistent
//       concurrency: 8
//       enabled: true
import { createInterface } from "node:readline";

async function decide(event) {
  const cmd = event.payload?.args?.command ?? "";
  if (cmd.includes("curl") && cmd.includes("| sh")) {
    return { decision: "ask", reason: "piping a download into a shell needs a human" };
  }
  return null; // abstain
}

const lines = createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  if (!line.trim()) return;
  const event = JSON.parse(line);
  let answer;
  try {
    answer = { id: event.id, decision: await decide(event) };
  } catch (err) {
    answer = { id: event.id, error: String(err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
// stdin closes when the daemon stops the worker: exit then.
lines.on("close", () => process.exit(0));
