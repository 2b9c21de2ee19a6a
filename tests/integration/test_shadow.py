"""Shadow guards as `hookd` shows them, through a real daemon with real YAML and real subprocess hooks: in
hooks, explain, stats and decide --trace, and `hookd check` refusing a shadow that cannot be one. What a
shadow does (runs on every call, never changes the outcome, recorded on the event, in stats and
traces): tests/daemon/test_shadow.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..conftest import Env, write_script

HANG_GUARD = 120
DENY_ALL = """
import json, sys
json.load(sys.stdin)
print(json.dumps({"decision": "deny", "reason": "shadow says no", "injection": "from the shadow",
                  "modifiedInput": {"command": "rewritten by the shadow"}}))
"""
# Waits (bounded) for a file the test creates only once it has the call's reply: a reply that waited
# for this shadow would never come before the file exists.
WAITS = """
import json, os, sys, time
json.load(sys.stdin)
deadline = time.monotonic() + 60
while not os.path.exists(sys.argv[1]) and time.monotonic() < deadline:
    time.sleep(0.01)
print(json.dumps({"decision": "ask", "reason": "would ask"}))
"""
ALLOW = 'import json, sys\njson.load(sys.stdin)\nprint(json.dumps({"decision": "allow", "reason": "fine"}))\n'
FAILS = "import sys\nsys.exit(5)\n"


def hooks_yaml(tmp_path: Path, extra: str = "") -> str:
    """Three shadows (one denies all, one fails, one matches only edits) beside a guard that allows."""
    deny = write_script(tmp_path / "deny.py", DENY_ALL)
    allow = write_script(tmp_path / "allow.py", ALLOW)
    fails = write_script(tmp_path / "fails.py", FAILS)
    return f"""
        hooks:
          - {{name: candidate, point: tool.approval.pre, type: decision, command: {deny}, enabled: true, shadow: true,
              priority: 100}}
          - {{name: broken-candidate, point: tool.approval.pre, type: decision, command: {fails}, enabled: true,
              shadow: true, on_error: deny}}
          - {{name: only-edits, point: tool.approval.pre, type: decision, command: {deny}, enabled: true, shadow: true,
              match: {{toolName: Edit}}}}
          - {{name: guard, point: tool.approval.pre, type: decision, command: {allow}, enabled: true}}
        {extra}"""


PAYLOAD = {"toolName": "Bash", "args": {"command": "ls"}}


def test_the_cli_shows_shadows_and_refuses_a_shadow_observer(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.write_global_hooks(hooks_yaml(tmp_path))
    daemon = daemon_factory()
    with daemon.client() as c:
        for _ in range(2):
            c.decide("tool.approval.pre", PAYLOAD)
        # Stats are counted with the event, once the shadows have answered: wait until they show both calls.
        deadline = time.monotonic() + HANG_GUARD
        while {h.hook.name: h.life.calls for h in c.stats().hooks}.get("candidate") != 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    text = env.hookd("stats").stdout
    assert "candidate  [decision, global]" in text and "(shadow: never applied)" in text and "2 would deny" in text
    text = env.hookd("decide", "tool.approval.pre", "--trace", "--payload", json.dumps(PAYLOAD)).stdout
    assert "candidate  [shadow, decision, global]" in text and "would answer: " in text and "never applied" in text
    listing = env.hookd("hooks").stdout
    line = next(x for x in listing.splitlines() if " candidate " in x)
    assert " shadow " in line
    explained = env.hookd("explain", "tool.approval.pre").stdout
    assert "candidate" in explained and "(shadow: runs beside the chain, never applied)" in explained
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "hooks:\n  - {name: watcher, point: tool.execute.after, type: observer, command: /bin/true, enabled: true, shadow: true}\n"
        "  - {name: grouped, point: tool.approval.pre, type: decision, command: /bin/true, enabled: true, shadow: true, group: g}\n"
        "  - {name: odd, point: tool.approval.pre, type: decision, command: /bin/true, enabled: true, shadow: 'yes'}\n"
    )
    r = env.hookd("check", str(bad))
    assert r.returncode != 0
    assert "shadow applies to decision hooks only" in r.stdout + r.stderr
    assert "a shadow hook cannot be in a group" in r.stdout + r.stderr
    assert "shadow must be true or false" in r.stdout + r.stderr
