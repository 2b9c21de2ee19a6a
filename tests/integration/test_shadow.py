"""Shadow guards on a real daemon with real YAML and real subprocess hooks: a `shadow: true` hook runs
on every call, its would-be answer is on the decide's event, in stats and in the trace, and it never
changes the outcome: no decision, no rewrite, no injection, no on_error; the reply never waits for it."""

from __future__ import annotations

import json
import time
from pathlib import Path

from hookd_client.messages import Event

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


def _hooks(env: Env, tmp_path: Path, extra: str = "") -> None:
    deny = write_script(tmp_path / "deny.py", DENY_ALL)
    allow = write_script(tmp_path / "allow.py", ALLOW)
    fails = write_script(tmp_path / "fails.py", FAILS)
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: candidate, point: tool.approval.pre, type: decision, command: {deny}, enabled: true, shadow: true,
              priority: 100}}
          - {{name: broken-candidate, point: tool.approval.pre, type: decision, command: {fails}, enabled: true,
              shadow: true, on_error: deny}}
          - {{name: only-edits, point: tool.approval.pre, type: decision, command: {deny}, enabled: true, shadow: true,
              match: {{toolName: Edit}}}}
          - {{name: guard, point: tool.approval.pre, type: decision, command: {allow}, enabled: true}}
        {extra}"""
    )


PAYLOAD = {"toolName": "Bash", "args": {"command": "ls"}}


def test_a_shadow_guard_never_changes_the_outcome_and_is_recorded(env: Env, daemon_factory, tmp_path: Path) -> None:
    _hooks(env, tmp_path)
    daemon = daemon_factory()
    with daemon.client() as c:
        sub = c.subscribe(["tool.*"], timeout=HANG_GUARD).open()
        out = c.decide("tool.approval.pre", PAYLOAD, session="s1")
        event = next(sub)
        sub.close()
        c.decide("tool.approval.pre", PAYLOAD, session="s1")
        # Stats are counted with the event: wait for the second call's by reading them until they show it.
        deadline = time.monotonic() + HANG_GUARD
        stats = c.stats()
        while not (stats.points and stats.points[0].life.calls == 2) and time.monotonic() < deadline:
            time.sleep(0.01)
            stats = c.stats()
    # The outcome is the real chain's: the shadow's deny, rewrite, injection and failure are nowhere in it.
    assert (out.decision, out.reason, out.decided_by.name) == ("allow", "fine", "guard")
    assert out.injection is None and out.modified_input is None and out.errors == [] and out.not_run == []
    assert isinstance(event, Event) and event.decision == "allow"
    runs = {r.hook.name: r for r in event.hooks}
    assert list(runs) == ["guard", "candidate", "broken-candidate", "only-edits"]  # the chain first, then the shadows
    assert runs["guard"].shadow is False and runs["guard"].decision == "allow"
    assert (runs["candidate"].shadow, runs["candidate"].decision, runs["candidate"].reason) == (True, "deny", "shadow says no")
    assert runs["broken-candidate"].shadow and runs["broken-candidate"].error == "error"
    assert runs["only-edits"].shadow and runs["only-edits"].skipped == "match"
    hooks = {h.hook.name: h for h in stats.hooks}
    assert hooks["candidate"].shadow and hooks["candidate"].life.calls == 2 and hooks["candidate"].life.denies == 2
    assert hooks["broken-candidate"].life.errors == 2 and hooks["only-edits"].life.skips == {"match": 2}
    assert not hooks["guard"].shadow and hooks["guard"].life.allows == 2
    text = env.hookd("stats").stdout
    assert "candidate  [decision, global]" in text and "(shadow: never applied)" in text and "2 would deny" in text


def test_the_reply_does_not_wait_for_a_shadow_but_its_event_has_its_answer(env: Env, daemon_factory, tmp_path: Path) -> None:
    release = tmp_path / "release"
    waits = write_script(tmp_path / "waits.py", WAITS)
    env.write_global_hooks(
        f"hooks:\n  - {{name: slow-candidate, point: tool.approval.pre, type: decision, command: {waits}, args: [{str(release)!r}],"
        f" enabled: true, shadow: true}}\n"
    )
    daemon = daemon_factory()
    with daemon.client() as c:
        sub = c.subscribe(["tool.*"], timeout=HANG_GUARD).open()
        out = c.decide("tool.approval.pre", PAYLOAD)
        assert not release.exists()  # the reply came while the shadow still waited for this file
        release.touch()
        event = next(sub)
        sub.close()
    assert out.decision is None and out.not_run == [] and out.errors == []
    (run,) = event.hooks
    assert (run.hook.name, run.shadow, run.decision, run.reason) == ("slow-candidate", True, "ask", "would ask")


def test_a_traced_call_shows_its_shadows(env: Env, daemon_factory, tmp_path: Path) -> None:
    _hooks(env, tmp_path)
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide("tool.approval.pre", PAYLOAD, trace=True)
    assert out.decision == "allow"
    entries = {e.hook.name: e for e in out.trace}
    assert entries["candidate"].shadow and entries["candidate"].answer.decision == "deny"
    assert entries["candidate"].input == PAYLOAD
    assert entries["broken-candidate"].shadow and entries["broken-candidate"].error == "error"
    assert entries["only-edits"].shadow and entries["only-edits"].skipped == "match"
    text = env.hookd("decide", "tool.approval.pre", "--trace", "--payload", json.dumps(PAYLOAD)).stdout
    assert "candidate  [shadow, decision, global]" in text and "would answer: " in text and "never applied" in text


def test_hooks_and_explain_show_shadows_and_a_shadow_observer_is_refused(env: Env, daemon_factory, tmp_path: Path) -> None:
    _hooks(env, tmp_path)
    daemon_factory()
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


def test_an_untrusted_shadow_is_named_in_its_results_not_as_a_guard(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.env.pop("HOOKD_TRUST_ALL", None)
    project = tmp_path / "repo"
    deny = write_script(project / "deny.py", DENY_ALL)
    (project / ".hookd").mkdir()
    (project / ".hookd" / "hooks.yaml").write_text(
        f"hooks:\n  - {{name: tried, point: tool.approval.pre, type: decision, command: {deny}, enabled: true, shadow: true}}\n"
    )
    daemon = daemon_factory()
    with daemon.client() as c:
        sub = c.subscribe(["tool.*"], timeout=HANG_GUARD).open()
        first = c.decide("tool.approval.pre", PAYLOAD, project=str(project))  # waits for the project's files
        again = c.decide("tool.approval.pre", PAYLOAD, project=str(project))
        events = [next(sub), next(sub)]
        sub.close()
    for out, event in zip((first, again), events, strict=True):
        assert out.decision is None and out.not_run == []
        (run,) = event.hooks
        assert (run.hook.name, run.shadow, run.skipped) == ("tried", True, "untrusted")
