"""Emit throughput with 0, 1 and 10 subscribers, in one run (not part of the tests).

Starts a private daemon per configuration (temp dirs, no user hooks), attaches
N subscriber processes that read every event, then, round after round, runs on
each daemon in turn (so load changes on a shared machine hit all alike):

- pipelined: one connection keeps ``--window`` emits in flight (daemon-bound throughput);
- sequential: a blocking Client emits one at a time (what one agent sees).

Prints the medians over rounds of events/s and of the daemon's CPU per event,
and of each round's ratio to the no-subscriber daemon with the journal on (the
default). Subscribers count what they received and any gap, so a run where
readers fell behind says so instead of looking fast.

The readers are lean by default: they read the stream in large chunks, count
event frames by their header and look into nothing else but the end marker (as
Redis's benchmark subscribers count messages), so the rows measure the daemon's fan-out, not the readers' decoding;
on a machine with few CPUs, ten readers decoding every event into Python
objects compete with the daemon for the CPUs. ``--client-readers`` reads with
hookd_client's subscription instead (what ``hookd tail`` does).

    .venv/bin/python bench/emit_throughput.py [--rounds 5] [--events 30000] [--sequential 6000] [--window 128]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client import Client, Gap
from hookd_client.framing import HEADER, request_codec
from hookd_client.messages import Emit, Subscribe

from bench.throughput import connect, pipelined_seconds

POINT = "custom.bench"
END = "custom.bench.end"
CONFIGS = (("0 subscribers, no journal", 0, False), ("0 subscribers", 0, True), ("1 subscriber", 1, True), ("10 subscribers", 10, True))
BASE = "0 subscribers"


def wait_for(path: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            Client(path).close()
            return
        except Exception:
            time.sleep(0.05)
    raise SystemExit(f"no daemon on {path}")


def cpu_seconds(pid: int) -> float:
    """User+system CPU the process has used, all its threads (Linux /proc; 10 ms resolution)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Frame(msgspec.Struct):
    """What a lean reader looks at in a stream frame (the rest is skipped unparsed)."""

    type: str
    point: str = ""
    missed: int = 0


EVENT_TAG = b"\xa4type\xa5event"  # how an Event frame's body starts, after its map header
END_POINT = msgspec.msgpack.encode(END)


def lean_reader(path: str, ready: mp.Event, result: mp.Queue) -> None:  # type: ignore[type-arg]
    sock = connect(path)
    sock.sendall(request_codec().encode(Subscribe(1, [f"{POINT}*"], queue=1_000_000)))
    decode = msgspec.msgpack.Decoder(Frame).decode
    unpack = HEADER.unpack_from
    buf = bytearray()
    got = missed = 0
    subscribed = False
    while True:
        data = sock.recv(1 << 20)
        if not data:
            break
        buf += data
        pos, end = 0, len(buf)
        while end - pos >= HEADER.size:
            (length,) = unpack(buf, pos)
            body, stop = pos + HEADER.size, pos + HEADER.size + length
            if stop > end:
                break
            if buf.startswith(EVENT_TAG, body + 1):  # an event: only the end marker is looked into
                if buf.find(END_POINT, body, stop) != -1:
                    sock.close()
                    result.put((got, missed))
                    return
                got += 1
            else:
                frame = decode(buf[body:stop])
                if frame.type == "gap":
                    missed += frame.missed
                elif frame.type == "subscribed" and not subscribed:
                    subscribed = True
                    ready.set()
            pos = stop
        del buf[:pos]
    result.put((got, missed))


def client_reader(path: str, ready: mp.Event, result: mp.Queue) -> None:  # type: ignore[type-arg]
    got = missed = 0
    with Client(path).subscribe([f"{POINT}*"], queue=1_000_000) as sub:
        ready.set()
        for item in sub:
            if isinstance(item, Gap):
                missed += item.missed
            elif item.point == END:
                break
            else:
                got += 1
    result.put((got, missed))


def pipelined(path: str, n: int, window: int) -> float:
    """Seconds for ``n`` emits on one connection with ``window`` in flight."""
    return pipelined_seconds(path, request_codec().encode(Emit(1, POINT, {"i": 0, "tool": "bash"}, "s1")), n, window)


def sequential(path: str, n: int) -> float:
    with Client(path) as c:
        t0 = time.perf_counter()
        for i in range(n):
            c.emit(POINT, {"i": i, "tool": "bash"})
        return time.perf_counter() - t0


class Setup:
    """One configuration's daemon and its subscriber processes."""

    def __init__(
        self, stack: ExitStack, label: str, subscribers: int, journal: bool, reader: Any, python: tuple[str, ...] = (sys.executable,)
    ) -> None:
        self.label = label
        self.journal = journal
        self.tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="hookd-emit-"))
        env = dict(os.environ, XDG_STATE_HOME=f"{self.tmp}/state", XDG_CONFIG_HOME=f"{self.tmp}/config", HOME=self.tmp)
        self.sock = f"{self.tmp}/hookd.sock"
        cmd = [*python, "-m", "hookd", "serve", "--socket", self.sock, "--no-user-hooks", "--log-level", "error"]
        if not journal:
            cmd.append("--no-journal")
        self.daemon = subprocess.Popen(cmd, env=env)
        stack.callback(self.stop)
        wait_for(self.sock)
        ctx = mp.get_context("spawn")
        self.results: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
        self.procs = []
        for _ in range(subscribers):
            ready = ctx.Event()
            p = ctx.Process(target=reader, args=(self.sock, ready, self.results), daemon=True)
            p.start()
            if not ready.wait(120):
                raise SystemExit(f"a subscriber of {label!r} never subscribed")
            self.procs.append(p)
        self.emitted = 0
        self.rounds: list[dict[str, float]] = []

    def round(self, events: int, window: int, seq_n: int) -> None:
        cpu0 = cpu_seconds(self.daemon.pid)
        pipe_s = pipelined(self.sock, events, window)
        cpu1 = cpu_seconds(self.daemon.pid)
        seq_s = sequential(self.sock, seq_n)
        cpu2 = cpu_seconds(self.daemon.pid)
        self.emitted += events + seq_n
        self.rounds.append(
            {
                "pipelined": events / pipe_s,
                "sequential": seq_n / seq_s,
                "cpu_pipe": (cpu1 - cpu0) / events * 1e6,
                "cpu_seq": (cpu2 - cpu1) / seq_n * 1e6,
            }
        )

    def finish(self) -> dict[str, int]:
        """Ends the subscribers; what they missed, and the journal's lines once the daemon stopped."""
        with Client(self.sock) as c:
            c.emit(END, {})
        received = [self.results.get(timeout=300) for _ in self.procs]
        for p in self.procs:
            p.join(10)
        missed = sum(self.emitted - got for got, _ in received)
        self.stop()
        lines = 0
        if self.journal:
            state = Path(self.tmp, "state", "hookd")
            lines = sum(1 for f in state.glob("events.jsonl*") if not f.name.endswith(".seq") for _ in f.open("rb"))
        return {"missed": missed, "journal": lines}

    def stop(self) -> None:
        if self.daemon.poll() is None:
            self.daemon.terminate()
            self.daemon.wait(30)


def median_of(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="rounds; each runs every configuration once, in turn")
    parser.add_argument("--events", type=int, default=30_000, help="pipelined emits per configuration and round")
    parser.add_argument("--sequential", type=int, default=6_000, help="sequential emits per configuration and round")
    parser.add_argument("--window", type=int, default=128, help="emits in flight in the pipelined run")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 rounds, fewer events")
    parser.add_argument("--client-readers", action="store_true", help="subscribers read with hookd_client (decode every event)")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.events, args.sequential = 2, 5_000, 1_000
    load0 = os.getloadavg()
    with ExitStack() as stack:
        setups = []
        for label, subs, journal in CONFIGS:
            print(f"starting: {label} ...", file=sys.stderr, flush=True)
            setups.append(Setup(stack, label, subs, journal, client_reader if args.client_readers else lean_reader))
        for s in setups:  # warm-up, not counted in the rates
            s.round(max(1, args.events // 10), args.window, max(1, args.sequential // 10))
            s.rounds.clear()
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds} (load {os.getloadavg()[0]:.1f}) ...", file=sys.stderr, flush=True)
            for s in setups:
                s.round(args.events, args.window, args.sequential)
        ends = [s.finish() for s in setups]
    load1 = os.getloadavg()
    base = next(s for s in setups if s.label == BASE)
    readers = "hookd_client" if args.client_readers else "lean"
    lines = [
        "## Row 5 (second half): emit with 0, 1 and 10 subscribers",
        "",
        f"{args.rounds} rounds of {args.events} pipelined (window {args.window}) and {args.sequential} sequential emits per "
        f"configuration, the daemons alternating within each round; {readers} readers; load average {load0[0]:.1f} at start, "
        f"{load1[0]:.1f} at end.",
        "",
        "| configuration | pipelined/s | ratio | daemon CPU µs/ev | ratio | sequential/s | ratio | daemon CPU µs/ev | ratio "
        "| missed | journal lines |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s, end in zip(setups, ends, strict=True):
        ratios = {
            key: statistics.median(mine[key] / theirs[key] for mine, theirs in zip(s.rounds, base.rounds, strict=True) if theirs[key])
            for key in ("pipelined", "cpu_pipe", "sequential", "cpu_seq")
        }
        lines.append(
            f"| {s.label} | {median_of(s.rounds, 'pipelined'):,.0f} | {ratios['pipelined']:.2f} | "
            f"{median_of(s.rounds, 'cpu_pipe'):.1f} | {ratios['cpu_pipe']:.2f} | "
            f"{median_of(s.rounds, 'sequential'):,.0f} | {ratios['sequential']:.2f} | "
            f"{median_of(s.rounds, 'cpu_seq'):.1f} | {ratios['cpu_seq']:.2f} | {end['missed']} | {end['journal']} |"
        )
    lines += [
        "",
        "Figures are medians over rounds; ratio: the median of each round's ratio to '0 subscribers' (journal on, the default) "
        "in the same round. Daemon CPU: its own CPU per event, all threads (steadier than wall-clock rates on a shared "
        "machine; 10 ms clock ticks). missed: events some subscriber did not get (0 expected). journal lines: on disk after "
        "the run (every emit, plus the daemon's own events). Goal: 10 subscribers cost at most half the throughput of none "
        "(ratio >= 0.5).",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
