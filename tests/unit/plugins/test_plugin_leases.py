"""A retired plugin host stops only when its last lease is released (a real host process, in-process manager)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from hookd.core.chain import HookNotRun
from hookd.core.hooks import Verdict
from hookd.core.registry import CallContext, Hook, Registry
from hookd.plugins import snapshot
from hookd.plugins.hosthandle import HostHandle, Unloaded
from hookd.plugins.manager import PluginManager
from hookd.runners.command import ProcessGroups

SOURCE = "def P(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(PID=str(__import__('os').getpid()))}\n"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def _until(check, what: str, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.05)


def test_a_leased_host_outlives_its_retirement_until_released(tmp_path: Path) -> None:
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "p.py").write_text(SOURCE)
    environ = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    published: list[tuple[str, dict]] = []

    async def main() -> None:
        manager = PluginManager(
            Registry(), lambda p, payload, _proj: published.append((p, payload)), "/nonexistent.sock", 10.0, ProcessGroups(),
            lambda _d: Verdict(True, "test"), environ,
        )  # fmt: skip
        copy = snapshot.materialize(snapshot.take(str(d)), environ)
        host = HostHandle(str(d), "global", "", None, manager, copy)
        await host.start()
        hook = Hook("plugins:shell.env", "shell.env", "decision", "global", "", str(d), host)
        ctx = CallContext("shell.env", None, None)
        first = await host(hook, {}, ctx)
        assert first is not None and first.modified_output is not None
        pid = int(first.modified_output["env"]["PID"])

        release = host.lease(hook)
        assert host.retire() is None  # leased: not stopping yet
        again = await host(hook, {}, ctx)  # the leased call is still answered, by the same process
        assert again is not None and again.modified_output == first.modified_output
        assert _alive(pid) and os.path.isdir(copy.files)

        release()
        release()  # idempotent
        assert host.stopping is not None
        await host.stopping
        await _until(lambda: not _alive(pid), "the retired host to stop")
        assert not os.path.exists(copy.root)

    asyncio.run(main())


def test_a_placeholder_names_its_hook_as_not_run(tmp_path: Path) -> None:
    runner = Unloaded(str(tmp_path), "plugin_failed", "pip install failed")
    hook = Hook("plugins:permission.ask", "permission.ask", "decision", "global", "", str(tmp_path), runner)

    async def main() -> None:
        try:
            await runner(hook, {}, CallContext("permission.ask", None, None))
        except HookNotRun as exc:
            assert exc.reason == "plugin_failed" and exc.message == "pip install failed"
        else:
            raise AssertionError("a placeholder ran")

    asyncio.run(main())
