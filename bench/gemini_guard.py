"""One guard, three ways to run it, for bench/gemini_shim.py: the same rule (no `rm -rf` in a shell command)
as a Gemini CLI command hook (no argument: Gemini CLI's hook input on stdin, its answer on stdout), as a
hookd command hook (`--hookd`: hookd's payload in, a HookDecision out) and as a warm hookd worker
(`--worker`: one request a line, one answer a line, for as long as hookd keeps it)."""

from __future__ import annotations

import json
import sys


def refusal(command: object) -> str | None:
    """The rule: why ``command`` may not run, or None."""
    return "no recursive force delete" if isinstance(command, str) and "rm -rf" in command else None


def decision(payload: dict[str, object]) -> dict[str, object] | None:
    args = payload.get("args")
    why = refusal(args.get("command") if isinstance(args, dict) else None)
    return {"decision": "deny", "reason": why} if why else None


def main() -> None:
    if "--worker" in sys.argv:
        for line in sys.stdin:
            if line.strip():
                request = json.loads(line)
                answer = decision(request.get("payload") or {}) or {"decision": None}
                sys.stdout.write(json.dumps({"id": request["id"], **answer}) + "\n")
                sys.stdout.flush()
    elif "--hookd" in sys.argv:
        sys.stdout.write(json.dumps(decision(json.load(sys.stdin))) + "\n")
    else:
        hook_input = json.load(sys.stdin)
        tool_input = hook_input.get("tool_input")
        why = refusal(tool_input.get("command") if isinstance(tool_input, dict) else None)
        sys.stdout.write(json.dumps({"decision": "deny", "reason": why} if why else {}) + "\n")


if __name__ == "__main__":
    main()
