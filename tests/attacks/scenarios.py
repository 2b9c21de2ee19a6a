"""Black-box attacks on a real daemon, each returning its figures.

Shared by the tests in this directory (which assert what must hold) and by
bench/attacks.py (which prints the figures for bench/attacks.md). Every
scenario drives a running `hookd serve` over its socket and signals, as an
attacker or a broken client would; none looks inside the daemon.
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
from hookd_client import AsyncClient, Client
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec, request_codec

from ..conftest import DaemonProcess, make_env

POINT = "tool.approval.pre"
Figures = dict[str, Any]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def daemon_pid(d: DaemonProcess) -> int:
    assert d.proc is not None
    return d.proc.pid


class Raw:
    """A blocking hand-driven connection."""

    def __init__(self, path: str, hello: bool = True, timeout: float = 60) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.codec = reply_codec()
        self.decoder = FrameDecoder(1 << 30)
        self.inbox: list[m.Reply] = []
        if hello:
            self.send(m.Hello(1, m.PROTOCOL_VERSION, "attack", os.getpid()))
            welcome = self.recv()
            assert isinstance(welcome, m.Welcome), welcome

    def send(self, msg: m.Request) -> None:
        self.sock.sendall(self.codec.encode(msg))

    def recv(self) -> m.Reply:
        while not self.inbox:
            data = self.sock.recv(1 << 16)
            assert data, "connection closed"
            self.inbox += [self.codec.decode(b) for b in self.decoder.feed(data)]
        return self.inbox.pop(0)

    def close(self) -> None:
        self.sock.close()


def _frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def probe_latency(path: str) -> float:
    """Seconds for a fresh client to connect and get a status, while the attack goes on."""
    start = time.perf_counter()
    with Client(path, timeout=60) as c:
        c.status()
    return time.perf_counter() - start


# ------------------------------------------------------------- another user


def other_uid(d: DaemonProcess, opened: list[str], uid: int = 65534) -> Figures:
    """A process of another user connects: first as hookd leaves the socket (its directory keeps
    them out), then with the socket and ``opened`` directories opened to them on purpose (the
    daemon itself refuses them). Needs root, to become that user in a forked child."""
    if os.getuid() != 0:
        raise PermissionError("needs root to act as another user")
    path = d.socket
    directory = os.path.dirname(path)
    read_fd, write_fd = os.pipe()
    old = {p: os.stat(p).st_mode & 0o777 for p in [*opened, directory, path]}
    try:
        blocked = _as_user(uid, path, write_fd, read_fd)
        for p in [*opened, directory]:
            os.chmod(p, old[p] | 0o011)
        os.chmod(path, 0o666)
        refused = _as_user(uid, path, write_fd, read_fd)
    finally:
        for p, mode in old.items():
            os.chmod(p, mode)
        os.close(read_fd)
        os.close(write_fd)
    with Client(path) as c:
        status = c.status()
    return {"blocked_by_directory": blocked, "refused_by_daemon": refused, "daemon_serving": status.pid == daemon_pid(d)}


def _as_user(uid: int, path: str, write_fd: int, read_fd: int) -> str:
    """Fork, become ``uid``, connect and send hello; report what happened in a word."""
    hello = request_codec().encode(m.Hello(1, m.PROTOCOL_VERSION, "intruder", 0))
    pid = os.fork()
    if pid == 0:  # the child: only system calls, then _exit
        result = b"?"
        try:
            os.setgid(uid)
            os.setuid(uid)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(20)
            try:
                s.connect(path)
            except PermissionError:
                result = b"eacces"
            else:
                try:
                    s.sendall(hello)
                    data = s.recv(65536)
                    result = b"closed" if not data else b"answered"
                except OSError:
                    result = b"closed"
        except BaseException:
            result = b"error"
        os.write(write_fd, result.ljust(8))
        os._exit(0)
    os.waitpid(pid, 0)
    return os.read(read_fd, 8).decode().strip()


# ------------------------------------------------------------------- fuzzing

_KINDS = ("status", "explain", "emit", "decide", "emit", "decide", "list_hooks", "hello", "invoke_result", "nonsense")


_PAYLOADS = [{"k": k, "s": "x" * (k % 41), "l": [1, [2, [3]]], "big": (2**63 - 1) if k % 2 else -(2**63)} for k in range(64)]


def _valid_body(rng: random.Random, rid: int) -> dict[str, Any]:
    kind = _KINDS[rng.randrange(len(_KINDS))]
    if kind in ("emit", "decide"):
        # Unknown points are rare: their error names the nearest point, which costs the daemon a search.
        roll = rng.random()
        point = "bogus" if roll < 0.03 else POINT if roll < 0.5 else "tool.execute.after"
        return {"type": kind, "id": rid, "point": point, "payload": _PAYLOADS[rid % 64]}
    if kind == "explain":
        return {"type": "explain", "id": rid, "point": POINT}
    if kind == "hello":
        return {"type": "hello", "id": rid, "protocol": 1}
    if kind == "invoke_result":
        return {"type": "invoke_result", "call": rid % 11, "decision": {"decision": "block" if rid % 2 else "allow"}}
    return {"type": kind, "id": rid}  # status, list_hooks, and a type that does not exist


def _mutate(rng: random.Random, body: bytes) -> bytes:
    b = bytearray(body)
    how = rng.randrange(6)
    if how == 0 and b:
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif how == 1:
        del b[rng.randrange(len(b) + 1) :]
    elif how == 2:
        b += rng.randbytes(rng.randint(1, 8))
    elif how == 3:
        return rng.randbytes(rng.randint(0, 30))
    elif how == 4 and rng.random() < 0.2:  # a deep nest the encoder would refuse to write
        head = msgspec.msgpack.encode({"type": "decide", "id": rng.randint(0, 2**40), "point": POINT})
        depth = rng.choice((100, 900, 1100, 3000))
        return bytes([0x84]) + head[1:] + msgspec.msgpack.encode("payload") + b"\x81\xa1a" + b"\x91" * depth + b"\x90"
    else:
        b[0:1] = bytes([rng.randrange(256)])
    return bytes(b)


def _expected_reply(codec: Any, body: bytes) -> int | None:
    """The id the daemon must answer this body with, or None when it must not answer (invoke results)."""
    from hookd_client.framing import BadMessage

    try:
        msg = codec.decode(body)
    except BadMessage as exc:
        return None if exc.kind == "invoke_result" else exc.request_id
    if isinstance(msg, m.InvokeResult):
        return None
    return msg.id  # type: ignore[no-any-return]


def fuzz(d: DaemonProcess, frames: int = 100_000, connections: int = 4, seed: int = 12) -> Figures:
    """Fuzzed frames (well-formed, mutated, random, deeply nested) on a few connections at once,
    sent in random splits. Every frame that is a request gets exactly one reply with its id."""
    rng = random.Random(seed)
    codec = request_codec()
    per = frames // connections
    plans: list[tuple[bytes, Counter[int]]] = []
    next_id = 2
    for _ in range(connections):
        chunks: list[bytes] = []
        expected: Counter[int] = Counter()
        for _ in range(per):
            valid = _valid_body(rng, next_id)
            next_id += 1
            body = msgspec.msgpack.encode(valid)
            if rng.random() < 0.3:
                body = _mutate(rng, body)
                rid = _expected_reply(codec, body)
            else:
                rid = None if valid["type"] == "invoke_result" else valid["id"]
            if rid is not None:
                expected[rid] += 1
            chunks.append(_frame(body))
        plans.append((b"".join(chunks), expected))
    rss_before = rss_kib(daemon_pid(d))
    results: list[Counter[int] | BaseException] = [Counter() for _ in plans]
    start = time.perf_counter()

    def run(i: int, data: bytes, expected: Counter[int]) -> None:
        try:
            raw = Raw(d.socket, timeout=120)
            want = sum(expected.values())
            got: Counter[int] = Counter()
            received = 0
            sender = threading.Thread(target=_send_in_splits, args=(raw.sock, data, random.Random(seed + i)))
            sender.start()
            while received < want:
                got[raw.recv().id] += 1  # type: ignore[attr-defined]
                received += 1
            sender.join()
            raw.send(m.StatusRequest(1))  # and one more, after everything: still served, nothing extra before it
            last = raw.recv()
            assert isinstance(last, m.Status) and last.id == 1, last
            raw.close()
            results[i] = got
        except BaseException as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, *plan)) for i, plan in enumerate(plans)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    elapsed = time.perf_counter() - start
    exact = 0
    for (_, expected), got in zip(plans, results, strict=True):
        if isinstance(got, BaseException):
            raise got
        assert got == expected, f"replies by id differ: missing {expected - got}, extra {got - expected}"
        exact += sum(got.values())
    assert d.proc is not None and d.proc.poll() is None, "the daemon died"
    return {
        "frames": per * connections,
        "replies_checked": exact,
        "seconds": round(elapsed, 2),
        "frames_per_s": round(per * connections / elapsed),
        "rss_before_mib": round(rss_before / 1024, 1),
        "rss_after_mib": round(rss_kib(daemon_pid(d)) / 1024, 1),
    }


def _send_in_splits(sock: socket.socket, data: bytes, rng: random.Random) -> None:
    pos = 0
    while pos < len(data):
        n = rng.choice((1, 7, 100, 4096, 65536, 300_000))
        sock.sendall(data[pos : pos + n])
        pos += n


# --------------------------------------------------------------- connections


def many_connections(d: DaemonProcess, n: int = 2000) -> Figures:
    """``n`` connections open at once, each greeted and served."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 200), hard))
    pid = daemon_pid(d)
    rss_before = rss_kib(pid)
    codec = reply_codec()
    hello = codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "many", os.getpid())) + codec.encode(m.StatusRequest(2))
    socks: list[socket.socket] = []
    start = time.perf_counter()
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(d.socket)  # blocking: waits while the listen backlog is full (with a timeout it fails EAGAIN)
            s.settimeout(60)
            s.sendall(hello)
            socks.append(s)
        served = 0
        for s in socks:
            dec = FrameDecoder(1 << 30)
            got: list[m.Reply] = []
            while len(got) < 2:
                data = s.recv(65536)
                assert data, "a connection was closed"
                got += [codec.decode(b) for b in dec.feed(data)]
            assert isinstance(got[0], m.Welcome) and isinstance(got[1], m.Status), got
            served += 1
        elapsed = time.perf_counter() - start
        latency = probe_latency(d.socket)
        with Client(d.socket) as c:
            reported = c.status().connections
        rss_during = rss_kib(pid)
    finally:
        for s in socks:
            s.close()
    return {
        "connections": n,
        "served": served,
        "reported_by_status": reported,
        "seconds": round(elapsed, 2),
        "probe_latency_ms": round(latency * 1000, 1),
        "rss_before_mib": round(rss_before / 1024, 1),
        "rss_during_mib": round(rss_during / 1024, 1),
    }


def slowloris(d: DaemonProcess, n: int = 200, frame_timeout: float = 1.0) -> Figures:
    """``n`` connections each send half of a large frame and stall; the daemon closes them all."""
    pid = daemon_pid(d)
    rss_before = rss_kib(pid)
    codec = reply_codec()
    half = struct.pack(">I", 1 << 20) + b"x" * (512 << 10)
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(60)
        s.connect(d.socket)
        s.sendall(codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "slow", 0)) + half)
        socks.append(s)
    rss_held = rss_kib(pid)
    latency = probe_latency(d.socket)
    closed = 0
    for s in socks:
        dec = FrameDecoder(1 << 30)
        while True:
            data = s.recv(65536)
            if not data:
                closed += 1
                break
            for body in dec.feed(data):
                msg = codec.decode(body)
                assert isinstance(msg, m.Welcome | m.Error), msg
        s.close()
    with Client(d.socket) as c:
        left = c.status().connections
    return {
        "half_frames": n,
        "closed_by_daemon": closed,
        "connections_left": left - 1,
        "probe_latency_ms": round(latency * 1000, 1),
        "rss_before_mib": round(rss_before / 1024, 1),
        "rss_held_mib": round(rss_held / 1024, 1),
        "rss_after_mib": round(rss_kib(pid) / 1024, 1),
    }


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


_HOLDER = textwrap.dedent(
    """
    import sys, time
    from hookd_client import Client
    c = Client(sys.argv[1])
    c.register_decision("tool.approval.pre", lambda p: {"decision": "deny", "reason": "held"},
                        session="held", timeout=600, on_error="deny")
    print("ready", flush=True)
    time.sleep(3600)
    """
)


def _start_holder(d: DaemonProcess) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, d.socket], env=d.env.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    line = holder.stdout.readline()
    assert line.strip() == "ready", (line, holder.stderr.read() if holder.stderr else "")
    with Client(d.socket, timeout=60) as c:
        served = c.decide(POINT, {}, session="held")
    assert served.decision == "deny" and served.reason == "held", served
    return holder


def killed_holder(d: DaemonProcess, decides: int = 50) -> Figures:
    """SIGKILL a client holding a session with a callback guard while decides wait on it."""
    holder = _start_holder(d)
    os.kill(holder.pid, signal.SIGSTOP)  # so that the decides are surely waiting when it dies

    async def main() -> tuple[list[m.Outcome], float]:
        async with AsyncClient(d.socket) as c:
            calls = [asyncio.ensure_future(c.decide(POINT, {"i": i}, session="held")) for i in range(decides)]
            await asyncio.sleep(0)
            await c.status()  # every decide has been read (and its invoke sent) before this is answered
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


# --------------------------------------------------------------- subscribers


def stalled_subscriber(d: DaemonProcess, events: int = 10_000, size: int = 2048) -> Figures:
    """A subscriber that never reads while another client pipelines emits: the daemon keeps serving,
    memory stays bounded, and the subscriber, once it reads, is told exactly what it missed."""
    pid = daemon_pid(d)
    sub = Raw(d.socket)
    sub.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sub.send(m.Subscribe(2, points=["tool.execute.after"]))
    assert isinstance(sub.recv(), m.Subscribed)
    rss_before = rss_kib(pid)
    blob = "y" * size
    emitter = Raw(d.socket)
    start = time.perf_counter()
    latencies = []
    for base in range(0, events, 1000):
        n = min(1000, events - base)
        emitter.sock.sendall(
            b"".join(emitter.codec.encode(m.Emit(10 + base + i, "tool.execute.after", {"i": base + i, "b": blob})) for i in range(n))
        )
        for _ in range(n):
            assert isinstance(emitter.recv(), m.Accepted)
        latencies.append(probe_latency(d.socket))
    elapsed = time.perf_counter() - start
    emitter.close()
    rss_after = rss_kib(pid)
    # Now read: the stream says what it missed (a gap), or the daemon dropped the stalled reader.
    gaps = 0
    received = 0
    closed = False
    try:
        while received + gaps < events:
            msg = sub.recv()
            if isinstance(msg, m.Gap):
                gaps += msg.missed
            elif isinstance(msg, m.Event):
                received += 1
    except AssertionError:
        closed = True
    sub.close()
    assert d.proc is not None and d.proc.poll() is None
    return {
        "events": events,
        "event_bytes": size,
        "delivered": received,
        "reported_missed": gaps,
        "subscriber_dropped": closed,
        "emit_seconds": round(elapsed, 2),
        "probe_latency_max_ms": round(max(latencies) * 1000, 1),
        "rss_before_mib": round(rss_before / 1024, 1),
        "rss_after_mib": round(rss_after / 1024, 1),
    }


def make_env_for(root: Path) -> Any:
    """A sandboxed environment (home, config, state, runtime dirs) under ``root``."""
    return make_env(root)


def fresh_daemon(root: Path, *extra: str) -> DaemonProcess:
    return DaemonProcess(make_env(root), "--no-user-hooks", *extra).start()
