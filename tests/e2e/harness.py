"""The steps every agent's end-to-end suite takes, written once: run the agent against the scripted model
(scripted.py), read what reached hookd's journal, and check the outcomes each suite proves for its agent:

- ``denied``: the global guard (guards.py) stopped `rm -rf`, the victim is intact and the model read the reason;
- ``rewritten``: the rewrite guard's allow with a new command, and what the agent then ran;
- ``blocked``: a tool call refused while hookd is down or hung (fail-closed), the model told why;
- ``guarded_by_node``: a session hook attached by a separate Node program (session_guard.mjs) denied `touch`.

An agent's suite keeps only what is its own: how its CLI is set up and started, its shell tool's name and
arguments, and what its hooks and answers look like.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DaemonProcess, Env

from .scripted import HANDLED, Model, Step, Wire, text
from .session_guard import REASON

PRECIOUS = "precious"


@dataclass
class Run:
    """One finished agent run and the model it talked to."""

    returncode: int
    output: str
    model: Model

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.model.requests

    def tool_results(self) -> list[str]:
        """What the agent told the model about its tool call: the command's output, or why it was blocked."""
        return self.model.tool_results()


def model(wire: Wire, call: Step | Sequence[Step], ready_file: Path | None = None, hang: DaemonProcess | None = None) -> Model:
    """The scripted model asking for ``call`` (one step, or a script) and then saying it is done.

    With ``hang``, that daemon hangs (SIGSTOP: it accepts connections and never answers) from the moment the
    model asks for the tool call until the call's result comes back: the agent's hook on the call meets a hung
    hookd, while the session's other events (each of which would wait out the hook's timeout) do not. The
    test still sends SIGCONT when it ends, whatever happened."""
    steps = [call, text(HANDLED)] if isinstance(call, Step) else list(call)
    if hang is None:
        return Model(wire, steps, ready_file=ready_file)
    return Model(wire, steps, ready_file=ready_file, asking=lambda: hang.signal(signal.SIGSTOP), told=lambda: hang.signal(signal.SIGCONT))


def run_agent(argv: Sequence[str | Path], model: Model, cwd: Path, environ: Mapping[str, str], timeout: float = 400) -> Run:
    """Run the agent's command line to its end in ``cwd``, its stdin closed, and keep what it printed.

    PWD says ``cwd``, as a shell that changed into it would say: agents take their project from PWD (opencode
    does), and the one inherited from the test run named the checkout."""
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env={**environ, "PWD": str(cwd)},
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return Run(done.returncode, done.stdout + done.stderr, model)


def require(binary: Path, why_missing: str | None = None, skip: bool = True) -> Path:
    """The agent's CLI, or skip (``skip``; in CI, with ``$CI`` set, a missing one fails instead of skipping) or fail."""
    missing = why_missing
    if missing is None and not (binary.exists() and os.access(binary, os.X_OK)):
        missing = f"{binary} is missing: run `make e2e-deps` (npm ci in {binary.parent.parent.parent})"
    if missing is None:
        return binary
    if os.environ.get("CI") or not skip:
        pytest.fail(missing)
    pytest.skip(missing)


def journal(env: Env, point: str, *extra: str) -> list[dict[str, Any]]:
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", point, *extra)
    assert tail.returncode == 0, tail.stderr
    return [json.loads(line) for line in tail.stdout.splitlines()]


def decides(env: Env, *extra: str, point: str = "tool.approval.pre") -> list[dict[str, Any]]:
    return [e for e in journal(env, point, *extra) if e.get("kind") == "decide"]


def precious(project: Path) -> Path:
    """A directory holding a file the agent's `rm -rf` must not reach."""
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text(PRECIOUS)
    return victim


def denied(
    env: Env, result: Run, victim: Path, agent: str, tool: str, reason: str = "no recursive force delete", by: str = "no-rm-rf"
) -> dict[str, Any]:
    """The agent ran to its end; the guard ``by`` denied its one shell call (``tool``, as hookd's
    execute_command); the victim is intact and the model read ``reason``. Returns the journal's decide."""
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == PRECIOUS
    told = result.tool_results()
    assert told and reason in told[0], (told, result.output)
    [call] = decides(env)
    assert call["decision"] == "deny" and call["decided_by"]["name"] == by
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == tool
    assert call["payload"]["agent"] == agent
    return call


def rewritten(env: Env, result: Run, out: Path, ran: str = "rewritten\n") -> dict[str, Any]:
    """The rewrite guard allowed the call with its new command, and the agent wrote ``ran`` to ``out``."""
    assert result.returncode == 0, result.output
    [call] = decides(env)
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    assert call["session"]
    assert out.read_text() == ran, result.output
    return call


def blocked(result: Run, marker: Path, *why: str) -> str:
    """The agent ran to its end, its `touch` never ran, and the first thing it told the model says all of ``why``."""
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    assert told and all(w in told[0] for w in why), (told, result.output)
    return told[0]


def guarded_by_node(
    env: Env, result: Run, marker: Path, ready: Path, guard: subprocess.Popen[bytes] | None, point: str = "tool.approval.pre"
) -> dict[str, Any]:
    """The Node program attached its session hook (its session in ``ready``), which denied the `touch`: it never
    ran and the model read the program's reason. Returns the journal's decide, in that session."""
    assert guard is not None and ready.exists(), "the Node program never attached its session hook"
    blocked(result, marker, REASON)
    [call] = decides(env, point=point)
    assert call["decision"] == "deny" and call["session"] == ready.read_text()
    assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
    assert call["decided_by"]["source"] == f"client:{guard.pid}"
    return call


def hookd_in(env: Env, cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The installed `hookd` run in ``cwd`` (a project install writes there)."""
    return subprocess.run([*env.command, *args], cwd=cwd, env=env.env, capture_output=True, text=True, timeout=timeout)


def listing(directory: Path) -> list[str] | None:
    """The names in ``directory``, or None where it does not exist: what uninstall must give back."""
    return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else None


def canary_passes(env: Env, cwd: Path, agent: str) -> dict[str, Any]:
    """Doctor's canary (`hookd bridge status --check`): a tool call through the installed hook, answered by hookd
    as the agent's own shell. The agent's row must say fail-closed with no problem; returns the row."""
    status = hookd_in(env, cwd, "bridge", "status", "--check", "--json")
    report = json.loads(status.stdout)
    assert status.returncode == 0 and report["ok"], status.stdout + status.stderr
    [row] = [r for r in report["agents"] if r["agent"] == agent]
    assert row["fail_closed"] and row["problems"] == [], row
    [canary] = [c for c in report["checks"] if c["name"] == agent and "canary" in c["message"]]
    assert canary["status"] == "ok", report["checks"]
    return row
