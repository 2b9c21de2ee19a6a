"""Attacks from other users and on connections: another uid, 2,000 connections, slowloris."""

from __future__ import annotations

import os
import resource
import socket
import struct
import time

from hookd_client import Client
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec, request_codec

from .common import DaemonProcess, Figures, daemon_pid, probe_latency, rss_kib

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
