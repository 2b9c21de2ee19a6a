#!/usr/bin/env node
// PostToolUse (Edit|Write): tidy the written file (no trailing blanks, one final newline), quietly.
const fs = require("fs");
let raw = "";
process.stdin.on("data", (chunk) => (raw += chunk));
process.stdin.on("end", () => {
  const input = JSON.parse(raw);
  const file = (input.tool_input || {}).file_path || "";
  if (!file || !fs.existsSync(file) || !/\.(py|js|ts|md|txt)$/.test(file)) process.exit(0);
  const before = fs.readFileSync(file, "utf8");
  const after = before.replace(/[ \t]+$/gm, "").replace(/\n*$/, "\n");
  if (after !== before) fs.writeFileSync(file, after);
  process.stdout.write(JSON.stringify({ suppressOutput: true, systemMessage: after !== before ? `formatted ${file.split("/").pop()}` : undefined }));
});
