"""A step of the stop that fails does not cost the replies: every open request is still answered.

The service runs in this process so that a step of its stop can be made to fail; a call
waiting for a slow hook when the stop begins must still get its one reply
(``shutting_down``: the drain ends before the hook does), and the stop must end cleanly.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from pathlib import Path

import pytest
from hookd_client import Client, HookdError

from hookd.core.settings import Settings
from hookd.edge.server import bind_socket
from hookd.edge.service import Service

from ..conftest import make_env, write_script

POINT = "tool.approval.pre"
SLOW = """
import sys, time
sys.stdin.read()
print("started", file=open(sys.argv[1], "w"), flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("failing", ["begin_shutdown", "drain"])
def test_a_failing_stop_step_still_answers_the_call_in_flight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    # The daemon runs in this process: its files follow this process's environment, which must
    # point into the test's own temporary HOME.
    sandbox = make_env(tmp_path / "sandbox")
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        monkeypatch.setenv(name, sandbox.env[name])
    marker = tmp_path / "started"
    hook = write_script(tmp_path / "slow.py", SLOW)
    spec = {"name": "slow", "point": POINT, "type": "decision", "command": str(hook), "args": [str(marker)], "timeout": 300}
    settings = Settings(socket=str(tmp_path / "hookd.sock"), load_user_config=False)
    service = Service(settings, drain=0.5)
    if failing == "begin_shutdown":
        original = service.daemon.begin_shutdown

        def begin_shutdown() -> None:
            original()
            raise RuntimeError("a step of the stop failed")

        monkeypatch.setattr(service.daemon, "begin_shutdown", begin_shutdown)
    else:
        drain = service._drain

        async def failing_drain() -> None:
            await drain()
            raise RuntimeError("a step of the stop failed")

        monkeypatch.setattr(service, "_drain", failing_drain)
    loops: list[asyncio.AbstractEventLoop] = []
    ready = threading.Event()
    seen: dict[str, object] = {}

    def agent() -> None:
        ready.wait(60)
        with Client(settings.socket, timeout=60) as owner:
            owner.attach_session("s1", [spec])
            with Client(settings.socket, timeout=60) as caller:
                done = threading.Event()

                def call() -> None:
                    try:
                        seen["outcome"] = caller.decide(POINT, {}, session="s1")
                    except HookdError as exc:
                        seen["error"] = exc
                    done.set()

                threading.Thread(target=call, daemon=True).start()
                # The hook runs: the call is in flight. Then the stop begins.
                for _ in range(6000):
                    if marker.exists() or done.is_set():
                        break
                    done.wait(0.01)
                loops[0].call_soon_threadsafe(service._on_signal, signal.SIGTERM)
                done.wait(60)

    async def main() -> int:
        loops.append(asyncio.get_running_loop())
        listener = bind_socket(settings.socket)
        asyncio.get_running_loop().call_soon(ready.set)
        return await service.run(listener)

    thread = threading.Thread(target=agent, daemon=True)
    thread.start()
    assert asyncio.run(main()) == 0
    thread.join(60)
    assert marker.exists(), seen
    error = seen.get("error")
    assert isinstance(error, HookdError) and error.code == "shutting_down", seen
