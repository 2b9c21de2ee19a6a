"""After a daemon restart a client's handles still name its own hooks (or fail clearly, sending nothing),
and a call made while the client sat idle is sent on the new connection instead of failing."""

from __future__ import annotations

import asyncio

import pytest
from hookd_client import AsyncClient, Client, HookdError

from .test_daemon_restart import POINT, command_hook, deny_script

OTHER = "custom.other"


def other_hook(name: str, script: str) -> dict:
    return {**command_hook(name, script), "point": OTHER}


def test_handles_held_across_a_restart_never_name_another_hook(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()
    with Client(daemon.socket) as a:
        global_handle = a.register(command_hook("a-global", deny_script(tmp_path, "a global")))
        (session_handle,) = a.attach_session("s1", [command_hook("a-session", deny_script(tmp_path, "a session"))])
        assert a._served is None  # a calling-only client: it learns of the restart on its next call
        daemon.kill()
        daemon = daemon_factory()
        with Client(daemon.socket) as b:
            # The daemon's handles differ between its lifetimes; the client must not rely on it,
            # so whatever b's hooks are called, a's stale handles must never reach them.
            for i in range(2):
                b.register(other_hook(f"b-{i}", deny_script(tmp_path, f"b {i}")))
            # a's first call after the restart: sent on the new connection, sessions restored first.
            assert a.decide(POINT, {}, session="s1").reason == "a session"
            with pytest.raises(HookdError) as caught:
                a.unregister(global_handle)  # its hook went with the old daemon
            assert caught.value.code == "stale_handle" and "nothing was removed" in caught.value.message
            assert a.unregister(session_handle) == 1  # the restored hook, under its new handle
            assert a.decide(POINT, {}, session="s1").decision is None
            # b's hooks are all still there.
            assert sorted(h.name for h in b.list_hooks().hooks if h.point == OTHER) == ["b-0", "b-1"]
            assert b.decide(OTHER, {}).reason == "b 0"


def test_a_handler_client_maps_its_handles_after_a_restart(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()
    with Client(daemon.socket) as a:
        handle = a.register_decision(POINT, lambda p: {"decision": "deny", "reason": "handler"}, session="s1")
        global_handle = a.register(command_hook("a-global", deny_script(tmp_path, "a global")))
        daemon.kill()
        daemon = daemon_factory()
        with Client(daemon.socket) as b:
            b.register(other_hook("b-0", deny_script(tmp_path, "b 0")))
            b.register(other_hook("b-1", deny_script(tmp_path, "b 1")))
            assert a.decide(POINT, {}, session="s1").reason == "handler"
            with pytest.raises(HookdError, match="stale_handle"):
                a.unregister(global_handle)
            assert handle.unsubscribe() == 1
            assert a.decide(POINT, {}, session="s1").decision is None
            assert sorted(h.name for h in b.list_hooks().hooks if h.point == OTHER) == ["b-0", "b-1"]


def test_an_idle_clients_next_call_goes_to_the_new_daemon(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()
    script = deny_script(tmp_path, "restored")
    with Client(daemon.socket) as sync_client:
        sync_client.attach_session("s1", [command_hook("cmd", script)])
        assert sync_client.status().pid == daemon.proc.pid
        daemon.kill()
        daemon = daemon_factory()
        assert sync_client.status().pid == daemon.proc.pid  # not ConnectionLost: it never left
        assert sync_client.decide(POINT, {}, session="s1").reason == "restored"

    async def main() -> None:
        nonlocal daemon
        async with AsyncClient(daemon.socket) as c:
            await c.attach_session("s2", [command_hook("cmd", script)])
            assert (await c.status()).pid == daemon.proc.pid
            daemon.kill()
            daemon = await asyncio.to_thread(daemon_factory)
            assert (await c.status()).pid == daemon.proc.pid
            assert (await c.decide(POINT, {}, session="s2")).reason == "restored"

    asyncio.run(main())


def test_unregister_as_the_first_call_after_a_restart_removes_the_restored_hook(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()
    with Client(daemon.socket) as a:
        a.register(command_hook("a-global", deny_script(tmp_path, "a global")))
        (handle,) = a.attach_session("s1", [command_hook("a-session", deny_script(tmp_path, "a session"))])
        daemon.kill()
        daemon = daemon_factory()
        with Client(daemon.socket) as b:
            for i in range(3):
                b.register(other_hook(f"b-{i}", deny_script(tmp_path, f"b {i}")))
            # Sent on the new connection once the restore gave the hook its new handle.
            assert a.unregister(handle) == 1
            assert a.decide(POINT, {}, session="s1").decision is None
            assert sorted(h.name for h in b.list_hooks().hooks if h.point == OTHER) == ["b-0", "b-1", "b-2"]
