"""Rows 3 and 4: warm (persistent) hooks vs spawned ones, and the cost of a spawn.

Row 3: decide through a persistent Python hook (hookd_client.worker.serve) vs the
same script with ``mode: spawn``. Goal: persistent median < 0.5 ms and >= 40x faster.
Also the daemon CPU a warm hook adds to a decide (against a decide with no hook on the same
daemon, alternating blocks; goal < 50 µs), next to its floor in the same run: a bare uvloop
server relaying the same calls to the same worker over a pipe (bench/relay_server.py).
Row 4: decide through a ``mode: spawn`` hook running /bin/true vs a bare spawn of
/bin/true from Python (subprocess.run with the same pipes and input). Goal: <= 1.2x.
    python bench/warm.py [--quick] [--cpu ROUNDS [--pin]]

With ``--pin`` the ``--cpu`` rounds run everything on CPU 0 (the bench, the daemon, the relay and
the workers they start): what remains is the work itself, not the cost of waking an idle CPU,
which on a quiet machine is most of what an unpinned run measures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import msgspec
from hookd_client import Client
from hookd_client.framing import FrameDecoder, frame

from bench.common import ROOT, Stats, daemon, pinned, process, sandbox, table, time_calls

POINT = "tool.approval.pre"
PAYLOAD = {"toolName": "execute_command", "args": {"command": "ls -la", "cwd": "/tmp/project"}}

# One script for both modes, so the two rows differ only in how hookd runs it.
HOOK = textwrap.dedent(
    """\
    import json, os, sys

    def check(event):
        if "rm -rf" in event["payload"].get("args", {}).get("command", ""):
            return {"decision": "deny", "reason": "no recursive force delete"}
        return None

    if os.environ.get("HOOKD_MODE") == "persistent":
        from hookd_client.worker import serve
        serve(check)
    else:
        answer = check({"payload": json.load(sys.stdin)})
        if answer is not None:
            print(json.dumps(answer))
    """
)


def spec(name: str, command: str, args: list[str], mode: str) -> dict[str, object]:
    return {"name": name, "point": POINT, "type": "decision", "command": command, "args": args, "enabled": True, "mode": mode}


def cpu_seconds(pid: int) -> float:
    """CPU time of every thread of a process so far, in ns resolution (the scheduler's runtime;
    /proc/PID/stat counts clock ticks, too coarse to split a few µs per call)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile
    return total / 1e9


def decide_through(env: dict[str, str], hook: dict[str, object], n: int, warmup: int, label: str) -> Stats:
    with daemon(env, "--no-user-hooks"), Client(env["HOOKD_SOCKET"]) as c:
        c.attach_session("s1", [hook])
        out = c.decide(POINT, PAYLOAD, session="s1")
        assert not out.errors, out.errors
        return Stats.of(label, time_calls(lambda: c.decide(POINT, PAYLOAD, session="s1"), n, warmup))


def warm_cpu(
    env: dict[str, str], hook: dict[str, object], n: int, blocks: int = 6, cpus: set[int] | None = None
) -> tuple[Stats, float, float]:
    """Decide through ``hook`` (session s1) and with no hook (s2) on one daemon, alternating blocks:
    the warm decide's wall times, and the daemon's CPU per call for each (µs)."""
    with daemon(env, "--no-user-hooks", cpus=cpus) as proc, Client(env["HOOKD_SOCKET"]) as c:
        c.attach_session("s1", [hook])
        assert not c.decide(POINT, PAYLOAD, session="s1").errors
        for _ in range(n // 10):
            c.decide(POINT, PAYLOAD, session="s1")
            c.decide(POINT, PAYLOAD, session="s2")
        samples: list[int] = []
        cpu = {"s1": 0.0, "s2": 0.0}
        per = n // blocks
        for _ in range(blocks):
            for session in ("s2", "s1"):
                c0 = cpu_seconds(proc.pid)
                got = time_calls(lambda s=session: c.decide(POINT, PAYLOAD, session=s), per, 0)
                cpu[session] += cpu_seconds(proc.pid) - c0
                if session == "s1":
                    samples += got
        calls = per * blocks
        return Stats.of("persistent Python hook", samples), cpu["s1"] / calls * 1e6, cpu["s2"] / calls * 1e6


def relay_cpu(env: dict[str, str], script: str, n: int, blocks: int = 6, cpus: set[int] | None = None) -> tuple[float, float]:
    """The floor of the same measure: a bare uvloop server with hookd's framing relaying each call to
    the same worker over a pipe, against echoing it (bench/relay_server.py), alternating blocks:
    the server's CPU per call for each (µs)."""
    path = os.path.join(env["HOOKD_BENCH_TMP"], "relay.sock")
    argv = [sys.executable, str(ROOT / "bench" / "relay_server.py"), path, sys.executable, script]
    relayed = msgspec.msgpack.encode({"relay": {"point": POINT, "session": "s1", "project": None, "hook": "guard", "payload": PAYLOAD}})
    echoed = msgspec.msgpack.encode({"point": POINT, "session": "s2", "payload": PAYLOAD})
    with process(argv, env, path, cpus) as proc, socket.socket(socket.AF_UNIX) as sock:
        sock.connect(path)
        decoder = FrameDecoder()

        def call(body: bytes) -> None:
            sock.sendall(frame(body))
            while not decoder.feed(sock.recv(65536)):
                pass

        for _ in range(n // 10):
            call(relayed)
            call(echoed)
        cpu = {relayed: 0.0, echoed: 0.0}
        per = n // blocks
        for _ in range(blocks):
            for body in (echoed, relayed):
                c0 = cpu_seconds(proc.pid)
                for _ in range(per):
                    call(body)
                cpu[body] += cpu_seconds(proc.pid) - c0
        calls = per * blocks
        return cpu[relayed] / calls * 1e6, cpu[echoed] / calls * 1e6


def row3(quick: bool) -> str:
    with sandbox() as env:
        script = os.path.join(env["HOOKD_BENCH_TMP"], "guard.py")
        with open(script, "w") as f:
            f.write(HOOK)
        n_warm, n_spawn = (2000, 40) if quick else (12000, 200)
        warm, cpu_hook, cpu_none = warm_cpu(env, spec("guard", sys.executable, [script], "persistent"), n_warm)
        relayed, echoed = relay_cpu(env, script, n_warm)
        spawn = decide_through(env, spec("guard", sys.executable, [script], "spawn"), n_spawn, 5, "same hook, mode: spawn")
    speedup = spawn.median_us / warm.median_us
    rows = [(spawn, None, ""), (warm, spawn, "median < 500 µs and >= 40x faster")]
    verdict = (
        f"persistent median {warm.median_us:.0f} µs ({'met' if warm.median_us < 500 else 'MISSED'}: < 500 µs); "
        f"{speedup:.0f}x faster than spawn ({'met' if speedup >= 40 else 'MISSED'}: >= 40x).\n\n"
    ) + cpu_verdict([cpu_hook], [cpu_none], [relayed - echoed])
    return table("Row 3: decide through a persistent Python hook vs the same hook spawned", rows) + "\n" + verdict


def cpu_rounds(rounds: int, quick: bool, cpus: set[int] | None = None) -> str:
    """The daemon CPU a warm hook adds to a decide over ``rounds`` fresh daemons, each round next to
    the floor of the same measure (bench/relay_server.py), the two in turn (medians)."""
    hooked: list[float] = []
    bare: list[float] = []
    floor: list[float] = []
    n = 2000 if quick else 6000
    with sandbox() as env, pinned(cpus):
        script = os.path.join(env["HOOKD_BENCH_TMP"], "guard.py")
        with open(script, "w") as f:
            f.write(HOOK)
        for _ in range(rounds):
            _, cpu_hook, cpu_none = warm_cpu(env, spec("guard", sys.executable, [script], "persistent"), n, cpus=cpus)
            hooked.append(cpu_hook)
            bare.append(cpu_none)
            relayed, echoed = relay_cpu(env, script, n, cpus=cpus)
            floor.append(relayed - echoed)
    return ("On CPU 0. " if cpus else "Unpinned. ") + cpu_verdict(hooked, bare, floor)


def cpu_verdict(hooked: list[float], bare: list[float], floor: list[float]) -> str:
    added = [h - b for h, b in zip(hooked, bare, strict=True)]
    med = statistics.median
    return (
        f"Daemon CPU per decide over {len(added)} daemons (medians; each daemon alternates blocks of the two): "
        f"{med(hooked):.1f} µs through the warm hook, {med(bare):.1f} µs with no hook: the hook adds {med(added):.1f} µs "
        f"({'met' if med(added) < 50 else 'MISSED'}: < 50 µs; rounds: {', '.join(f'{a:.0f}' for a in added)}).\n"
        f"The floor in the same run, a bare uvloop relay to the same worker over a pipe against echoing: "
        f"+{med(floor):.1f} µs (rounds: {', '.join(f'{a:.0f}' for a in floor)}). Load average {os.getloadavg()[0]:.1f}.\n"
    )


def bare_spawn(program: str) -> None:
    subprocess.run([program], input=json.dumps(PAYLOAD).encode(), capture_output=True, check=True)


def row4(quick: bool) -> str:
    program = shutil.which("true") or "/bin/true"
    n = 200 if quick else 1500
    clock = time.perf_counter_ns
    bare_ns: list[int] = []
    hook_ns: list[int] = []
    with sandbox() as env, daemon(env, "--no-user-hooks"), Client(env["HOOKD_SOCKET"]) as c:
        c.attach_session("s1", [spec("true", program, [], "spawn")])
        assert not c.decide(POINT, PAYLOAD, session="s1").errors
        # Alternate the two, so the machine's load changes hit both alike.
        for i in range(n + 20):
            t0 = clock()
            bare_spawn(program)
            t1 = clock()
            c.decide(POINT, PAYLOAD, session="s1")
            t2 = clock()
            if i >= 20:
                bare_ns.append(t1 - t0)
                hook_ns.append(t2 - t1)
    bare = Stats.of(f"bare subprocess.run({program}) from Python", bare_ns)
    through = Stats.of(f"decide through a spawn hook ({program})", hook_ns)
    ratio = through.median_us / bare.median_us
    rows = [(bare, None, ""), (through, bare, "<= 1.2x")]
    return (
        table("Row 4: spawned-hook overhead (the two alternate, call by call)", rows)
        + f"\nratio {ratio:.2f}x ({'met' if ratio <= 1.2 else 'MISSED'}: <= 1.2x). "
        "The hook row includes the decide round trip itself (row 1).\n"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer round trips")
    ap.add_argument("--cpu", type=int, metavar="ROUNDS", help="only the daemon CPU a warm hook adds, ROUNDS fresh daemons")
    ap.add_argument("--pin", action="store_true", help="with --cpu: everything on CPU 0")
    args = ap.parse_args()
    if args.pin and not args.cpu:
        ap.error("--pin goes with --cpu ROUNDS")
    if args.cpu:
        print(cpu_rounds(args.cpu, args.quick, {0} if args.pin else None))
        return 0
    print(row3(args.quick))
    print(row4(args.quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
