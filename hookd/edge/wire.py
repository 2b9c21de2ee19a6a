"""What the connection edge needs from the socket and the codec besides its fast path.

The peer's credentials, the hello, invoke results (answers to the daemon's own invokes, which
get no reply), the last read of a connection a stopping daemon closes, and the
error that replaces a reply that cannot be encoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
from typing import Any

import msgspec
from hookd_client import messages as m
from hookd_client.framing import BadMessage, Codec, FrameTooLarge, peek_fields

from hookd.core import intake

_PEERCRED = struct.Struct("3i")


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
    pid, uid, gid = _PEERCRED.unpack(raw)
    return pid, uid, gid


def refused(conn: Any, transport: Any, log: Any) -> bool:
    """Whether a new connection is turned away: a peer of another user (dropped), or one past the
    hub's cap on open connections (told why, then closed). Binds the peer's pid to ``conn``'s log."""
    try:
        pid, uid, _ = peer_credentials(transport.get_extra_info("socket"))
    except OSError:
        pid, uid = 0, os.getuid()
    conn.peer = pid
    conn.log = log.bind(peer_pid=pid)
    if uid != os.getuid():
        conn.log.warning("refused a peer of another user", peer_uid=uid)
        transport.abort()
        return True
    hub = conn.hub
    if hub is not None and not hub.admit(conn):
        conn.log.warning("refused a connection: too many open", cap=hub.cap)
        message = f"hookd serves at most {hub.cap} connections at once; this one is refused (close idle clients)"
        out = bytearray()
        conn.codec.encode_into(m.Error(0, m.ErrorCode.LIMIT, message), out)
        transport.write(bytes(out))
        transport.close()
        return True
    return False


def hello(conn: Any, request: m.Request) -> m.Reply:
    """The reply to a connection's first request, which must be a hello in this daemon's protocol."""
    rid = getattr(request, "id", 0)
    if not isinstance(request, m.Hello):
        return m.Error(rid, m.ErrorCode.HELLO_REQUIRED, "the first request on a connection must be hello")
    if request.protocol != m.PROTOCOL_VERSION:
        conn.log.warning("protocol version mismatch", client=request.client, protocol=request.protocol)
        reply = m.Error(
            rid,
            m.ErrorCode.VERSION_MISMATCH,
            f"this daemon speaks protocol {m.PROTOCOL_VERSION}, the client {request.client!r} "
            f"speaks {request.protocol}; upgrade the older side",
        )
        asyncio.get_running_loop().call_soon(conn.close)
        return reply
    conn.greeted = True
    conn._disarm()
    conn.client = request.client
    conn.log = conn.log.bind(client=request.client)
    return conn.daemon.welcome(rid)


def is_invoke_result(body: bytes) -> bool:
    """Whether a body not decoded yet is an invoke result (those never wait behind requests)."""
    try:
        return peek_fields(body, ("type",)).get("type") == "invoke_result"
    except (IndexError, ValueError, UnicodeDecodeError):
        return False


def bad_invoke_result(conn: Any, exc: BadMessage) -> None:
    """An answer the daemon cannot read: the invocation it names fails now, as a hook error
    saying why, instead of waiting out its timeout."""
    if exc.call is None or not conn.daemon.invocations.fail(conn, exc.call, f"invalid invoke_result: {exc}"):
        conn.log.warning("dropped an invalid invoke_result", call=exc.call, error=str(exc))


def invoke_result(conn: Any, result: m.InvokeResult) -> None:
    decision = result.decision
    if decision is not None:
        try:
            intake.check(decision, "invoke_result.decision")
        except intake.Unfit as exc:
            conn.daemon.invocations.fail(conn, result.call, f"invalid invoke_result: {exc}")
            return
    conn.daemon.invoke_result(conn, result)


def encode_degraded(codec: Codec, reply: m.Reply, out: bytearray, rid: int | None, log: Any) -> None:
    """``reply`` could not be encoded: append the error that takes its place, naming what could not be."""
    rid = getattr(reply, "id", 0) if rid is None else rid
    what = f"the {type(reply).__name__.lower()} reply to request {rid}"
    problem = codec.encode_or_none(reply, bytearray()) or "it cannot be encoded"
    try:
        intake.check(_plain(reply), what)
    except intake.Unfit as exc:
        problem = str(exc)
    else:
        problem = f"{what}: {problem}"
    log.error("reply could not be encoded", request=rid, problem=problem)
    codec.encode_into(m.Error(rid, m.ErrorCode.INTERNAL, f"the reply could not be sent: {problem}"), out)


def wind_up(conn: Any) -> int:
    """Answer every request of ``conn`` not answered yet (a stop's drain is over): those in
    flight, those waiting, and those still unread in its socket; how many."""
    out = bytearray()
    count = 0
    for task, rid in list(conn.inflight.items()):
        del conn.inflight[task]
        conn.encode(unfinished(rid), out, rid)
        count += 1
    rest = last_read(conn.transport)
    if rest and conn._ending is None:  # past an oversized frame, what follows is not frames
        try:
            bodies = conn.decoder.feed(rest)
        except FrameTooLarge as exc:
            bodies = exc.complete
        conn.pending.extend(bodies)
    while conn.pending:
        conn._request(conn.pending.popleft(), out)  # the daemon is closing: shutting_down (hello, results: as usual)
        count += 1
    conn.pending_bytes = 0
    if conn._ending is not None:
        conn.encode(conn._ending, out)
        conn._ending = None
    if out:
        conn._write(out)
    return count


def last_read(transport: asyncio.Transport | None) -> bytes:
    """What the peer sent that was not read yet, with the receiving side shut first.

    After ``shutdown(SHUT_RD)`` of a Unix stream socket, a peer's further writes fail
    at once (EPIPE, so a client knows its request never left), and what was already
    sent stays readable. Reading that to its end, then answering it, leaves no
    request the peer thinks was sent without a reply when the connection closes.
    """
    if transport is None:
        return b""
    raw = transport.get_extra_info("socket")
    try:
        fd = raw.fileno() if raw is not None else -1
    except (OSError, ValueError):
        return b""
    if fd < 0:
        return b""
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return b""
    chunks: list[bytes] = []
    try:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RD)
        sock.setblocking(False)  # already so (the loop's), shared by both descriptors
        while True:
            try:
                data = sock.recv(1 << 16)
            except OSError:  # nothing more (EAGAIN), or the peer is gone
                break
            if not data:
                break
            chunks.append(data)
    finally:
        sock.close()
    return b"".join(chunks)


def unfinished(rid: int) -> m.Error:
    return m.Error(rid, m.ErrorCode.SHUTTING_DOWN, "the daemon stopped before this request finished; it was not completed")


def _plain(reply: m.Reply) -> Any:
    """The reply as plain values, for intake.check to say where a problem is."""
    try:
        return msgspec.to_builtins(reply)
    except Exception:
        return reply
