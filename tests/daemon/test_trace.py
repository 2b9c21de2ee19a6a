"""`decide` with `trace`, in process with real YAML and real subprocess hooks: each hook's input as it
saw it (after earlier rewrites), its answer, excerpts of its output, its time, and why any hook did
not run. `hookd decide --trace` as text and JSON: tests/integration/test_trace.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookd_client.messages.observe import TRACE_EXCERPT

from ..conftest import write_script
from ..integration.test_trace import GUARD, LOUD, PAYLOAD, REWRITE
from .conftest import InProcess


def hooks_yaml(home: Path) -> str:
    rewrite = write_script(home / "rewrite.py", REWRITE)
    guard = write_script(home / "guard.py", GUARD)
    loud = write_script(home / "loud.py", LOUD)
    return f"""
        hooks:
          - {{name: rewrite, point: tool.approval.pre, type: decision, command: {rewrite}, enabled: true, priority: 30}}
          - {{name: only-edits, point: tool.approval.pre, type: decision, command: {guard}, enabled: true, priority: 25,
              match: {{toolName: Edit}}}}
          - {{name: turned-off, point: tool.approval.pre, type: decision, command: {guard}, enabled: false, priority: 22}}
          - {{name: loud, point: tool.approval.pre, type: decision, command: {loud}, enabled: true, priority: 21}}
          - {{name: guard, point: tool.approval.pre, type: decision, command: {guard}, enabled: true, priority: 20}}
          - {{name: after, point: tool.approval.pre, type: decision, command: {guard}, enabled: true, priority: 10}}
        """


def test_a_trace_shows_each_hook_as_it_went(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> Any:
        d.global_hooks(hooks_yaml(home))
        c = d.client()
        return await c.decide("tool.approval.pre", PAYLOAD), await c.decide("tool.approval.pre", PAYLOAD, trace=True)

    plain, out = in_process(scenario)
    assert plain.trace is None  # asked for per call
    assert (out.decision, out.reason, out.decided_by.name) == (plain.decision, plain.reason, plain.decided_by.name)
    assert out.decision == "deny" and out.decided_by.name == "guard"
    entries = {e.hook.name: e for e in out.trace}
    assert [e.hook.name for e in out.trace] == ["rewrite", "only-edits", "loud", "guard", "after", "turned-off"]
    rewrite, skipped, loud, guard, after, off = (entries[n] for n in ("rewrite", "only-edits", "loud", "guard", "after", "turned-off"))
    assert rewrite.input == PAYLOAD and rewrite.answer.modified_input == {"command": "rm -ri /tmp/x"}
    assert rewrite.stderr == "rewrote the command\n" and "modifiedInput" in rewrite.stdout and rewrite.ms > 0
    # Later hooks see the rewritten input.
    assert guard.input["args"]["command"] == "rm -ri /tmp/x"
    assert (guard.answer.decision, guard.answer.reason) == ("deny", "no rm at all")
    assert guard.stderr == "checking rm -ri /tmp/x\n"
    assert (skipped.skipped, skipped.answer) == ("match", None)
    assert "match toolName" in skipped.why and "got 'Bash'" in skipped.why
    assert after.skipped == "decided" and "'guard'" in after.why and after.input is None
    assert off.skipped == "disabled"
    # Output excerpts are bounded, and say how much was cut.
    assert loud.answer is None and loud.stderr.startswith("x" * 100)
    assert len(loud.stderr) < TRACE_EXCERPT + 100 and "more bytes not shown]" in loud.stderr


def test_a_failed_hook_and_an_untrusted_one_in_the_trace(in_process: Any, home: Path) -> None:
    project = home / "repo"  # HOOKD_TRUST_ALL is unset: the project's file is not trusted
    guard = write_script(project / "guard.py", 'print(\'{"decision": "deny"}\')\n')
    (project / ".hookd").mkdir()
    (project / ".hookd" / "hooks.yaml").write_text(
        f"hooks:\n  - {{name: project-guard, point: tool.approval.pre, type: decision, command: {guard}, enabled: true}}\n"
    )
    broken = write_script(home / "broken.py", "import sys\nprint('half an answer {')\nsys.exit(3)\n")

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(f"hooks:\n  - {{name: broken, point: tool.approval.pre, type: decision, command: {broken}, enabled: true}}\n")
        return await d.client().decide("tool.approval.pre", PAYLOAD, project=str(project), trace=True)

    out = in_process(scenario)
    entries = {e.hook.name: e for e in out.trace}
    assert entries["project-guard"].skipped == "untrusted" and entries["project-guard"].why
    assert [n.hook.name for n in out.not_run] == ["project-guard"]
    b = entries["broken"]
    assert b.error == "error" and "exited with status 3" in b.message and b.stdout == "half an answer {\n"


def test_a_trace_of_a_call_with_no_hooks(in_process: Any) -> None:
    async def scenario(d: InProcess) -> Any:
        return await d.client().decide("tool.approval.pre", PAYLOAD, trace=True)

    out = in_process(scenario)
    assert out.decision is None and out.trace == []


def test_a_large_input_is_named_not_repeated_in_the_trace(in_process: Any, home: Path) -> None:
    big = {"toolName": "Bash", "args": {"command": "ls " + "x" * 300_000}}

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(hooks_yaml(home))
        return await d.client().decide("tool.approval.pre", big, trace=True)

    out = in_process(scenario)
    assert out.decision is None and [e.hook.name for e in out.trace][:2] == ["rewrite", "only-edits"]
    for entry in out.trace:
        if entry.input is not None:
            (note,) = entry.input.values()
            assert "over the 65536 a trace shows" in note
