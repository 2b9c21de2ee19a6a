"""Approvals over the bus against a real daemon: a decide whose chain ends in ask waits for a person.
With no approver connected, in process: tests/daemon/test_approvals.py."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from hookd_client import AsyncClient, HookdError
from hookd_client.approver import ApprovalClosed, ApprovalOffer, AsyncApprover

from ..conftest import write_script
from .test_session_lifecycle import POINT, start_holder

HANG_GUARD = 60.0  # seconds; only so a bug cannot hang the suite
PAYLOAD = {"toolName": "execute_command", "args": {"command": "rm -rf build"}}


@pytest.fixture
def asking(env, tmp_path):  # type: ignore[no-untyped-def]
    """A global decision hook that asks for every rm, denies sudo, and answers nothing otherwise."""
    script = write_script(
        tmp_path / "ask.py",
        """
        import json, sys
        call = json.load(sys.stdin)
        command = call.get("payload", call).get("args", {}).get("command", "")
        if command.startswith("rm "):
            print(json.dumps({"decision": "ask", "reason": "rm needs a person"}))
        elif command.startswith("sudo "):
            print(json.dumps({"decision": "deny", "reason": "no sudo"}))
        """,
    )
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: rm-asks, point: tool.approval.pre, type: decision, command: {script}, enabled: true}}
        """
    )
    return script


async def _offer(approver: AsyncApprover) -> ApprovalOffer:
    while True:
        item = await approver.next(HANG_GUARD)
        if isinstance(item, ApprovalOffer):
            return item


async def _closed(approver: AsyncApprover, offer: int) -> ApprovalClosed:
    while True:
        item = await approver.next(HANG_GUARD)
        if isinstance(item, ApprovalClosed) and item.approval.offer == offer:
            return item


def test_the_first_answer_decides_and_the_second_is_refused(asking, daemon):
    async def main():  # type: ignore[no-untyped-def]
        async with (
            AsyncApprover(daemon.socket, name="alice") as alice,
            AsyncApprover(daemon.socket, name="bob") as bob,
            AsyncClient(daemon.socket) as agent,
        ):
            assert alice.approving.default == "deny" and alice.approving.pending == 0
            call = asyncio.ensure_future(agent.decide("tool.approval.pre", PAYLOAD, session="s1"))
            seen_a, seen_b = await _offer(alice), await _offer(bob)
            assert seen_a.offer == seen_b.offer
            assert seen_a.point == "tool.approval.pre" and seen_a.session == "s1" and seen_a.payload == PAYLOAD
            assert seen_a.reason == "rm needs a person" and seen_a.asked_by.name == "rm-asks"
            assert not call.done()
            answered = await alice.answer(seen_a.offer, "allow", "a clean build is fine")
            assert answered.decision == "allow"
            with pytest.raises(HookdError) as late:
                await bob.answer(seen_b.offer, "deny", "too late")
            assert late.value.code == "conflict" and "alice" in late.value.message
            closed = await _closed(bob, seen_b.offer)
            out = await asyncio.wait_for(call, HANG_GUARD)
            return out, closed

    out, closed = asyncio.run(main())
    assert out.decision == "allow"
    assert out.reason.startswith("allowed by alice (") and out.reason.endswith(": a clean build is fine")
    assert out.approval.by.name == "alice" and out.approval.by.pid == os.getpid() and not out.approval.expired
    assert closed.approval.decision == "allow" and closed.approval.by.name == "alice"


@pytest.mark.parametrize(("extra", "default"), [((), "deny"), (("--approval-default", "allow"), "allow")])
def test_the_deadline_applies_the_configured_default(asking, daemon_factory, extra, default):
    daemon = daemon_factory("--approval-timeout", "0.5", *extra)

    async def main():  # type: ignore[no-untyped-def]
        async with AsyncApprover(daemon.socket, name="silent") as silent, AsyncClient(daemon.socket) as agent:
            call = asyncio.ensure_future(agent.decide("tool.approval.pre", PAYLOAD, session="s1"))
            offer = await _offer(silent)  # offered, and never answered
            closed = await _closed(silent, offer.offer)
            with pytest.raises(HookdError) as late:
                await silent.answer(offer.offer, "allow")
            assert late.value.code == "conflict"
            return await asyncio.wait_for(call, HANG_GUARD), closed

    out, closed = asyncio.run(main())
    assert out.decision == default and out.approval.expired and out.approval.by is None
    assert "approval deadline expired" in out.reason and f"the default applies ({default})" in out.reason
    assert closed.approval.expired and closed.approval.decision == default


def test_an_approver_leaving_mid_offer_does_not_lose_the_call(asking, daemon):
    async def main():  # type: ignore[no-untyped-def]
        async with AsyncClient(daemon.socket) as agent:
            first = await AsyncApprover(daemon.socket, name="leaves").open()
            call = asyncio.ensure_future(agent.decide("tool.approval.pre", PAYLOAD, session="s1"))
            offer = await _offer(first)
            await first.close()  # gone before answering
            async with AsyncApprover(daemon.socket, name="arrives") as second:
                assert second.approving.pending == 1
                again = await _offer(second)  # the open offer is offered to an approver that joins later
                assert again.offer == offer.offer and again.payload == PAYLOAD
                await second.answer(again.offer, "deny", "not today")
            return await asyncio.wait_for(call, HANG_GUARD)

    out = asyncio.run(main())
    assert out.decision == "deny" and out.approval.by.name == "arrives"
    assert out.reason == f"denied by arrives ({out.approval.by.client}, pid {os.getpid()}): not today"


def test_a_call_that_does_not_ask_is_never_offered(asking, daemon):
    async def main():  # type: ignore[no-untyped-def]
        async with AsyncApprover(daemon.socket, name="idle") as idle, AsyncClient(daemon.socket) as agent:
            out = await agent.decide("tool.approval.pre", {"toolName": "read", "args": {"command": "ls"}}, session="s1")
            return out, dict(idle.pending)

    out, pending = asyncio.run(main())
    assert out.decision is None and out.approval is None and pending == {}


def test_answers_are_checked(asking, daemon):
    async def main():  # type: ignore[no-untyped-def]
        async with AsyncApprover(daemon.socket, name="a") as a, AsyncClient(daemon.socket) as plain:
            with pytest.raises(HookdError) as unknown:
                await a.answer(999, "allow")
            from hookd_client.messages import ApprovalAnswer

            reply = await plain._roundtrip(ApprovalAnswer(plain._next_id(), 1, "allow"))  # not an approver
            return unknown.value.code, reply

    code, reply = asyncio.run(main())
    assert code == "not_found"
    assert reply.code == "bad_request" and "approvals" in reply.message


def test_the_journal_holds_offer_answer_and_the_decided_call(asking, env, daemon):
    async def main():  # type: ignore[no-untyped-def]
        async with AsyncApprover(daemon.socket, name="alice") as alice, AsyncClient(daemon.socket) as agent:
            call = asyncio.ensure_future(agent.decide("tool.approval.pre", PAYLOAD, session="s-journal"))
            offer = await _offer(alice)
            await alice.answer(offer.offer, "deny", "no")
            return await asyncio.wait_for(call, HANG_GUARD), offer

    out, offer = asyncio.run(main())
    assert out.decision == "deny"
    assert daemon.stop() == 0  # a clean stop: every event is written
    journal = Path(env.state) / "hookd" / "events.jsonl"
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    mine = [e for e in events if e.get("session") == "s-journal"]
    points = [e["point"] for e in mine]
    assert points == ["hookd.approval.offered", "hookd.approval.answered", "tool.approval.pre"]
    offered, answered, decided = mine
    assert offered["payload"]["offer"] == offer.offer and offered["payload"]["hook"] == "rm-asks"
    assert answered["payload"]["approver"] == "alice" and answered["payload"]["decision"] == "deny"
    assert decided["decision"] == "deny" and decided["reason"] == out.reason


class _Output:
    """A child's stdout, read by a thread; ``wait_for`` blocks (bounded) until a text shows up."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        import threading

        self.text = ""
        self._changed = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:  # type: ignore[no-untyped-def]
        while chunk := stream.read1(4096):
            with self._changed:
                self.text += chunk.decode(errors="replace")
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, needle: str, after: int = 0) -> int:
        with self._changed:
            assert self._changed.wait_for(lambda: needle in self.text[after:], HANG_GUARD), self.text
            return self.text.index(needle, after) + len(needle)


def test_hookd_approve_at_a_terminal_decides_a_waiting_call(asking, env, daemon):
    import subprocess
    import threading

    from ..conftest import HOOKD

    proc = subprocess.Popen(
        [*HOOKD, "approve", "--name", "carol", "--once"], env=env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        out = _Output(proc.stdout)
        out.wait_for("approving as carol: 0 waiting; unanswered calls get deny after 120 s")
        result: list = []

        def decide() -> None:
            with daemon.client() as c:
                result.append(c.decide("tool.approval.pre", PAYLOAD, session="s-tty"))

        agent = threading.Thread(target=decide)
        agent.start()
        shown = out.wait_for("> ")
        screen = out.text[:shown]
        assert "tool.approval.pre  (session s-tty)" in screen
        assert "asked by rm-asks (global, " in screen and "): rm needs a person" in screen
        assert 'tool execute_command; args {"command": "rm -rf build"}' in screen
        proc.stdin.write(b"d no way\n")
        proc.stdin.flush()
        agent.join(HANG_GUARD)
        assert proc.wait(HANG_GUARD) == 0
    finally:
        proc.kill()
        proc.wait()
    decided = result[0]
    assert decided.decision == "deny" and decided.approval.by.name == "carol" and decided.approval.by.client == "hookd-approve"
    assert decided.reason == f"denied by carol (hookd-approve, pid {proc.pid}): no way"


def test_a_daemon_that_stops_decides_waiting_calls_by_the_default(asking, daemon):
    import signal

    async def main():  # type: ignore[no-untyped-def]
        async with AsyncApprover(daemon.socket, name="watcher") as watcher, AsyncClient(daemon.socket) as agent:
            call = asyncio.ensure_future(agent.decide("tool.approval.pre", PAYLOAD, session="s-stop"))
            await _offer(watcher)
            daemon.signal(signal.SIGTERM)  # the call must not wait for the drain's end, nor lose its reply
            return await asyncio.wait_for(call, HANG_GUARD)

    out = asyncio.run(main())
    assert out.decision == "deny" and out.approval.expired
    assert "the daemon is stopping" in out.reason and "the default applies (deny)" in out.reason
    assert daemon.proc.wait(HANG_GUARD) == 0


def test_an_ask_from_a_guard_that_could_not_run_is_offered_too(daemon_factory):  # type: ignore[no-untyped-def]
    """No decision hook runs, yet the chain ends in ask: a callback guard whose client died,
    with on_error: ask. That ask waits for a person like any other."""
    daemon = daemon_factory("--no-user-hooks", "--session-grace", "600")
    holder = start_holder(daemon, "ask")
    holder.kill()
    holder.wait()

    async def main():  # type: ignore[no-untyped-def]
        async with AsyncApprover(daemon.socket, name="carol") as carol, AsyncClient(daemon.socket) as agent:
            call = asyncio.ensure_future(agent.decide(POINT, {}, session="held"))
            offer = await _offer(carol)
            assert offer.session == "held" and offer.point == POINT
            await carol.answer(offer.offer, "deny", "not while its guard is away")
            return await asyncio.wait_for(call, HANG_GUARD)

    out = asyncio.run(main())
    assert [(n.hook.name, n.reason) for n in out.not_run] == [("held-guard", "disconnected")], out
    assert out.decision == "deny" and out.reason.endswith(": not while its guard is away"), out
    assert out.approval is not None and out.approval.by.name == "carol"


def test_hookd_approve_without_user_names_the_login_name(env, daemon):
    import pwd
    import subprocess

    from ..conftest import HOOKD

    login = pwd.getpwuid(os.getuid()).pw_name
    bare = {k: v for k, v in env.env.items() if k not in ("USER", "LOGNAME")}
    proc = subprocess.Popen([*HOOKD, "approve", "--once"], env=bare, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out = _Output(proc.stdout)
        out.wait_for(f"approving as {login}: ")
    finally:
        proc.kill()
        proc.wait()
