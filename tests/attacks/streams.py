"""A stalled subscriber: bounded memory, and told exactly what it missed."""

from __future__ import annotations

import socket
import time

from hookd_client import messages as m

from .common import DaemonProcess, Figures, Raw, daemon_pid, probe_latency, rss_kib

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
