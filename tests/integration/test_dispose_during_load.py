"""dispose_project while the project's plugins load: nothing of the project is left, nor comes back.

A real daemon, a real project plugin directory whose module waits on import until the test opens a
gate (so its load is under way for as long as the test needs), real plugin host processes checked by
pid. A request that names the project is sent together with the dispose, on one connection, so it
reaches the daemon before the dispose but starts its work after it: it must not load the project
again.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from hookd_client import AsyncClient, Client

from .test_plugin_guards import _running
from .test_plugins import eventually, plugin

HANG_GUARD = 120.0


def _slow_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    gate, pids, project = tmp_path / "gate", tmp_path / "pids", tmp_path / "repo"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(
        "hooks:\n  - {name: project-guard, point: tool.approval.pre, type: decision, command: 'true', enabled: true}\n"
    )
    plugin(
        project / ".hookd" / "plugins",
        "slow.py",
        f"""
        import os, time
        with open({str(pids)!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        deadline = time.monotonic() + 120
        while not os.path.exists({str(gate)!r}) and time.monotonic() < deadline:
            time.sleep(0.02)

        def Guard(ctx):
            return {{"permission.ask": lambda i, o: o.update(status="deny")}}
        """,
    )
    return gate, pids, project


def _host_pids(pids: Path) -> list[int]:
    return [int(p) for p in pids.read_text().split()] if pids.exists() else []


@pytest.mark.parametrize("request_kind", ["decide", "reload", "emit"])
def test_a_dispose_during_a_plugin_load_leaves_nothing_and_nothing_comes_back(env, daemon_factory, tmp_path, request_kind):
    gate, pids, project = _slow_project(tmp_path)
    d = daemon_factory()
    with Client(d.socket, timeout=HANG_GUARD) as c:
        baseline = c.status().hooks
        first: dict[str, object] = {}

        def load() -> None:  # an agent's call on the project starts its load
            with Client(d.socket, timeout=HANG_GUARD) as agent:
                first["out"] = agent.decide("permission.ask", {"type": "bash"}, project=str(project))

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        eventually(lambda: _host_pids(pids), "the project's plugin host to be importing")

        async def named_then_disposed() -> list[object]:
            async with AsyncClient(d.socket) as agent:
                if request_kind == "decide":
                    named = agent.decide("permission.ask", {"type": "bash"}, project=str(project))
                elif request_kind == "emit":
                    named = agent.emit("custom.seen", {}, project=str(project), wait=True)
                else:
                    named = agent.reload_user_hooks(str(project))
                # Both frames go out before either answer comes back.
                replies = asyncio.gather(named, agent.dispose_project(str(project)), return_exceptions=True)
                gate.touch()  # the load under way may now finish
                return await asyncio.wait_for(replies, HANG_GUARD)

        replies = asyncio.run(named_then_disposed())
        assert not any(isinstance(r, BaseException) for r in replies), replies
        thread.join(HANG_GUARD)
        assert "out" in first

        # Every request that named the project before the dispose is answered: nothing of it is left.
        assert c.status().hooks == baseline
        assert not [h for h in c.list_hooks().hooks if h.scope == "project"]
        assert not [p for p in c.status().plugins if p.directory.startswith(str(project))]
        started = _host_pids(pids)
        assert started
        for pid in started:
            eventually(lambda pid=pid: not _running(pid), f"plugin host {pid} of the disposed project to be gone", timeout=HANG_GUARD)
        # And still nothing once every host is gone: no load was left waiting to put them back.
        assert c.status().hooks == baseline
        assert _host_pids(pids) == started

        # A request that names the project after the dispose loads it afresh.
        eventually(
            lambda: c.decide("permission.ask", {"type": "bash"}, project=str(project)).decision == "deny",
            "the project named again to load with its plugin",
            timeout=HANG_GUARD,
        )
