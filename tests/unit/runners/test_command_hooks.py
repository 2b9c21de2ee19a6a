"""Command hooks as real subprocesses: every outcome the seed and the issue name."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hookd_client.messages import Decision, HookSpec

from hookd.core.hooks import HookFailure
from hookd.core.registry import CallContext, Hook, Plan
from hookd.engine.engine import Engine
from hookd.runners.command import CommandRunner, Limits

from ...conftest import write_script

CTX = CallContext("tool.approval.pre", "s1", None)


def make_hook(script: Path, type: str = "decision", timeout: float = 10, env: dict[str, str] | None = None) -> Hook:
    spec = HookSpec("h", "tool.approval.pre", type, str(script), env=env or {})  # type: ignore[arg-type]
    runner = CommandRunner(Limits(stdout_cap=4096, stderr_cap=1024))
    return Hook("h", spec.point, spec.type, "global", "", "test", runner, timeout=timeout, spec=spec)


def invoke(hook: Hook, payload: dict[str, Any] | None = None) -> Decision | None:
    async def run() -> Decision | None:
        try:
            return await Engine().invoke(hook, payload or {"args": {"command": "ls"}}, CTX)
        finally:
            await hook.runner.groups.settle()  # type: ignore[attr-defined]

    return asyncio.run(run())


def test_decision_json_on_stdout(tmp_path):
    s = write_script(
        tmp_path / "h.py", 'import json,sys; p=json.load(sys.stdin); print(json.dumps({"decision":"deny","reason":p["args"]["command"]}))'
    )
    assert invoke(make_hook(s)) == Decision("deny", reason="ls")


def test_empty_stdout_is_null(tmp_path):
    assert invoke(make_hook(write_script(tmp_path / "h.py", "import sys; sys.stdin.read()"))) is None


def test_environment_names_the_call(tmp_path):
    s = write_script(
        tmp_path / "h.py",
        """
        import json, os
        keys = ["HOOKD_POINT", "HOOKD_SESSION_ID", "HOOKD_PROJECT_DIR", "HOOKD_HOOK_NAME", "EXTRA"]
        print(json.dumps({"reason": ",".join(os.environ.get(k, "?") for k in keys)}))
        """,
    )
    got = invoke(make_hook(s, env={"EXTRA": "yes"}))
    assert got is not None and got.reason == "tool.approval.pre,s1,,h,yes"


def test_invalid_json_is_an_error_naming_the_output(tmp_path):
    s = write_script(tmp_path / "h.py", 'print("certainly, I will deny that")')
    with pytest.raises(HookFailure) as info:
        invoke(make_hook(s))
    assert "not valid JSON" in info.value.message and "certainly" in info.value.message


def test_json_that_is_not_a_decision_is_an_error(tmp_path):
    s = write_script(tmp_path / "h.py", 'print(\'{"decision": "maybe"}\')')
    with pytest.raises(HookFailure) as info:
        invoke(make_hook(s))
    assert "not a HookDecision" in info.value.message


def test_nonzero_exit_is_an_error_with_stderr(tmp_path):
    s = write_script(tmp_path / "h.py", 'import sys; sys.stderr.write("policy file missing\\n"); sys.exit(3)')
    with pytest.raises(HookFailure) as info:
        invoke(make_hook(s))
    assert "status 3" in info.value.message and "policy file missing" in info.value.message


def test_missing_command_is_an_error(tmp_path):
    with pytest.raises(HookFailure) as info:
        invoke(make_hook(tmp_path / "nope"))
    assert "command not found" in info.value.message


def test_stdout_flood_is_capped_and_reported(tmp_path):
    s = write_script(tmp_path / "h.py", 'import sys\nwhile True: sys.stdout.write("x" * 65536)')
    with pytest.raises(HookFailure) as info:
        invoke(make_hook(s))
    assert "exceeded the cap of 4096 bytes" in info.value.message


def test_stderr_flood_is_capped_without_failing(tmp_path):
    s = write_script(tmp_path / "h.py", 'import sys\nsys.stderr.write("e" * 1_000_000)\nprint("{}")')
    assert invoke(make_hook(s)) == Decision()


def test_hook_that_ignores_stdin_and_exits(tmp_path):
    s = write_script(tmp_path / "h.py", "pass")
    assert invoke(make_hook(s), {"big": "x" * 2_000_000}) is None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); read its state
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_timeout_kills_the_whole_process_group_including_grandchildren(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    s = write_script(
        tmp_path / "h.py",
        f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        open({str(pidfile)!r}, "w").write(str(child.pid))
        time.sleep(300)
        """,
    )
    hook = make_hook(s, timeout=1.0)

    async def run() -> None:
        with pytest.raises(HookFailure) as info:
            await Engine().invoke(hook, {}, CTX)
        assert info.value.code == "timeout"
        # the TERM/KILL reaper runs in the background
        await hook.runner.groups.settle()  # type: ignore[attr-defined]

    asyncio.run(run())
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)


def test_observer_stdout_is_ignored(tmp_path):
    s = write_script(tmp_path / "h.py", 'print("whatever")')
    assert invoke(make_hook(s, type="observer")) is None


def test_null_on_stdout_abstains_even_with_on_error_deny(tmp_path):
    """JSON null is an abstention, as an empty stdout is; neither is an error, so on_error never applies."""
    s = write_script(tmp_path / "h.py", 'print("null")')
    h = make_hook(s)
    h.on_error = "deny"
    assert invoke(h) is None
    from hookd.core.chain import ChainState

    async def chain() -> ChainState:
        try:
            return await Engine().decide(Plan((h,), ()), {"args": {}}, CTX)
        finally:
            await h.runner.groups.settle()  # type: ignore[attr-defined]

    state = asyncio.run(chain())
    assert state.decision is None and not state.errors


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ('{"decision": "deny", "modifiedInput": {"n": 123456789012345678901234567890}}', "does not fit in 64 bits"),
        ('{"decision": "deny", "modifiedOutput": ' + "[" * 100 + "]" * 100 + "}", "nested deeper than 64 levels"),
        ('{"decision": "deny", "modifiedOutput": ' + "[" * 2000 + "]" * 2000 + "}", "nested deeper than 64 levels"),
    ],
)
def test_an_answer_the_wire_cannot_carry_is_a_hook_error_naming_why(tmp_path, answer: str, named: str):
    s = write_script(tmp_path / "h.py", f"import sys; sys.stdout.write({answer!r})")
    with pytest.raises(HookFailure) as info:
        invoke(make_hook(s, timeout=30))
    assert info.value.code == "error" and named in info.value.message
