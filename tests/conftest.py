"""Shared fixtures: a real `hookd serve` process on a socket in a temp dir.

Every daemon gets its own HOME, XDG_CONFIG_HOME, XDG_STATE_HOME and
XDG_RUNTIME_DIR under tmp_path, so no test sees the developer's own hooks.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's per-example deadline is a timed assertion, and the machine that runs the suite is shared:
# under load a harmless example takes longer than 200 ms and the property "fails". The properties hold
# the daemon to what it does, never to how fast; speed lives in bench/.
settings.register_profile("hookd", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("hookd")

ROOT = Path(__file__).resolve().parent.parent
HOOKD = [sys.executable, "-m", "hookd"]


# The order in which a parallel run (`make test`: xdist, one file to a worker at a time, files in
# collection order) hands out the test folders. The folders whose files drive real agents or restart
# daemons take tens of seconds a file; handed out last, one of them ran alone at the end while the other
# workers sat idle. They go first, and the quick in-memory files fill the end.
RUN_FIRST = ("e2e", "fault", "integration", "docs", "team", "attacks", "unit", "daemon")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def folder(item: pytest.Item) -> int:
        parts = Path(item.path).relative_to(ROOT / "tests").parts
        return RUN_FIRST.index(parts[0]) if len(parts) > 1 and parts[0] in RUN_FIRST else len(RUN_FIRST)

    items.sort(key=folder)  # stable: each folder keeps its own order


# Bounds for a daemon to become ready: hang guards on a loaded machine, not speed checks.
READY_TIMEOUT = 120.0


def wait_for_socket(path: str, proc: subprocess.Popen[bytes] | None = None, timeout: float = READY_TIMEOUT) -> None:
    """Wait until the daemon on ``path`` serves: a hello answered with a welcome.

    A bare connect is not enough: the socket listens before the daemon has loaded
    its hook files, and a connection waits in the backlog until then. The daemon
    answers nothing before its global files are loaded, so a welcome means loaded.
    """
    from hookd_client import Client, HookdError

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"daemon exited with {proc.returncode} before it was ready")
        try:
            Client(path, timeout=max(1.0, deadline - time.monotonic()), reconnect=0).close()
            return
        except (HookdError, OSError):
            time.sleep(0.02)
    raise TimeoutError(f"no daemon ready on {path} after {timeout} s")


def wait_ready_fd(read_end: int, proc: subprocess.Popen[bytes], timeout: float = READY_TIMEOUT) -> str:
    """Wait for ``hookd serve --ready-fd``'s READY=1 line; end of file means the daemon exited first."""
    deadline = time.monotonic() + timeout
    got = b""
    try:
        while b"\n" not in got:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"daemon {proc.pid} not ready after {timeout} s")
            readable, __, __ = select.select([read_end], [], [], left)
            if not readable:
                continue
            chunk = os.read(read_end, 4096)
            if not chunk:
                code = proc.wait(timeout)
                raise RuntimeError(f"daemon exited with {code} before it was ready")
            got += chunk
    finally:
        os.close(read_end)
    if not got.startswith(b"READY=1\n"):
        raise RuntimeError(f"unexpected readiness line from the daemon: {got!r}")
    return got.decode()


@dataclass
class Env:
    """A sandboxed user environment: home, config, state, runtime dirs."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)
    # How this environment runs hookd: the checkout's (the test venv's editable install), or, for the
    # end-to-end suites, hookd as users install it (tests/e2e/installed.py).
    command: list[str] = field(default_factory=lambda: list(HOOKD))

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def config(self) -> Path:
        return self.root / "config"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def socket(self) -> str:
        return self.env["HOOKD_SOCKET"]

    def write_global_hooks(self, yaml_text: str) -> Path:
        path = self.config / "hookd" / "hooks.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(yaml_text))
        return path

    def hookd(self, *args: str, input: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        """Run the `hookd` CLI in this environment."""
        return subprocess.run([*self.command, *args], env=self.env, input=input, capture_output=True, text=True, timeout=timeout)


def make_env(root: Path) -> Env:
    e = Env(root)
    for d in ("home", "config", "state", "run"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "run").chmod(0o700)
    env = dict(os.environ)
    env.update(
        HOME=str(e.home),
        XDG_CONFIG_HOME=str(e.config),
        XDG_STATE_HOME=str(e.state),
        XDG_RUNTIME_DIR=str(root / "run"),
        HOOKD_SOCKET=str(root / "run" / "hookd.sock"),
        HOOKD_LOG_LEVEL="debug",
        PYTHONUNBUFFERED="1",
        # Project hook files run only once trusted; tests of other features trust them all.
        # Tests of trust itself pop this before starting a daemon.
        HOOKD_TRUST_ALL="1",
    )
    env.pop("NOTIFY_SOCKET", None)
    env.pop("LISTEN_FDS", None)
    env.pop("LISTEN_PID", None)
    e.env = env
    return e


class DaemonProcess:
    """A running `hookd serve`; stderr goes to a log file the test can read."""

    def __init__(self, env: Env, *extra: str) -> None:
        self.env = env
        self.extra = extra
        self.log_path = env.root / f"daemon-{time.monotonic_ns()}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def socket(self) -> str:
        return self.env.socket

    def start(self) -> DaemonProcess:
        log = open(self.log_path, "wb")  # noqa: SIM115 - handed to the child
        read_end, write_end = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [*self.env.command, "serve", "--ready-fd", str(write_end), *self.extra],
                env=self.env.env,
                stdout=log,
                stderr=log,
                cwd=self.env.root,
                pass_fds=(write_end,),
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
            log.close()
        # Ready: the global hook files are loaded and the socket is served (hookd serve --ready-fd).
        wait_ready_fd(read_end, self.proc)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def stop(self, timeout: float = 10) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def client(self, **kw: object):  # type: ignore[no-untyped-def]
        from hookd_client import Client

        return Client(self.socket, **kw)  # type: ignore[arg-type]


@pytest.fixture
def env(tmp_path: Path, shim_data: Path) -> Env:
    e = make_env(tmp_path)
    e.env["XDG_DATA_HOME"] = str(shim_data)
    return e


@pytest.fixture(scope="session")
def shim_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data directory per test process, where `hookd bridge install` puts the compiled shim: hookd
    reuses a shim built from the same inputs, so a worker compiles it once rather than once per test's HOME
    (a compile was most of an install's CPU). It is the only thing hookd keeps there."""
    return tmp_path_factory.mktemp("data")


@pytest.fixture
def daemon_factory(env: Env) -> Iterator[callable]:  # type: ignore[valid-type]
    started: list[DaemonProcess] = []

    def start(*extra: str) -> DaemonProcess:
        d = DaemonProcess(env, *extra).start()
        started.append(d)
        return d

    yield start
    for d in started:
        d.kill()


@pytest.fixture
def daemon(daemon_factory) -> DaemonProcess:  # type: ignore[no-untyped-def]
    return daemon_factory()


def write_script(path: Path, body: str) -> Path:
    """An executable Python hook script."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path
