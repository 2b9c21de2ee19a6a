"""Two hook files of a scope that define one hook name: a restart leaves the same guards in force.

Real daemons on real sockets, real drop-in files written one by one in every order, real restarts
and real `hookd check` runs. Which file keeps a name is hookd/config/hooknames.py's rule: the file whose
hook of that name is in force, else the one whose last accepted version defines it, else the first
in load order. Every wait is a poll with a hang guard.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hookd_client import Client
from hookd_client.messages import Event

from hookd.config.problems import Problem

from ..conftest import DaemonProcess, Env, make_env
from .test_user_config import wait_until

POINT = "tool.approval.pre"
FORCE_PUSH = {"toolName": "Bash", "args": {"command": "git push --force"}}

# The drop-in of docs/observe.md, then the one docs/replay.md had a reader write beside it, as
# they were: both define no-force-push.
OBSERVE = """\
hooks:
  - name: no-force-push
    point: tool.approval.pre
    type: decision
    command: sh
    args: ["-c", "grep -q 'push --force' && echo '{\\"decision\\": \\"deny\\", \\"reason\\": \\"no force push\\"}' || true"]
    priority: 10
    enabled: true
  - name: log-commands
    point: tool.approval.pre
    type: decision
    command: sh
    args: ["-c", "cat >/dev/null; echo checked >&2"]
    enabled: true
"""
REPLAY = """\
hooks:
  - name: no-force-push
    point: tool.approval.pre
    type: decision
    match:
      toolName: "^execute_command$"
    command: sh
    args: ["-c", "cat >/dev/null"]
    enabled: true
"""


def _file(names: list[str], version: int = 0) -> str:
    hooks = "".join(
        f"  - {{name: {n}, description: 'v{version}', point: {POINT}, type: decision, command: 'true', enabled: true}}\n" for n in names
    )
    return "hooks:\n" + hooks


def _hooks_json(env: Env) -> dict[str, Any]:
    r = env.hookd("hooks", "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _in_force(env: Env) -> tuple[frozenset[tuple[str, str]], dict[str, list[str]]]:
    """(name, file) of every global hook in force, and each rejected file's problems (without the
    last line, which says which version is in force and when it was accepted)."""
    listing = _hooks_json(env)
    hooks = frozenset((h["name"], h["source"]) for h in listing.get("hooks", []) if h["scope"] == "global")
    rejected = {r["file"]: r["problems"][:-1] for r in listing.get("rejected", [])}
    return hooks, rejected


def _check(env: Env, *files: str) -> dict[str, list[str]]:
    """`hookd check --json`: each file's problems, worded as the daemon words them (`hookd hooks`)."""
    r = env.hookd("check", "--json", *files)
    out = json.loads(r.stdout)
    problems: dict[str, list[str]] = {}
    for p in out["problems"]:
        problems.setdefault(p["file"], []).append(str(Problem(**p)))
    return problems


def _config_events(env: Env, path: Path) -> int:
    """How many config events the daemon has published about ``path`` (its memory, as `hookd tail` reads it;
    through the client in this process, so that a poll does not start a Python each time)."""
    with Client(env.socket, name="name-clash-test", timeout=10) as client:
        replayed = client.subscribe(["hookd.config.*"], since=0, follow=False, queue=100_000)
        return sum(1 for e in replayed if isinstance(e, Event) and isinstance(e.payload, dict) and e.payload.get("file") == str(path))


def _write_and_wait(env: Env, path: Path, text: str) -> None:
    """Write a hook file whole (renamed into place) and wait until the daemon has loaded or refused it."""
    before = _config_events(env, path)
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(text)
    tmp.rename(path)
    wait_until(lambda: _config_events(env, path) > before, timeout=30)


def test_the_docs_drop_ins_keep_the_same_guard_across_a_restart(env, daemon_factory):
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir(parents=True)
    observe, replay = dropins / "observe.yaml", dropins / "no-force-push.yaml"
    observe.write_text(OBSERVE)
    daemon = daemon_factory()
    _write_and_wait(env, replay, REPLAY)  # the second file, added while the daemon runs, is refused
    before = _in_force(env)
    assert before[0] == {("no-force-push", str(observe)), ("log-commands", str(observe))}
    assert list(before[1]) == [str(replay)]
    (problem,) = before[1][str(replay)]
    assert f"'no-force-push': {observe} already defines it" in problem, problem
    with daemon.client() as c:
        denied = c.decide(POINT, FORCE_PUSH)
    assert denied.decision == "deny" and denied.decided_by.source == str(observe)
    assert _check(env) == before[1]  # `hookd check` blames the file the daemon blames, in its words

    daemon.stop()
    again = daemon_factory()
    assert _in_force(env) == before  # the same guards, the same file refused, for the same reason
    with again.client() as c:
        out = c.decide(POINT, FORCE_PUSH)
    assert out.decision == "deny" and out.decided_by.source == str(observe)
    assert _check(env) == before[1]
    listing = _hooks_json(env)
    (rejected,) = listing["rejected"]
    assert "no version of this file was ever accepted" in rejected["problems"][-1]  # the refused file was never accepted


FILES = {"a.yaml": ["alpha", "beta"], "b.yaml": ["beta", "gamma"], "c.yaml": ["gamma", "alpha", "delta"]}


@pytest.mark.parametrize("order", list(itertools.permutations(sorted(FILES))), ids="-".join)
def test_every_creation_order_survives_a_restart_and_reloads_in_any_order(tmp_path, order):
    env = make_env(tmp_path)
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir(parents=True)
    daemon = DaemonProcess(env).start()
    try:
        for name in order:
            _write_and_wait(env, dropins / name, _file(FILES[name]))
        before = _in_force(env)
        names = [n for n, _ in before[0]]
        assert len(names) == len(set(names)) and before[1], before  # unique names, and some file refused
        assert _check(env) == before[1]
        # The files named in any order are checked the same way.
        for listed in itertools.permutations(str(dropins / n) for n in FILES):
            assert _check(env, *listed) == before[1]

        daemon.stop()
        daemon = DaemonProcess(env).start()
        assert _in_force(env) == before

        # Each file edited (its hooks' descriptions, not their names) and reloaded on its own, in
        # another order than it was created.
        for name in reversed(order):
            _write_and_wait(env, dropins / name, _file(FILES[name], version=1))
            assert _in_force(env) == before, name
        assert _check(env) == before[1]
        daemon.stop()
        daemon = DaemonProcess(env).start()
        assert _in_force(env) == before
    finally:
        daemon.kill()
