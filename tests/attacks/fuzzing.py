"""100k fuzzed frames against a real daemon: every well-formed request answered once, nothing crashes."""

from __future__ import annotations

import random
import socket
import threading
import time
from collections import Counter
from typing import Any

import msgspec
from hookd_client import messages as m
from hookd_client.framing import request_codec

from .common import POINT, DaemonProcess, Figures, Raw, daemon_pid, frame_of, rss_kib

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
            chunks.append(frame_of(body))
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
