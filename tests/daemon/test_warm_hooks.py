"""Persistent (warm) command hooks in process, with real worker processes: one worker serving every
call, answers out of order, a hung worker killed and restarted, garbage or an overlong line killing
it, a bad mode refused, the shipped examples, a persistent observer of a project, and one global
worker serving each project as its own. A worker crashing in a loop as the CLI shows it, reloads by
SIGHUP, the daemon's stop and a handler's prints in its log: tests/integration/test_warm_hooks.py."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from ..conftest import write_script
from ..integration.test_warm_hooks import POINT, TAGGED, hook, info
from ..processes import gone_soon
from .conftest import InProcess, InProcessClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "warm-hooks"


async def workers(c: InProcessClient) -> list[Any]:
    return (await c.status()).workers


async def until_not_running(c: InProcessClient) -> None:
    for _ in range(3000):  # a hang guard, not a speed check
        if all(w.state != "running" for w in await workers(c)):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the daemon never saw its worker end")


def test_one_warm_worker_serves_every_call(in_process: Any, home: Path) -> None:
    script = write_script(home / "tagged.py", TAGGED)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("s1", [hook(script)])
        first = info(await c.decide(POINT, {"n": 1}, session="s1"))
        assert first == {"pid": first["pid"], "tag": "", "point": POINT, "session": "s1", "hook": "warm", "mode": "persistent"}
        for n in range(20):
            assert info(await c.decide(POINT, {"n": n}, session="s1"))["pid"] == first["pid"]
        (w,) = await workers(c)
        assert w.state == "running" and w.pid == first["pid"] and w.served == 21
        assert await c.dispose_session("s1") == 1
        assert await asyncio.to_thread(gone_soon, first["pid"])

    in_process(scenario)


def test_out_of_order_answers_with_concurrency(in_process: Any, home: Path) -> None:
    # Holds requests until it has two, then answers them newest first: only works
    # if the daemon sends two at once and matches answers by id.
    script = write_script(
        home / "reverser.py",
        """
        import json, sys
        held = []
        for line in sys.stdin:
            held.append(json.loads(line))
            if len(held) == 2:
                for req in reversed(held):
                    print(json.dumps({"id": req["id"], "decision": {"decision": "deny", "reason": req["payload"]["who"]}}), flush=True)
                held = []
        """,
    )

    async def scenario(d: InProcess) -> dict[str, str]:
        await d.client().attach_session("s1", [hook(script, concurrency=2, timeout=20)])

        async def call(who: str) -> str:  # each on a connection of its own, as two agents
            return (await d.client().decide(POINT, {"who": who}, session="s1")).reason

        alice, bob = await asyncio.gather(call("alice"), call("bob"))
        return {"alice": alice, "bob": bob}

    results = in_process(scenario)
    assert results == {"alice": "alice", "bob": "bob"}


def test_a_hanging_worker_is_killed_restarted_and_the_next_call_is_fine(in_process: Any, home: Path) -> None:
    script = write_script(home / "tagged.py", TAGGED)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("s1", [hook(script, timeout=1)])
        pid = info(await c.decide(POINT, {}, session="s1"))["pid"]
        out = await c.decide(POINT, {"hang": True}, session="s1")
        assert out.decision is None  # on_error: continue
        assert [e.code for e in out.errors] == ["timeout"]
        assert await asyncio.to_thread(gone_soon, pid)
        # Gone is not yet seen: the daemon counts the killed worker's failure once it reaps it, which on
        # a loaded machine can come after the next answer, so wait until it no longer counts it running.
        await until_not_running(c)
        again = info(await c.decide(POINT, {}, session="s1"))
        assert again["pid"] != pid
        (w,) = await workers(c)
        assert w.restarts == 1 and w.failures == 0 and w.state == "running"

    in_process(scenario)


def test_garbage_or_an_overlong_line_kills_the_worker(in_process: Any, home: Path) -> None:
    script = write_script(home / "tagged.py", TAGGED)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("s1", [hook(script)])
        pid = info(await c.decide(POINT, {}, session="s1"))["pid"]
        out = await c.decide(POINT, {"raw": "debug output on stdout\n"}, session="s1")
        assert out.decision is None and "not a JSON object" in out.errors[0].message
        assert await asyncio.to_thread(gone_soon, pid)
        pid = info(await c.decide(POINT, {}, session="s1"))["pid"]
        out = await c.decide(POINT, {"raw": "x", "times": (1 << 20) + 1}, session="s1")  # the default cap is 1 MiB
        assert "over the cap" in out.errors[0].message
        assert await asyncio.to_thread(gone_soon, pid)

    in_process(scenario)


def test_a_bad_mode_or_concurrency_in_a_hook_file_is_rejected(in_process: Any, home: Path) -> None:
    from hookd_client import HookdError

    base = {"name": "warm", "point": POINT, "type": "decision", "command": "/bin/true", "enabled": True}

    async def scenario(d: InProcess) -> None:
        c = d.client()
        for field, bad in (("mode", "warm"), ("concurrency", 0)):
            (d.home / "config" / "hookd").mkdir(parents=True, exist_ok=True)
            (d.home / "config" / "hookd" / "hooks.yaml").write_text(json.dumps({"hooks": [{**base, field: bad}]}))
            try:
                await c.reload_user_hooks()
            except HookdError as exc:
                assert exc.code == "config_invalid" and field in exc.message, exc.message
            else:
                raise AssertionError(f"{field}: {bad!r} was accepted")
        assert (await c.status()).hooks == 0

    in_process(scenario)


@pytest.mark.parametrize(
    ("argv", "needs", "command", "decision"),
    [
        ([str(EXAMPLES / "guard.sh")], "jq", "rm -rf /", "deny"),
        (["node", str(EXAMPLES / "audit.mjs")], "node", "curl x | sh", "ask"),
        ([sys.executable, str(EXAMPLES / "guard.py")], None, "rm -rf /", "deny"),
    ],
)
def test_the_examples_work(in_process: Any, argv: list[str], needs: str | None, command: str, decision: str) -> None:
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{needs} is not installed")
    spec = hook(Path(argv[0]), args=argv[1:], concurrency=4)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("s1", [spec])
        assert (await c.decide(POINT, {"args": {"command": command}}, session="s1")).decision == decision
        out = await c.decide(POINT, {"args": {"command": "ls"}}, session="s1")
        assert out.decision is None and out.errors == []

    in_process(scenario)


def test_a_persistent_observer_and_a_project_hook(in_process: Any, home: Path, trust_all: None) -> None:
    seen = home / "seen.jsonl"
    observer = write_script(
        home / "observer.py",
        f"""
        import json, os, sys
        for line in sys.stdin:
            req = json.loads(line)
            with open({str(seen)!r}, "a") as f:
                f.write(json.dumps({{"point": req["point"], "payload": req["payload"], "cwd": os.getcwd(),
                                     "project_env": os.environ.get("HOOKD_PROJECT_DIR")}}) + "\\n")
            print(json.dumps({{"id": req["id"], "decision": None}}), flush=True)
        """,
    )
    project = home / "proj"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(
        json.dumps(
            {
                "hooks": [
                    {
                        "name": "audit",
                        "point": "tool.execute.after",
                        "type": "observer",
                        "command": str(observer),
                        "enabled": True,
                        "mode": "persistent",
                    }
                ]
            }
        )
    )

    async def scenario(d: InProcess) -> None:
        c = d.client()
        for n in range(3):
            out = await c.emit("tool.execute.after", {"n": n}, project=str(project), wait=True)
            assert out.observers == 1 and out.errors == []
        (w,) = await workers(c)
        assert w.name == "audit (project:proj)" and w.served == 3
        records = [json.loads(line) for line in seen.read_text().splitlines()]
        assert [r["payload"]["n"] for r in records] == [0, 1, 2]
        assert {r["cwd"] for r in records} == {str(project)} and {r["project_env"] for r in records} == {str(project)}
        assert await c.dispose_project(str(project)) == 1
        assert await asyncio.to_thread(gone_soon, w.pid)
        assert (await workers(c)) == []

    in_process(scenario)


def test_a_global_worker_serves_each_project_as_its_own(in_process: Any, home: Path) -> None:
    """One worker serves a global hook for every project: its environment names no project (not the
    first caller's), and each request names the call's own."""
    script = write_script(
        home / "where.py",
        """
        import json, os, sys
        for line in sys.stdin:
            req = json.loads(line)
            reason = json.dumps({"env": os.environ.get("HOOKD_PROJECT_DIR"), "project": req["project"], "pid": os.getpid()})
            print(json.dumps({"id": req["id"], "decision": {"decision": "deny", "reason": reason}}), flush=True)
        """,
    )
    first, second = home / "first", home / "second"
    first.mkdir()
    second.mkdir()

    async def scenario(d: InProcess) -> list[Any]:
        d.global_hooks(json.dumps({"hooks": [hook(script, name="where")]}))
        c = d.client()
        return [json.loads((await c.decide(POINT, {}, project=str(p))).reason) for p in (first, second, first)]

    seen = in_process(scenario)

    assert [s["project"] for s in seen] == [str(first), str(second), str(first)]
    assert all(s["env"] == "" for s in seen), seen  # never the first caller's project
    assert len({s["pid"] for s in seen}) == 1
