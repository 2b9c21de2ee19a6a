"""Callback hooks under attack: pipelined decides with their callback on one connection, killed and stopped holders."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter

from hookd_client import AsyncClient, Client
from hookd_client import messages as m

from .common import POINT, DaemonProcess, Figures, Raw, daemon_pid, rss_kib

# ---------------------------------------------------------------- callbacks


def pipelined_callbacks(d: DaemonProcess, n: int = 10_000) -> Figures:
    """One blocking, single-threaded client writes ``n`` decides, then serves the invokes they cause."""
    raw = Raw(d.socket, timeout=120)
    spec = m.CallbackSpec(cb=1, name="guard", point=POINT, type="decision", timeout=600, on_error="deny")
    raw.send(m.AttachHooks(2, "piped", None, [m.CallbackEntry(spec)]))
    assert isinstance(raw.recv(), m.Attached)
    codec = raw.codec
    start = time.perf_counter()
    raw.sock.sendall(b"".join(codec.encode(m.Decide(10 + i, POINT, {"i": i}, "piped")) for i in range(n)))
    replies: Counter[int] = Counter()
    invokes = 0
    denied = 0
    while sum(replies.values()) < n:
        msg = raw.recv()
        if isinstance(msg, m.Invoke):
            invokes += 1
            raw.send(m.InvokeResult(msg.call, m.Decision("deny", reason="piped")))
        else:
            assert isinstance(msg, m.Outcome), msg
            replies[msg.id] += 1
            denied += msg.decision == "deny" and not msg.errors
    elapsed = time.perf_counter() - start
    raw.close()
    assert set(replies.values()) == {1} and len(replies) == n
    return {
        "decides": n,
        "invokes_served": invokes,
        "denied_by_callback": denied,
        "seconds": round(elapsed, 2),
        "per_s": round(n / elapsed),
    }


# The holder answers deny, except a call whose payload says "hold": that one it reports on
# stdout as soon as its handler runs (the decide is then surely waiting on this client) and
# never answers.
_HOLDER = textwrap.dedent(
    """
    import sys, threading, time
    from hookd_client import Client
    lock, never = threading.Lock(), threading.Event()
    def guard(payload):
        if payload.get("hold"):
            with lock:
                sys.stdout.write(f"invoked {payload['i']}\\n")
                sys.stdout.flush()
            never.wait()
        return {"decision": "deny", "reason": "held"}
    c = Client(sys.argv[1], handler_threads=int(sys.argv[2]))
    c.register_decision("tool.approval.pre", guard, session="held", timeout=600, on_error="deny")
    print("ready", flush=True)
    time.sleep(3600)
    """
)


def _start_holder(d: DaemonProcess, threads: int = 16) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, d.socket, str(threads)],
        env=d.env.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    line = holder.stdout.readline()
    assert line.strip() == "ready", (line, holder.stderr.read() if holder.stderr else "")
    with Client(d.socket, timeout=60) as c:
        served = c.decide(POINT, {}, session="held")
    assert served.decision == "deny" and served.reason == "held", served
    return holder


def _invoked(holder: subprocess.Popen[str], decides: int) -> set[int]:
    """Wait until the holder's handler runs for each of ``decides`` calls; their numbers."""
    assert holder.stdout is not None
    seen: set[int] = set()
    while len(seen) < decides:
        line = holder.stdout.readline()
        assert line.startswith("invoked "), (line, sorted(seen))  # end of file: the holder died
        seen.add(int(line.split()[1]))
    return seen


def killed_holder(d: DaemonProcess, decides: int = 50) -> Figures:
    """SIGKILL a client holding a session with a callback guard while decides wait on it."""
    holder = _start_holder(d, threads=decides + 4)  # a handler thread for each call, so each reports

    async def main() -> tuple[list[m.Outcome], float]:
        async with AsyncClient(d.socket) as c:
            calls = [asyncio.ensure_future(c.decide(POINT, {"i": i, "hold": True}, session="held")) for i in range(decides)]
            # Every decide is waiting on the holder: each one's handler has been called and holds it.
            waiting = await asyncio.wait_for(asyncio.to_thread(_invoked, holder, decides), 120)
            assert waiting == set(range(decides)), waiting
            killed = time.perf_counter()
            os.kill(holder.pid, signal.SIGKILL)
            outs = await asyncio.wait_for(asyncio.gather(*calls), 120)
            return outs, time.perf_counter() - killed

    outs, after_kill = asyncio.run(main())
    holder.wait(30)
    failed = [o for o in outs if o.errors]
    assert len(failed) == decides, outs[:3]
    assert all(o.decision == "deny" for o in failed), failed[:3]
    return {"decides_waiting": decides, "answered_deny_with_error": len(failed), "all_answered_after_kill_ms": round(after_kill * 1000, 1)}


def stopped_holder(d: DaemonProcess, decides: int = 120, blob: int = 256 << 10) -> Figures:
    """SIGSTOP a client holding a callback guard and flood decides (each invoke carries its payload):
    the daemon drops the stopped client past its write bound, and the decides fail, closed."""
    holder = _start_holder(d)
    pid = daemon_pid(d)
    rss_before = rss_kib(pid)
    os.kill(holder.pid, signal.SIGSTOP)
    text = "x" * blob
    try:

        async def main() -> tuple[list[m.Outcome], float]:
            async with AsyncClient(d.socket) as c:
                start = time.perf_counter()
                outs = await asyncio.wait_for(
                    asyncio.gather(*(c.decide(POINT, {"i": i, "b": text}, session="held") for i in range(decides))), 120
                )
                return outs, time.perf_counter() - start

        outs, elapsed = asyncio.run(main())
        rss_after = rss_kib(pid)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        os.kill(holder.pid, signal.SIGCONT)
        holder.wait(30)
    failed = [o for o in outs if o.errors]
    assert failed and all(o.decision == "deny" for o in failed), outs[:3]
    # Once the stopped holder is dropped its guard cannot run; every later call names it and denies.
    named = [o for o in outs if not o.errors]
    assert all(o.decision == "deny" and [n.reason for n in o.not_run] == ["disconnected"] for o in named), named[:3]
    return {
        "decides": decides,
        "named_not_run": len(named),
        "payload_kib": blob >> 10,
        "failed_closed": len(failed),
        "all_answered_ms": round(elapsed * 1000, 1),
        "rss_before_mib": round(rss_before / 1024, 1),
        "rss_after_mib": round(rss_after / 1024, 1),
        "queued_to_holder_mib": round(decides * blob / (1 << 20), 1),
    }
