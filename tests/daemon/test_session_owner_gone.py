"""A session outlives its owner's connection by the daemon's grace period: `list_hooks` says so of
each of its hooks (owner_gone, and the seconds until the session ends), and stops saying it once an
owner attaches the session again. Through the daemon's dispatch, in process."""

from __future__ import annotations

from typing import Any

from hookd_client import messages as m

from .conftest import FakePeer, InProcess

GUARD = m.HookSpec("sg", "tool.approval.pre", "decision", "/bin/true")


def _session_hooks(listed: m.Reply) -> list[m.HookInfo]:
    assert isinstance(listed, m.HookList), listed
    return [h for h in listed.hooks if h.scope == "session"]


def test_list_hooks_says_a_sessions_owner_is_gone_and_when_it_ends(in_process: Any) -> None:
    async def scenario(d: InProcess) -> list[Any]:
        owner, other = FakePeer(), FakePeer()
        await d.call(m.AttachSession(d.id(), "s1", hooks=[GUARD]), owner)
        await d.call(m.AttachSession(d.id(), "s2", hooks=[GUARD]), other)
        live = await d.call(m.ListHooks(d.id()))
        d.daemon.on_disconnect(owner)  # its connection closed: s1 waits out the grace
        gone = await d.call(m.ListHooks(d.id()))
        await d.call(m.AttachSession(d.id(), "s1"), FakePeer())  # a new owner claims it
        back = await d.call(m.ListHooks(d.id()))
        return [live, gone, back, d.daemon.settings.session_grace]

    live, gone, back, grace = in_process(scenario)
    assert [(h.owner, h.owner_gone, h.expires_in) for h in _session_hooks(live)] == [("s1", False, None), ("s2", False, None)]
    s1, s2 = _session_hooks(gone)
    assert s1.owner == "s1" and s1.owner_gone and s1.expires_in is not None and 0 < s1.expires_in <= grace, s1
    assert s2.owner == "s2" and not s2.owner_gone and s2.expires_in is None
    assert [(h.owner, h.owner_gone, h.expires_in) for h in _session_hooks(back)] == [("s1", False, None), ("s2", False, None)]
