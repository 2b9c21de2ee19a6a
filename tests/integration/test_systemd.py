"""hookd as a service: socket activation, readiness and watchdog, a bounded graceful stop.

Everything runs for real: `systemd-socket-activate`, or a small manager in this
file that holds the listening socket like systemd does; notify sockets the test
binds (path and abstract); command hooks that hang and fork.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hookd_client import Client
from hookd_client import messages as m
from hookd_client.errors import ConnectionLost, DaemonNotRunning, HookdError
from hookd_client.framing import reply_codec

from ..conftest import HOOKD, DaemonProcess, Env, write_script

DRAIN = 2.0
# A hang guard, not a speed claim: the drain bound plus room for a loaded machine.
EXIT_BOUND = DRAIN + 5.0


# ------------------------------------------------------------------ helpers


class NotifyReceiver:
    """The manager's side of NOTIFY_SOCKET: a datagram socket the test reads."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if kind == "path":
            path = str(tmp_path / "notify.sock")
            self.sock.bind(path)
            self.address = path
        else:
            name = f"hookd-test-{uuid.uuid4().hex}"
            self.sock.bind(b"\0" + name.encode())
            self.address = "@" + name
        self.messages: list[list[str]] = []

    def wait_for(self, line: str, timeout: float = 15.0) -> list[str]:
        """The first datagram from now on that holds ``line``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                msg = self.sock.recv(4096).decode().split("\n")
            except TimeoutError:
                break
            self.messages.append(msg)
            if line in msg:
                return msg
        raise AssertionError(f"no {line!r} within {timeout} s; got {self.messages}")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(params=["path", "abstract"])
def notify(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[NotifyReceiver]:
    r = NotifyReceiver(request.param, tmp_path)
    yield r
    r.close()


def pgid_gone(pgid: int, timeout: float = 10.0) -> bool:
    """True once no process is left in the group (polls: the kernel reaps asynchronously)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def wait_for_activator(log: Path, path: str, timeout: float = 15.0) -> None:
    """Until systemd-socket-activate listens: it says so after listen(), while the file exists from bind() on."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and f"Listening on {path}" in log.read_text(errors="replace"):
            return
        time.sleep(0.02)
    raise AssertionError(f"systemd-socket-activate did not listen on {path} within {timeout} s")


def kill_group(mark: Path) -> None:
    """Cleanup after a failed test: leave no hung hook behind, whatever the daemon did."""
    if mark.exists() and mark.read_text().strip():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(int(mark.read_text().split()[0]), signal.SIGKILL)


def wait_for_file(path: Path, timeout: float = 15.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.02)
    raise AssertionError(f"{path} was not written within {timeout} s")


class Manager:
    """A minimal service manager: holds a listening socket and starts hookd with it as fd 3.

    Like systemd (and unlike `systemd-socket-activate`, which execs itself into
    the daemon once), it keeps its copy of the socket across daemon restarts.
    """

    def __init__(self, env: Env, path: str) -> None:
        self.env = env
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(128)

    def start(self, *args: str, fd: int | None = None) -> subprocess.Popen[bytes]:
        passed = self.sock.fileno() if fd is None else fd

        def as_fd3() -> None:
            os.dup2(passed, 3, inheritable=True)

        log = open(self.env.root / f"managed-{time.monotonic_ns()}.log", "wb")  # noqa: SIM115 - handed to the child
        # LISTEN_PID must name the daemon itself: the shell learns its pid and execs into hookd.
        argv = ["/bin/sh", "-c", 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$@"', "sh", *HOOKD, "serve", "--no-user-hooks", *args]
        proc = subprocess.Popen(argv, env=self.env.env, stdout=log, stderr=log, preexec_fn=as_fd3, pass_fds=(3,))
        log.close()
        return proc

    def close(self) -> None:
        self.sock.close()


def stop(proc: subprocess.Popen[bytes], timeout: float = 10) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise


# ------------------------------------------------------- socket activation


@pytest.mark.skipif(shutil.which("systemd-socket-activate") is None, reason="systemd-socket-activate is not installed")
def test_systemd_socket_activate_starts_hookd_on_the_first_connect(env: Env) -> None:
    path = str(env.root / "run" / "hookd" / "hookd.sock")
    os.makedirs(os.path.dirname(path), mode=0o700)
    log = open(env.root / "activate.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        ["systemd-socket-activate", "-l", path, *HOOKD, "serve", "--no-user-hooks"], env=env.env, stdout=log, stderr=log
    )
    log.close()
    try:
        wait_for_activator(env.root / "activate.log", path)
        # Before anyone connects, only the activator runs; hookd does not exist yet.
        assert Path(f"/proc/{proc.pid}/comm").read_text().strip() == "systemd-socket-"
        with Client(path, timeout=30) as c:
            status = c.status()
            # The activator exec'd itself into hookd: same pid, and the first client got its answer.
            assert status.pid == proc.pid
            assert status.socket == path
            assert c.decide("tool.approval.pre", {"toolName": "read"}).decision is None
        assert stop(proc) == 0
        assert os.path.exists(path), "an inherited socket belongs to the manager; hookd must not unlink it"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = (env.root / "activate.log").read_text()
    assert '"activated": true' in text


def test_restart_under_a_manager_refuses_no_client(env: Env) -> None:
    path = str(env.root / "run" / "managed.sock")
    manager = Manager(env, path)
    seen: dict[int, int] = {}
    refused: list[str] = []
    retried: list[str] = []
    stop_loop = threading.Event()

    def agent() -> None:
        # A new connection per call, like a CLI hook bridge: every connect must be answered.
        while not stop_loop.is_set():
            try:
                with Client(path, timeout=30) as c:
                    assert c.welcome is not None
                    c.decide("tool.approval.pre", {"toolName": "read"}, session="s")
                    seen[c.welcome.pid] = seen.get(c.welcome.pid, 0) + 1
            except DaemonNotRunning as exc:
                refused.append(str(exc))
            except (ConnectionLost, HookdError) as exc:
                # Accepted by the old daemon just before it stopped: the call was answered
                # with shutting_down or cut; a client retries those.
                retried.append(str(exc))

    first = manager.start()
    thread = threading.Thread(target=agent, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while seen.get(first.pid, 0) < 20 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert stop(first) == 0
        second = manager.start()
        try:
            while seen.get(second.pid, 0) < 20 and time.monotonic() < deadline and thread.is_alive():
                time.sleep(0.02)
        finally:
            stop_loop.set()
            thread.join(30)
            assert stop(second) == 0
    finally:
        stop_loop.set()
        manager.close()
    assert refused == []
    assert seen.get(first.pid, 0) >= 20 and seen.get(second.pid, 0) >= 20, (seen, retried)
    assert os.path.exists(path)


def test_an_activation_socket_hookd_cannot_serve_is_a_clear_fatal_error(env: Env) -> None:
    path = str(env.root / "run" / "dgram.sock")
    manager = Manager(env, str(env.root / "run" / "unused.sock"))
    dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dgram.bind(path)
    try:
        proc = manager.start(fd=dgram.fileno())
        assert proc.wait(30) == 1
    finally:
        dgram.close()
        manager.close()
    logs = "".join(p.read_text() for p in env.root.glob("managed-*.log"))
    assert "socket activation failed" in logs
    assert "SOCK_DGRAM, not SOCK_STREAM" in logs


# --------------------------------------------------- readiness and watchdog


def test_ready_status_watchdog_and_stopping_reach_the_notify_socket(env: Env, notify: NotifyReceiver, tmp_path: Path) -> None:
    seen_env = tmp_path / "hook-env.json"
    hook = write_script(
        tmp_path / "env_hook.py",
        f"""
        import json, os
        names = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID")
        json.dump({{n: os.environ.get(n) for n in names}}, open({str(seen_env)!r}, "w"))
        """,
    )
    env.env.update(NOTIFY_SOCKET=notify.address, WATCHDOG_USEC="200000")
    d = DaemonProcess(env, "--no-user-hooks")
    log = open(d.log_path, "wb")  # noqa: SIM115
    d.proc = subprocess.Popen([*HOOKD, "serve", "--no-user-hooks"], env=env.env, stdout=log, stderr=log)
    log.close()
    try:
        ready = notify.wait_for("READY=1")
        # READY=1 means a client can be served now: no retry, no waiting for the socket.
        with Client(env.socket, timeout=30) as c:
            assert c.status().pid == d.proc.pid
            c.attach_session("s1", [{"name": "env", "point": "tool.approval.pre", "type": "decision", "command": str(hook)}])
            c.decide("tool.approval.pre", {}, session="s1")
        assert f"MAINPID={d.proc.pid}" in ready
        assert any(x.startswith("STATUS=") and "connections" in x for x in ready)
        for __ in range(3):
            notify.wait_for("WATCHDOG=1", timeout=10)
        assert json.loads(seen_env.read_text()) == dict.fromkeys(
            ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID")
        ), "hooks must not inherit the manager's variables"
        d.signal(signal.SIGHUP)
        notify.wait_for("RELOADING=1")
        reloaded = notify.wait_for("READY=1")
        # The client above attached one session and made one call, then hung up.
        assert "STATUS=0 connections, 1 sessions, 1 events served" in reloaded
        d.signal(signal.SIGTERM)
        stopping = notify.wait_for("STOPPING=1")
        assert any(x.startswith("STATUS=stopping") for x in stopping)
        assert d.proc.wait(EXIT_BOUND) == 0
    finally:
        d.kill()


def test_ready_after_a_reload_means_the_new_hooks_are_in_force(env: Env, notify: NotifyReceiver, tmp_path: Path) -> None:
    env.env.update(NOTIFY_SOCKET=notify.address)
    d = DaemonProcess(env)
    log = open(d.log_path, "wb")  # noqa: SIM115
    d.proc = subprocess.Popen([*HOOKD, "serve"], env=env.env, stdout=log, stderr=log)
    log.close()
    try:
        notify.wait_for("READY=1")
        for round_ in range(5):
            # A file big enough that reading and checking it takes a while, and one new guard in it.
            entry = "  - name: {}\n    point: {}\n    type: {}\n    command: 'true'\n    enabled: true\n"
            filler = "".join(entry.format(f"filler-{round_}-{i}", "tool.execute.after", "observer") for i in range(1500))
            guard = entry.format(f"guard-{round_}", "tool.approval.pre", "decision")
            env.write_global_hooks("hooks:\n" + filler + guard)
            d.signal(signal.SIGHUP)
            notify.wait_for("RELOADING=1")
            notify.wait_for("READY=1", timeout=60)
            with Client(env.socket, timeout=30) as c:
                names = [e.name for e in c.explain("tool.approval.pre").decision_hooks]
            assert names == [f"guard-{round_}"], names
    finally:
        d.kill()


# ------------------------------------------------------------ graceful stop

SLOW = """
import json, pathlib, sys, time
json.load(sys.stdin)
pathlib.Path({mark!r}).write_text("started")
time.sleep(1.0)
print(json.dumps({{"decision": "allow", "reason": "slow but sure"}}))
"""

# Writes its process group and its child's pid, then hangs with a child in its group.
# Both ignore SIGTERM (inherited through exec), so only a KILL of the group ends them.
HUNG = """
import os, pathlib, signal, subprocess, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", "1000"])
pathlib.Path({mark!r}).write_text(f"{{os.getpgid(0)}} {{child.pid}}")
time.sleep(1000)
"""


def _hooks(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    slow_mark, hung_mark = tmp_path / "slow.started", tmp_path / "hung.pgid"
    slow = write_script(tmp_path / "slow.py", SLOW.format(mark=str(slow_mark)))
    hung = write_script(tmp_path / "hung.py", HUNG.format(mark=str(hung_mark)))
    return slow, slow_mark, hung, hung_mark


def _stall(path: str) -> socket.socket:
    """A connection that sends and never reads, until the daemon can no longer write to it."""
    codec = reply_codec()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "stalled", os.getpid())))
    batch = b"".join(codec.encode(m.StatusRequest(i)) for i in range(2, 2002))
    s.setblocking(False)
    sent = 0
    for __ in range(200):
        try:
            sent += s.send(batch)
        except BlockingIOError:
            break
    assert sent > 0
    return s


def _start_daemon(env: Env) -> DaemonProcess:
    return DaemonProcess(env, "--no-user-hooks", "--drain", str(DRAIN)).start()


def test_sigterm_finishes_in_flight_calls_and_kills_hung_hooks_within_the_drain(env: Env, tmp_path: Path) -> None:
    slow, slow_mark, hung, hung_mark = _hooks(tmp_path)
    d = _start_daemon(env)
    try:
        with Client(d.socket) as c:
            c.attach_session("slow", [{"name": "slow", "point": "tool.approval.pre", "type": "decision", "command": str(slow)}])
            c.attach_session(
                "hung", [{"name": "hung", "point": "tool.approval.pre", "type": "decision", "command": str(hung), "timeout": 600}]
            )
        results: dict[str, object] = {}

        def call(session: str) -> None:
            try:
                with Client(d.socket, timeout=60) as c:
                    results[session] = c.decide("tool.approval.pre", {"toolName": "x"}, session=session)
            except Exception as exc:
                results[session] = exc

        threads = [threading.Thread(target=call, args=(s,)) for s in ("slow", "hung")]
        for t in threads:
            t.start()
        stalled = _stall(d.socket)
        late = Client(d.socket, timeout=60)
        pgid, child = (int(x) for x in wait_for_file(hung_mark).split())
        wait_for_file(slow_mark)

        assert d.proc is not None
        start = time.monotonic()
        d.signal(signal.SIGTERM)
        time.sleep(0.2)
        # Stopped accepting; calls on a connection that is already open are refused politely.
        with pytest.raises(HookdError) as refused:
            late.decide("tool.approval.pre", {}, session="slow")
        assert refused.value.code == m.ErrorCode.SHUTTING_DOWN
        code = d.proc.wait(EXIT_BOUND)
        elapsed = time.monotonic() - start
        for t in threads:
            t.join(30)
        stalled.close()
        late.close()

        assert code == 0, d.log()
        assert elapsed < EXIT_BOUND
        outcome = results["slow"]
        assert isinstance(outcome, m.Outcome) and outcome.decision == "allow", outcome
        # A decide the drain could not finish still gets its one reply, saying so.
        hung_reply = results["hung"]
        assert isinstance(hung_reply, HookdError) and hung_reply.code == m.ErrorCode.SHUTTING_DOWN, hung_reply
        assert "not completed" in str(hung_reply)
        assert pgid_gone(pgid), f"processes are left in the hung hook's group {pgid}"
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)
        assert not os.path.exists(d.socket), "a socket hookd bound itself is removed at exit"
        assert "drain time is up" in d.log()
    finally:
        d.kill()
        kill_group(hung_mark)


def test_a_second_signal_exits_at_once_and_still_kills_the_hooks(env: Env, tmp_path: Path) -> None:
    __, __, hung, hung_mark = _hooks(tmp_path)
    d = DaemonProcess(env, "--no-user-hooks", "--drain", "600").start()
    try:
        with Client(d.socket) as c:
            c.attach_session(
                "hung", [{"name": "hung", "point": "tool.approval.pre", "type": "decision", "command": str(hung), "timeout": 600}]
            )
        results: list[object] = []

        def call() -> None:
            try:
                with Client(d.socket, timeout=60) as caller:
                    results.append(caller.decide("tool.approval.pre", {}, session="hung"))
            except Exception as exc:
                results.append(exc)

        thread = threading.Thread(target=call)
        thread.start()
        pgid, __ = (int(x) for x in wait_for_file(hung_mark).split())
        assert d.proc is not None
        d.signal(signal.SIGTERM)
        time.sleep(0.3)
        assert d.proc.poll() is None, "with a 600 s drain the first signal waits for the hung hook"
        d.signal(signal.SIGINT)
        # The drain is 600 s: exiting inside the hang guard means the second signal cut it short.
        assert d.proc.wait(EXIT_BOUND) == 1
        thread.join(30)
        assert len(results) == 1 and isinstance(results[0], ConnectionLost), results
        assert pgid_gone(pgid), f"processes are left in the hung hook's group {pgid}"
    finally:
        d.kill()
        kill_group(hung_mark)
