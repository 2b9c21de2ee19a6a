"""Shared benchmark plumbing: start servers, time round trips, print tables.

Figures are medians and p99 over many round trips after a warm-up, always
next to a baseline measured in the same run, and reported as ratios: this
machine is shared and noisy, so absolute numbers alone mean little.
"""

from __future__ import annotations

import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Stats:
    name: str
    median_us: float
    p99_us: float
    n: int

    @classmethod
    def of(cls, name: str, samples_ns: list[int]) -> Stats:
        s = sorted(samples_ns)
        return cls(name, statistics.median(s) / 1000, s[min(len(s) - 1, int(len(s) * 0.99))] / 1000, len(s))


def time_calls(call: Callable[[], object], n: int, warmup: int) -> list[int]:
    for _ in range(warmup):
        call()
    clock = time.perf_counter_ns
    out = []
    for _ in range(n):
        t0 = clock()
        call()
        out.append(clock() - t0)
    return out


def wait_socket(path: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            return
        except OSError:
            time.sleep(0.02)
        finally:
            s.close()
    raise TimeoutError(path)


@contextlib.contextmanager
def sandbox() -> Iterator[dict[str, str]]:
    """An environment with private HOME/XDG dirs and a socket path in a temp dir."""
    with tempfile.TemporaryDirectory(prefix="hookd-bench-") as tmp:
        env = dict(os.environ)
        for d in ("home", "config", "state", "run"):
            os.makedirs(os.path.join(tmp, d), mode=0o700)
        env.update(
            HOME=os.path.join(tmp, "home"),
            XDG_CONFIG_HOME=os.path.join(tmp, "config"),
            XDG_STATE_HOME=os.path.join(tmp, "state"),
            XDG_RUNTIME_DIR=os.path.join(tmp, "run"),
            HOOKD_SOCKET=os.path.join(tmp, "run", "hookd.sock"),
            HOOKD_LOG_LEVEL="warning",
            HOOKD_BENCH_TMP=tmp,
        )
        yield env


@contextlib.contextmanager
def process(argv: list[str], env: dict[str, str], socket_path: str, cpus: set[int] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if cpus:
            os.sched_setaffinity(proc.pid, cpus)
        wait_socket(socket_path)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def daemon(env: dict[str, str], *extra: str, cpus: set[int] | None = None) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    return process([sys.executable, "-m", "hookd", "serve", *extra], env, env["HOOKD_SOCKET"], cpus)


def echo_server(path: str, env: dict[str, str], cpus: set[int] | None = None) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    return process([sys.executable, str(ROOT / "bench" / "echo_server.py"), path], env, path, cpus)


@contextlib.contextmanager
def pinned(cpus: set[int] | None) -> Iterator[None]:
    """Run the benchmark process itself on ``cpus`` (None: leave it alone)."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def table(title: str, rows: list[tuple[Stats, Stats | None, str]]) -> str:
    """Rows of (measured, baseline, goal). Ratio is measured median / baseline median."""
    lines = [f"## {title}", "", "| case | median µs | p99 µs | n | ratio (median) | goal |", "|---|---:|---:|---:|---:|---|"]
    for s, base, goal in rows:
        ratio = f"{s.median_us / base.median_us:.2f}x" if base else "1.00x (baseline)"
        lines.append(f"| {s.name} | {s.median_us:.1f} | {s.p99_us:.1f} | {s.n} | {ratio} | {goal} |")
    return "\n".join(lines) + "\n"
