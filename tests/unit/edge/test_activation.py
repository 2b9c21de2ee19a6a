"""Socket activation checks on real file descriptors."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from hookd.edge.activation import ActivationError, adopt, listen_fds


def _env(**kw: str) -> dict[str, str]:
    return {"PATH": "/usr/bin", **kw}


def test_not_activated_without_the_variables() -> None:
    assert listen_fds(_env()) == 0


def test_variables_for_this_process_are_counted_and_removed() -> None:
    env = _env(LISTEN_PID=str(os.getpid()), LISTEN_FDS="1", LISTEN_FDNAMES="hookd.socket")
    assert listen_fds(env) == 1
    assert env == _env(), "hook processes must not inherit the activation variables"


def test_variables_meant_for_another_process_are_ignored_and_removed() -> None:
    env = _env(LISTEN_PID=str(os.getpid() + 1), LISTEN_FDS="1")
    assert listen_fds(env) == 0
    assert "LISTEN_FDS" not in env and "LISTEN_PID" not in env


@pytest.mark.parametrize(
    ("pid", "fds", "message"),
    [("abc", "1", "LISTEN_PID='abc'"), ("self", "x", "LISTEN_FDS='x'"), ("self", "-1", "negative")],
)
def test_malformed_variables_are_a_clear_error(pid: str, fds: str, message: str) -> None:
    env = _env(LISTEN_PID=str(os.getpid()) if pid == "self" else pid, LISTEN_FDS=fds)
    with pytest.raises(ActivationError, match=message):
        listen_fds(env)
    assert "LISTEN_FDS" not in env


def test_a_listening_unix_stream_socket_is_adopted_and_never_unlinked(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()
    fd = server.detach()
    os.set_inheritable(fd, True)  # as the manager passes it
    listener = adopt(fd)
    try:
        assert listener.path == path
        assert listener.owned is False
        assert not os.get_inheritable(fd), "hook processes must not inherit the listening socket"
        listener.remove()
        assert os.path.exists(path), "the socket file belongs to the service manager"
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(path)
        client.close()
    finally:
        listener.sock.close()


def test_an_abstract_socket_is_named_with_an_at_sign() -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(b"\0hookd-test-abstract-%d" % os.getpid())
    server.listen()
    listener = adopt(server.detach())
    try:
        assert listener.path == f"@hookd-test-abstract-{os.getpid()}"
    finally:
        listener.sock.close()


def _bad_socket(tmp_path: Path, kind: str) -> socket.socket:
    if kind == "datagram":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(tmp_path / "d.sock"))
    elif kind == "not listening":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(tmp_path / "u.sock"))
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen()
    return sock


@pytest.mark.parametrize(
    ("kind", "message"),
    [("datagram", "SOCK_DGRAM, not SOCK_STREAM"), ("not listening", "not listening"), ("tcp", "AF_INET, not AF_UNIX")],
)
def test_a_socket_hookd_cannot_serve_on_is_a_clear_error(tmp_path: Path, kind: str, message: str) -> None:
    with _bad_socket(tmp_path, kind) as sock, pytest.raises(ActivationError, match=message):
        adopt(sock.fileno())


def test_an_fd_that_is_not_a_socket_is_a_clear_error() -> None:
    r, w = os.pipe()
    try:
        with pytest.raises(ActivationError, match="not an open socket"):
            adopt(r)
    finally:
        os.close(r)
        os.close(w)
