"""A randomized fault test against a real daemon: guards hold whatever happens around them.

Decides on a point guarded by deny hooks of every kind (a spawned command hook, a warm
worker, a plugin, a project file's hook, a session's callback handler) run concurrently
with random faults: reloads, file saves (valid, invalid, changed so trust lapses), trust
and untrust, observer floods, worker and plugin host kills, session disposes, daemon
restarts and kills. Every decide answers deny, or names the guard it asked for in
``not_run`` with a reason; never an allow or no decision with the guard unnamed. Every
request is answered exactly once, except those in flight when the daemon was killed.

``HOOKD_FAULT_SEED`` replays a run; ``HOOKD_FAULT_DECIDES`` sets its length.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hookd_client import Client, callback
from hookd_client.errors import ConnectionLost, DaemonNotRunning, HookdError, NotSent

from ..conftest import DaemonProcess, Env, make_env

POINT = "tool.execute.before"
FLOOD_POINT = "tool.execute.error"
SESSION = "fault-session"
GUARDS = ("spawn", "warm", "plugin", "project", "session")

DENY_SH = """#!/bin/sh
cat >/dev/null
echo '{"decision": "deny", "reason": "spawn guard"}'
"""

WARM = """
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps({"id": req["id"], "decision": {"decision": "deny", "reason": "warm guard"}}), flush=True)
"""

PLUGIN = """
from hookd_client import Block

# revision {rev}
def FaultGuard(ctx):
    def before(inp, out):
        if out.get("args", {{}}).get("guard") == "plugin":
            raise Block("plugin guard")
    return {{"tool.execute.before": before}}
"""

SLOW_OBSERVER = """#!/bin/sh
cat >/dev/null
sleep 1
"""


def global_yaml(tmp: Path, rev: int) -> str:
    return textwrap.dedent(f"""\
        # revision {rev}
        hooks:
          - name: spawn-guard
            point: {POINT}
            type: decision
            command: {tmp / "deny.sh"}
            match: {{"args.guard": "^spawn$"}}
            on_error: deny
            enabled: true
          - name: warm-guard
            point: {POINT}
            type: decision
            command: {sys.executable}
            args: [{tmp / "warm.py"}]
            mode: persistent
            match: {{"args.guard": "^warm$"}}
            on_error: deny
            enabled: true
          - name: slow-observer
            point: {FLOOD_POINT}
            type: observer
            command: {tmp / "slow.sh"}
            enabled: true
        """)


def project_yaml(tmp: Path, rev: int) -> str:
    return textwrap.dedent(f"""\
        # revision {rev}
        hooks:
          - name: project-guard
            point: {POINT}
            type: decision
            command: {tmp / "deny.sh"}
            match: {{"args.guard": "^project$"}}
            on_error: deny
            enabled: true
        """)


INVALID = "hooks:\n  - name: broken\n    point: [this is not a point\n"


@dataclass
class Record:
    guard: str
    epoch: int  # daemon lifetime the call started in
    flux: bool  # the guard was being removed or re-added while the call ran
    outcome: Any = None
    error: BaseException | None = None
    # The lifetime of the daemon the request was last sent to (its welcome's pid), when known;
    # the call may have waited out restarts, so its starting epoch need not be that daemon's.
    sent_to: int | None = None
    last_epoch: int = 0  # the daemon lifetime when the call ended


@dataclass
class World:
    tmp: Path
    env: Env
    project: Path
    rng: random.Random
    daemon: DaemonProcess | None = None
    epoch: int = 0
    killed_epochs: set[int] = field(default_factory=set)
    epoch_of_pid: dict[int, int] = field(default_factory=dict)
    stopped_epochs: set[int] = field(default_factory=set)
    session_flux: int = 0  # > 0 while the session guard is being disposed and re-attached
    session_cycles: int = 0  # how many such disposals have begun
    lock: threading.Lock = field(default_factory=threading.Lock)
    log: list[str] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    rev: int = 0
    up: threading.Event = field(default_factory=threading.Event)  # set while a daemon is serving

    def note(self, what: str) -> None:
        self.log.append(f"{time.monotonic():.3f} {what}")

    def killed(self, rec: Record) -> bool:
        """Whether the daemon a call went to was killed, so it may legitimately have no answer."""
        return bool(_daemons(rec) & self.killed_epochs)


def _daemons(rec: Record) -> set[int]:
    """The lifetimes of the daemons a call may have been sent to."""
    if rec.sent_to is not None:
        return {rec.sent_to}
    # Lost before a welcome named the daemon: any daemon alive during the call may have had it.
    return set(range(rec.epoch, rec.last_epoch + 1))


def _session_guard(payload: dict[str, Any]) -> dict[str, Any] | None:
    if payload.get("args", {}).get("guard") == "session":
        return {"decision": "deny", "reason": "session guard"}
    return None


def _named(outcome: Any, guard: str) -> bool:
    for entry in getattr(outcome, "not_run", None) or ():
        hook = entry.hook
        if guard in hook.name.lower() or (guard == "plugin" and "faultguard" in (hook.name + hook.source).lower()):
            return bool(entry.reason) and bool(entry.message)
    return False


def _holds(rec: Record) -> bool:
    out = rec.outcome
    if out.decision == "deny":
        return True
    return _named(out, rec.guard)


def _decider(world: World, stop: threading.Event, budget: list[int]) -> None:
    client: Client | None = None
    while not stop.is_set():
        with world.lock:
            if budget[0] <= 0:
                return
            budget[0] -= 1
        if not world.up.wait(120):
            return
        with world.lock:
            epoch = world.epoch
        guard = world.rng.choice(GUARDS)
        session = SESSION if guard == "session" else None
        project = str(world.project) if guard == "project" else None
        cycles = world.session_cycles
        rec = Record(guard, epoch, flux=guard == "session" and world.session_flux > 0)
        try:
            if client is None:
                client = Client(world.env.socket, timeout=60, reconnect=30)
            rec.outcome = client.decide(POINT, {"args": {"guard": guard}}, session=session, project=project)
        except HookdError as exc:
            rec.error = exc
        # The welcome of the connection the request was last written on names its daemon (a call
        # that found its connection dead reconnects, maybe to the next daemon, and sends it there).
        welcome = client.welcome if client is not None else None
        with world.lock:
            rec.last_epoch = world.epoch
            if welcome is not None:
                rec.sent_to = world.epoch_of_pid.get(welcome.pid)
        if rec.error is not None and client is not None:
            client.close()
            client = None
        # A disposal that began at any moment of the call (even one over by now) may have
        # removed the session guard before the call was planned.
        if guard == "session" and (world.session_flux > 0 or world.session_cycles != cycles):
            rec.flux = True
        with world.lock:
            world.records.append(rec)
    if client is not None:
        client.close()


class SessionHolder:
    """The agent: owns the session whose callback handler is the session guard."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.client: Client | None = None

    def attach(self) -> None:
        if self.client is None:
            self.client = Client(self.world.env.socket, timeout=60, reconnect=30)
        self.client.attach_session(SESSION, [callback(POINT, _session_guard, name="session-guard", on_error="deny")])

    def cycle(self) -> None:
        world = self.world
        world.session_flux += 1
        world.session_cycles += 1
        try:
            assert self.client is not None
            self.client.dispose_session(SESSION)
            self.attach()
        finally:
            world.session_flux -= 1

    def reset(self) -> None:
        if self.client is not None:
            self.client.close()
        self.client = None


def _start(world: World) -> None:
    world.daemon = DaemonProcess(world.env).start()
    assert world.daemon.proc is not None
    with world.lock:
        world.epoch += 1
        world.epoch_of_pid[world.daemon.proc.pid] = world.epoch
    world.up.set()


def _worker_pids(world: World) -> list[int]:
    with Client(world.env.socket, timeout=30) as c:
        return [w.pid for w in c.status().workers if getattr(w, "pid", 0)]


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _fault(world: World, holder: SessionHolder) -> None:
    rng, env, tmp = world.rng, world.env, world.tmp
    kind = rng.choices(
        [
            "reload",
            "save-global",
            "invalid-global",
            "save-project",
            "trust",
            "untrust",
            "save-plugin",
            "flood",
            "kill-worker",
            "session",
            "restart",
            "sigkill",
        ],
        weights=[6, 6, 3, 5, 6, 4, 4, 4, 6, 5, 1, 1],
    )[0]
    world.note(kind)
    gy = env.config / "hookd" / "hooks.yaml"
    world.rev += 1
    if kind == "reload":
        assert world.daemon is not None
        world.daemon.signal(signal.SIGHUP)
    elif kind == "save-global":
        _write(gy, global_yaml(tmp, world.rev))
    elif kind == "invalid-global":
        _write(gy, INVALID)
        time.sleep(rng.uniform(0, 0.3))
        _write(gy, global_yaml(tmp, world.rev))
    elif kind == "save-project":
        _write(world.project / ".hookd" / "hooks.yaml", project_yaml(tmp, world.rev))
    elif kind == "trust":
        env.hookd("trust", str(world.project))
    elif kind == "untrust":
        env.hookd("untrust", str(world.project))
    elif kind == "save-plugin":
        _write(env.config / "hookd" / "plugins" / "fault_guard.py", PLUGIN.format(rev=world.rev))
    elif kind == "flood":
        with Client(env.socket, timeout=60) as c:
            for _ in range(rng.randint(50, 300)):
                c.emit(FLOOD_POINT, {"n": 1})
    elif kind == "kill-worker":
        pids = _worker_pids(world)
        if pids:
            pid = rng.choice(pids)
            world.note(f"kill {pid}")
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    elif kind == "session":
        holder.cycle()
    elif kind in ("restart", "sigkill"):
        assert world.daemon is not None
        world.session_flux += 1
        world.session_cycles += 1
        world.up.clear()
        try:
            if kind == "sigkill":
                with world.lock:
                    world.killed_epochs.add(world.epoch)
                world.daemon.kill()
            else:
                with world.lock:
                    world.stopped_epochs.add(world.epoch)
                world.daemon.stop(timeout=60)
            holder.reset()
            _start(world)
            holder.attach()
        finally:
            world.session_flux -= 1


def _setup(tmp_path: Path) -> World:
    env = make_env(tmp_path / "sandbox")
    env.env.pop("HOOKD_TRUST_ALL", None)
    env.env["HOOKD_WATCH_INTERVAL"] = "0.05"
    env.env["HOOKD_LOG_LEVEL"] = "info"
    tmp = tmp_path / "bin"
    tmp.mkdir()
    for name, body in (("deny.sh", DENY_SH), ("slow.sh", SLOW_OBSERVER)):
        (tmp / name).write_text(body)
        (tmp / name).chmod(0o755)
    (tmp / "warm.py").write_text(WARM)
    env.write_global_hooks(global_yaml(tmp, 0))
    plugins = env.config / "hookd" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "fault_guard.py").write_text(PLUGIN.format(rev=0))
    project = tmp_path / "project"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(project_yaml(tmp, 0))
    seed = int(os.environ.get("HOOKD_FAULT_SEED", str(random.SystemRandom().randrange(1 << 32))))
    world = World(tmp, env, project, random.Random(seed))
    world.note(f"seed {seed}")
    return world


def _unanswered(world: World, rec: Record) -> bool:
    """A request that left and got no reply, from a daemon that was not killed.

    An error reply is an answer (a stopping daemon answers shutting_down); a call that found no
    daemon, or whose write was refused (NotSent: a stopping daemon shuts its connections' reading
    side, so the write fails at once), never left. Only a killed daemon may leave one unanswered.
    """
    error = rec.error
    if not isinstance(error, ConnectionLost) or isinstance(error, NotSent | DaemonNotRunning):
        return False
    return not world.killed(rec)


def _verdict(world: World) -> list[str]:
    failures = []
    for rec in world.records:
        if rec.error is not None:
            # A stopping daemon answers every request it received, read or not (shutting_down):
            # a request sent to it is never left without a reply.
            if not _unanswered(world, rec):
                continue
            failures.append(f"{rec.guard}: no answer (epochs {rec.epoch}-{rec.last_epoch}, sent to {rec.sent_to}): {rec.error!r}")
            continue
        if rec.flux and rec.outcome.decision is None and not rec.outcome.not_run:
            continue  # the session guard was legitimately not attached during this call
        if not _holds(rec):
            failures.append(f"{rec.guard}: {rec.outcome!r}")
    return failures


@pytest.mark.timeout(600)  # a hang guard: thousands of calls, restarts and kills on a machine that may be busy
def test_guards_hold_under_random_faults(tmp_path: Path) -> None:
    world = _setup(tmp_path)
    holder = SessionHolder(world)
    _start(world)
    assert world.daemon is not None
    world.env.hookd("trust", str(world.project))
    holder.attach()
    decides = int(os.environ.get("HOOKD_FAULT_DECIDES", "3000"))
    budget = [decides]
    stop = threading.Event()
    threads = [threading.Thread(target=_decider, args=(world, stop, budget), daemon=True) for _ in range(3)]
    for t in threads:
        t.start()
    faults = 0
    try:
        while any(t.is_alive() for t in threads):
            _fault(world, holder)
            faults += 1
            time.sleep(world.rng.uniform(0, 0.05))
    finally:
        stop.set()
        for t in threads:
            t.join(120)
        holder.reset()
        if world.daemon is not None:
            world.daemon.kill()
    failures = _verdict(world)
    seed_line = world.log[0]
    summary = {
        "decides": len(world.records),
        "faults": faults,
        "denied": sum(1 for r in world.records if r.outcome is not None and r.outcome.decision == "deny"),
        "named_not_run": sum(1 for r in world.records if r.outcome is not None and r.outcome.not_run),
        "lost_at_stop": sum(1 for r in world.records if _unanswered(world, r) and _daemons(r) & world.stopped_epochs),
        "errors": sorted({f"{type(r.error).__name__}: {r.error}"[:160] for r in world.records if r.error is not None})[:10],
    }
    print(json.dumps(summary))
    assert len(world.records) == decides
    assert summary["lost_at_stop"] == 0, f"{seed_line}: requests sent to a stopping daemon got no reply"
    assert not failures, f"{seed_line}: {len(failures)} of {len(world.records)} decides broke a guard:\n" + "\n".join(
        failures[:20] + world.log[-40:]
    )
