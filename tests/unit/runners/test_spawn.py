"""hookd.runners.spawn: the pidfd-based spawn path that command hooks use."""

from __future__ import annotations

import asyncio
import os

import pytest

from hookd.core.hooks import HookFailure
from hookd.runners import spawn
from hookd.runners.command import CommandRunner, Limits

from ...processes import gone_soon

pytestmark = pytest.mark.skipif(not spawn.AVAILABLE, reason="no pidfds on this kernel")
ENV = dict(os.environ)


def run(argv: list[str], stdin: bytes = b"", limits: Limits | None = None) -> tuple[bytes, bytes, int]:
    return asyncio.run(asyncio.wait_for(CommandRunner(limits).run(argv, stdin, ENV, "/"), 30))


def test_stdin_larger_than_a_pipe_buffer_goes_through_and_the_status_comes_back() -> None:
    data = os.urandom(300_000).hex().encode()
    out, err, code = run(["sh", "-c", "cat; echo done >&2; exit 3"], data)
    assert out == data and err == b"done\n" and code == 3


def test_stdout_over_the_cap_is_an_error_and_stderr_keeps_its_head() -> None:
    with pytest.raises(HookFailure, match="stdout exceeded the cap of 1000 bytes"):
        run(["sh", "-c", "head -c 5000 /dev/zero"], limits=Limits(stdout_cap=1000))
    _, err, code = run(["sh", "-c", "printf abc >&2; head -c 5000 /dev/zero >&2"], limits=Limits(stderr_cap=10))
    assert err == b"abc" + b"\0" * 7 and code == 0


def test_a_hook_that_ignores_its_input_is_fine() -> None:
    assert run(["true"], b"x" * 500_000)[2] == 0


def test_a_missing_command_is_named() -> None:
    with pytest.raises(HookFailure, match="command not found"):
        run(["/nonexistent/hook"])


def test_cancelling_kills_the_process_group() -> None:
    async def main() -> int:
        runner = CommandRunner()
        task = asyncio.ensure_future(runner.run(["sh", "-c", "sleep 300 & echo $!; wait"], b"", ENV, "/"))
        await asyncio.sleep(0.5)
        (pgid,) = runner.groups.live
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(1.5)  # TERM, then KILL after the grace period
        return pgid

    pgid = asyncio.run(main())
    assert gone_soon(pgid)
