"""Sessions, their hooks, and the toggles kept across restarts, through the daemon's dispatch in
process: what a session attaches is in force for it alone until it is disposed, and a disabled
hook stays disabled for the next daemon that reads the same state directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookd_client import messages as m

from .conftest import InProcess

DENY = m.HookSpec(
    "deny-all", "tool.approval.pre", "decision", "sh", args=["-c", 'echo \'{"decision": "deny", "reason": "session guard"}\'']
)


def test_a_session_hook_guards_its_session_only_until_disposed(in_process: Any) -> None:
    async def scenario(d: InProcess) -> list[Any]:
        attached = await d.call(m.AttachSession(d.id(), "s1", hooks=[DENY]))
        mine = await d.call(m.Decide(d.id(), "tool.approval.pre", {}, session="s1"))
        other = await d.call(m.Decide(d.id(), "tool.approval.pre", {}, session="s2"))
        listed = await d.call(m.ListHooks(d.id()))
        disposed = await d.call(m.DisposeSession(d.id(), "s1"))
        after = await d.call(m.Decide(d.id(), "tool.approval.pre", {}, session="s1"))
        return [attached, mine, other, listed, disposed, after]

    attached, mine, other, listed, disposed, after = in_process(scenario)
    assert isinstance(attached, m.Attached) and len(attached.handles) == 1
    assert isinstance(mine, m.Outcome) and mine.decision == "deny" and mine.reason == "session guard"
    assert isinstance(other, m.Outcome) and other.decision is None
    assert isinstance(listed, m.HookList) and [(h.name, h.scope, h.owner) for h in listed.hooks] == [("deny-all", "session", "s1")]
    assert not isinstance(disposed, m.Error), disposed
    assert isinstance(after, m.Outcome) and after.decision is None


def test_a_disabled_hook_stays_disabled_for_the_next_daemon(in_process: Any, home: Path) -> None:
    hooks = home / "config" / "hookd" / "hooks.yaml"
    hooks.parent.mkdir(parents=True)
    hooks.write_text(
        "hooks:\n"
        "  - name: guard\n    point: tool.approval.pre\n    type: decision\n    enabled: true\n"
        "    command: printf\n    args: ['%s', '{\"decision\": \"deny\"}']\n"
    )

    async def disable(d: InProcess) -> list[Any]:
        d.daemon.files.load_global_now()
        before = await d.call(m.Decide(d.id(), "tool.approval.pre", {}))
        done = await d.call(m.DisableHook(d.id(), "guard"))
        off = await d.call(m.Decide(d.id(), "tool.approval.pre", {}))
        return [before, done, off]

    async def restarted(d: InProcess) -> m.Reply:
        d.daemon.files.load_global_now()
        return await d.call(m.Decide(d.id(), "tool.approval.pre", {}))

    before, done, off = in_process(disable)
    assert isinstance(before, m.Outcome) and before.decision == "deny", before
    assert not isinstance(done, m.Error), done
    assert isinstance(off, m.Outcome) and off.decision is None
    recorded = json.loads((home / "state" / "hookd" / "toggles.json").read_text())
    assert "guard" in json.dumps(recorded)
    again = in_process(restarted)
    assert isinstance(again, m.Outcome) and again.decision is None, "a restart turned a disabled hook back on"
