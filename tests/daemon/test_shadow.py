"""Shadow guards in process with real YAML and real subprocess hooks: a `shadow: true` hook runs on
every call, its would-be answer is on the decide's event, in stats and in the trace, and it never
changes the outcome: no decision, no rewrite, no injection, no on_error; the reply never waits for
it. How `hookd` shows shadows (hooks, explain, stats, traces, check): tests/integration/test_shadow.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..conftest import write_script
from ..integration.test_shadow import DENY_ALL, PAYLOAD, WAITS, hooks_yaml
from .conftest import InProcess


def test_a_shadow_guard_never_changes_the_outcome_and_is_recorded(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> Any:
        d.global_hooks(hooks_yaml(home))
        c = d.client()
        out = await c.decide("tool.approval.pre", PAYLOAD, session="s1")
        (event,) = await c.events(["tool.*"], at_least=1)
        await c.decide("tool.approval.pre", PAYLOAD, session="s1")
        # Stats are counted with the event: wait for the second call's by reading them until they show it.
        stats = await c.stats()
        for _ in range(12000):  # a hang guard, not a speed check
            if stats.points and stats.points[0].life.calls == 2:
                break
            await asyncio.sleep(0.01)
            stats = await c.stats()
        return out, event, stats

    out, event, stats = in_process(scenario)
    # The outcome is the real chain's: the shadow's deny, rewrite, injection and failure are nowhere in it.
    assert (out.decision, out.reason, out.decided_by.name) == ("allow", "fine", "guard")
    assert out.injection is None and out.modified_input is None and out.errors == [] and out.not_run == []
    assert event.decision == "allow"
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


def test_the_reply_does_not_wait_for_a_shadow_but_its_event_has_its_answer(in_process: Any, home: Path) -> None:
    release = home / "release"
    waits = write_script(home / "waits.py", WAITS)

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(
            f"hooks:\n  - {{name: slow-candidate, point: tool.approval.pre, type: decision, command: {waits},"
            f" args: [{str(release)!r}], enabled: true, shadow: true}}\n"
        )
        c = d.client()
        out = await c.decide("tool.approval.pre", PAYLOAD)
        assert not release.exists()  # the reply came while the shadow still waited for this file
        release.touch()
        (event,) = await c.events(["tool.*"], at_least=1)
        return out, event

    out, event = in_process(scenario)
    assert out.decision is None and out.not_run == [] and out.errors == []
    (run,) = event.hooks
    assert (run.hook.name, run.shadow, run.decision, run.reason) == ("slow-candidate", True, "ask", "would ask")


def test_a_traced_call_shows_its_shadows(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> Any:
        d.global_hooks(hooks_yaml(home))
        return await d.client().decide("tool.approval.pre", PAYLOAD, trace=True)

    out = in_process(scenario)
    assert out.decision == "allow"
    entries = {e.hook.name: e for e in out.trace}
    assert entries["candidate"].shadow and entries["candidate"].answer.decision == "deny"
    assert entries["candidate"].input == PAYLOAD
    assert entries["broken-candidate"].shadow and entries["broken-candidate"].error == "error"
    assert entries["only-edits"].shadow and entries["only-edits"].skipped == "match"


def test_an_untrusted_shadow_is_named_in_its_results_not_as_a_guard(in_process: Any, home: Path) -> None:
    project = home / "repo"  # HOOKD_TRUST_ALL is unset: the project's file is not trusted
    deny = write_script(project / "deny.py", DENY_ALL)
    (project / ".hookd").mkdir()
    (project / ".hookd" / "hooks.yaml").write_text(
        f"hooks:\n  - {{name: tried, point: tool.approval.pre, type: decision, command: {deny}, enabled: true, shadow: true}}\n"
    )

    async def scenario(d: InProcess) -> Any:
        c = d.client()
        first = await c.decide("tool.approval.pre", PAYLOAD, project=str(project))  # waits for the project's files
        again = await c.decide("tool.approval.pre", PAYLOAD, project=str(project))
        return first, again, await c.events(["tool.*"], at_least=2)

    first, again, events = in_process(scenario)
    for out, event in zip((first, again), events, strict=True):
        assert out.decision is None and out.not_run == []
        (run,) = event.hooks
        assert (run.hook.name, run.shadow, run.skipped) == ("tried", True, "untrusted")
