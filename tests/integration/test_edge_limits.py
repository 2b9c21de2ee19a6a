"""Connection deadlines and byte bounds (docs/protocol.md, "Limits"), on a real daemon."""

from __future__ import annotations

import asyncio
import os
import stat
import time
from pathlib import Path

import pytest
from hookd_client import AsyncClient, Client
from hookd_client import messages as m
from hookd_client.framing import reply_codec

from hookd.edge.server import bind_socket

from .test_edge_replies import Raw

POINT = "tool.approval.pre"


def _closed_with(raw: Raw) -> list[m.Reply]:
    replies = raw.recv_until_closed()
    raw.close()
    return replies


def test_a_connection_that_never_says_hello_is_closed(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--hello-timeout", "0.5")
    raw = Raw(d.socket, hello=False)
    replies = _closed_with(raw)
    assert len(replies) == 1 and isinstance(replies[0], m.Error) and replies[0].code == m.ErrorCode.TIMEOUT
    assert "no hello" in replies[0].message


def test_a_half_frame_is_not_kept_for_ever(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--frame-timeout", "0.5")
    raw = Raw(d.socket)
    whole = reply_codec().encode(m.StatusRequest(2))
    raw.sock.sendall(whole + whole[:5])  # one request, then the start of another that never ends
    replies = _closed_with(raw)
    assert isinstance(replies[0], m.Status) and replies[0].id == 2
    assert isinstance(replies[1], m.Error) and "frame was not completed" in replies[1].message


def test_a_slow_trickle_of_one_frame_does_not_reset_its_deadline(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--frame-timeout", "1")
    raw = Raw(d.socket)
    body = reply_codec().encode(m.StatusRequest(2)) + b"x" * 1000
    closed = False
    for i in range(len(body)):  # one byte every 50 ms: would take 50 s
        try:
            raw.sock.sendall(body[i : i + 1])
        except OSError:
            closed = True
            break
        raw.sock.settimeout(0.05)
        try:
            if raw.sock.recv(65536) == b"":
                closed = True
                break
        except TimeoutError:
            pass
        except OSError:
            closed = True
            break
    raw.close()
    assert closed, "a frame trickled byte by byte kept the connection open"


def test_idle_connections_holding_nothing_are_closed_but_holders_are_not(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--idle-timeout", "1")
    holder = Raw(d.socket)
    holder.send(m.AttachSession(2, "kept", None, []))
    assert isinstance(holder.recv(), m.Attached)
    idle = Raw(d.socket)
    replies = _closed_with(idle)  # waits for the close
    assert len(replies) == 1 and replies[0].code == m.ErrorCode.TIMEOUT and "idle" in replies[0].message  # type: ignore[attr-defined]
    time.sleep(2)  # twice the idle deadline: the holder stays
    holder.send(m.StatusRequest(3))
    status = holder.recv()
    assert isinstance(status, m.Status) and status.sessions == 1
    holder.close()


def test_a_request_in_flight_past_the_idle_deadline_is_answered_then_the_idle_connection_closes(daemon_factory):  # type: ignore[no-untyped-def]
    # The idle deadline keeps running while a request waits for its hooks; expiring then, it
    # starts over instead of closing: the connection is only closed once it has nothing left.
    d = daemon_factory("--no-user-hooks", "--idle-timeout", "1")
    with Client(d.socket) as holder:
        slow = {"name": "slow", "point": POINT, "type": "decision", "command": "sleep", "args": ["2.5"], "timeout": 60}
        holder.attach_session("s1", [slow])
        idle = Raw(d.socket)  # holds nothing: idle-bound
        idle.send(m.Decide(2, POINT, {}, "s1", None))
        outcome = idle.recv()  # the hook runs 2.5 s, past the 1 s deadline
        assert isinstance(outcome, m.Outcome) and outcome.id == 2 and not outcome.errors and not outcome.not_run, outcome
        replies = _closed_with(idle)
        assert len(replies) == 1 and replies[0].code == m.ErrorCode.TIMEOUT and "idle" in replies[0].message  # type: ignore[attr-defined]


def test_connections_past_the_cap_are_refused_with_a_clear_error(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--max-connections", "5")
    held = [Raw(d.socket) for _ in range(5)]
    refused = Raw(d.socket, hello=False)
    replies = _closed_with(refused)
    assert len(replies) == 1 and replies[0].code == m.ErrorCode.LIMIT  # type: ignore[attr-defined]
    assert "at most 5 connections" in replies[0].message  # type: ignore[attr-defined]
    held.pop().close()
    deadline = time.monotonic() + 30
    while True:  # the freed slot is taken again once the daemon has seen the close
        try:
            again = Raw(d.socket)
            break
        except (AssertionError, OSError):
            assert time.monotonic() < deadline, "a freed slot was never reused"
            time.sleep(0.05)
    again.send(m.StatusRequest(9))
    assert isinstance(again.recv(), m.Status)
    for r in [*held, again]:
        r.close()


def test_a_peer_that_stops_reading_is_dropped_and_its_callbacks_fail_at_once(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--max-write-buffer", "65536")
    holder = Raw(d.socket)
    spec = m.CallbackSpec(cb=1, name="guard", point=POINT, type="decision", timeout=600, on_error="deny")
    holder.send(m.AttachHooks(2, "s1", None, [m.CallbackEntry(spec)]))
    assert isinstance(holder.recv(), m.Attached)
    # The holder never reads again. Invokes carry the payload: 200 x 16 KiB cannot all be queued.
    blob = "x" * (16 << 10)

    async def main() -> list[m.Outcome]:
        async with AsyncClient(d.socket) as c:
            return await asyncio.wait_for(asyncio.gather(*(c.decide(POINT, {"i": i, "blob": blob}, session="s1") for i in range(200))), 120)

    outs = asyncio.run(main())
    # Each decide whose invoke had been sent fails now (not at the 600 s timeout) and, with on_error deny, denies.
    invoked = [o for o in outs if o.errors]
    assert invoked, outs[:3]
    assert all(o.decision == "deny" and "disconnected" in o.errors[0].message for o in invoked), invoked[:3]
    assert "peer does not read" in d.log()
    holder.close()
    with Client(d.socket) as c:
        assert c.status().pid > 0


def test_bind_socket_refuses_a_symlinked_directory_and_never_chmods_its_target(tmp_path: Path):
    target = tmp_path / "target"
    target.mkdir(mode=0o755)
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(PermissionError, match="symbolic link"):
        bind_socket(str(link / "hookd.sock"))
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert not (target / "hookd.sock").exists()


def test_bind_socket_refuses_a_directory_others_can_write(tmp_path: Path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(PermissionError, match="writable by others"):
        bind_socket(str(shared / "hookd.sock"))
    assert stat.S_IMODE(shared.stat().st_mode) == 0o777


def test_bind_socket_creates_its_directory_private(tmp_path: Path):
    old = os.umask(0)
    try:
        listener = bind_socket(str(tmp_path / "fresh" / "hookd.sock"))
    finally:
        os.umask(old)
    try:
        assert stat.S_IMODE((tmp_path / "fresh").lstat().st_mode) == 0o700
        assert stat.S_IMODE(os.lstat(listener.path).st_mode) == 0o600
    finally:
        listener.sock.close()
        listener.remove()


def test_bind_socket_refuses_a_directory_of_another_user(tmp_path: Path):
    if os.getuid() != 0:
        pytest.skip("only root can make a directory that belongs to someone else")
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(PermissionError, match="belongs to uid 65534"):
        bind_socket(str(theirs / "hookd.sock"))
