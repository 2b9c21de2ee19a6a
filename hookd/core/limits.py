"""The bounds every connection lives within (docs/protocol.md, "Limits").

Each is a deadline or a byte count the daemon enforces on its own, so that no
peer, by sending too little, too slowly, or by not reading, can hold memory or
file descriptors for good or wedge the requests of others.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

import structlog

log = structlog.get_logger("hookd.edge")


@dataclass(slots=True)
class EdgeLimits:
    hello_timeout: float = 10.0  # seconds from accept to a hello
    frame_timeout: float = 30.0  # seconds a partial frame may take to complete
    # Seconds a greeted connection with nothing in flight, that holds nothing (no session,
    # served hook or subscription), may stay silent. Holders are never closed for silence:
    # an agent keeps its session's connection open between tool calls for hours.
    idle_timeout: float = 900.0
    max_connections: int = 4096  # at once; further connections get a limit_exceeded error and are closed
    max_write_buffer: int = 32 << 20  # bytes queued to a peer that does not read; past it the connection is closed
    # Bytes of requests read but not started (past max_inflight, or while the peer is not
    # reading its replies). Reading stops only past this bound, so invoke results that follow
    # such requests are still read and a connection serving its own callbacks never deadlocks.
    max_pending_bytes: int = 16 << 20
    # Bytes of partial frames held across all connections. Each connection's is bounded by the
    # frame limit, but not their sum: past this bound the connection holding the largest partial
    # frame (the oldest of equals) is closed, so many slow senders cannot make the daemon hold
    # frame limit x connections. At least the frame limit.
    max_held_bytes: int = 64 << 20


# File descriptors kept back from connections for hook processes (three pipes each),
# the journal, watched files and the listener.
FD_RESERVE_PER_HOOK = 4
FD_RESERVE = 64


def raise_fd_limit() -> int:
    """Lift the soft limit on open files to the hard one (often 1024 soft on a desktop); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= hard:
        return hard if soft == resource.RLIM_INFINITY else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as exc:
        log.warning("could not raise the open-file limit", soft=soft, hard=hard, error=str(exc))
        return soft
    return hard


def connection_cap(limits: EdgeLimits, max_hook_processes: int) -> int:
    """The most connections served at once: the configured cap, lowered to what the open-file limit allows."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.max_connections
    room = soft - FD_RESERVE - FD_RESERVE_PER_HOOK * max_hook_processes
    return max(1, min(limits.max_connections, room))
