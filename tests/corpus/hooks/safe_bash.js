#!/usr/bin/env node
// PreToolUse (Bash): deny commands that skip safety checks, allow the rest with a reason.
let raw = "";
process.stdin.on("data", (chunk) => (raw += chunk));
process.stdin.on("end", () => {
  const input = JSON.parse(raw);
  const command = (input.tool_input || {}).command || "";
  const risky = /(--no-verify|--force\b|\brm\s+-rf\s+\/|reset\s+--hard)/.test(command);
  const out = {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: risky ? "deny" : "allow",
      permissionDecisionReason: risky ? `blocked: "${command}" bypasses a safety check` : "passed the safety check",
    },
  };
  console.log(JSON.stringify(out));
});
