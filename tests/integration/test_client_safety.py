"""The client talks only to this user's hookd: a planted directory, socket or listener is refused before
anything is sent, and `hookd decide` fails with the reason instead of printing an impostor's allow."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hookd_client import AsyncClient, Client, DaemonNotTrusted

from ..conftest import HOOKD

POINT = "tool.approval.pre"
NOBODY = 65534
IMPOSTOR = Path(__file__).with_name("impostor.py")

needs_root = pytest.mark.skipif(os.getuid() != 0, reason="plays another user: needs root to chown and setuid")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A temporary directory another uid can reach (tmp_path's parents are 0700)."""
    base = Path(tempfile.mkdtemp(prefix="hookd-impostor-"))
    base.chmod(0o711)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def impostor() -> Iterator:  # type: ignore[type-arg]
    procs: list[subprocess.Popen[str]] = []

    def start(path: Path, when: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, str(IMPOSTOR), str(path), str(NOBODY), when], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def refused_everywhere(path: Path, env: dict[str, str], expect: str) -> None:
    with pytest.raises(DaemonNotTrusted) as caught:
        Client(str(path))
    assert expect in caught.value.message and caught.value.code == "untrusted_daemon"

    async def via_async() -> None:
        with pytest.raises(DaemonNotTrusted, match=re.escape(expect)):
            await AsyncClient(str(path), reconnect=0).connect()
        with pytest.raises(DaemonNotTrusted, match=re.escape(expect)):
            await AsyncClient(str(path)).subscribe(["*"]).open()

    asyncio.run(via_async())
    with pytest.raises(DaemonNotTrusted, match=re.escape(expect)):
        Client(str(path), connect=False).subscribe(["*"]).open()
    cli = subprocess.run(
        [*HOOKD, "decide", POINT, "--payload", "{}"],
        env={**env, "HOOKD_SOCKET": str(path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode != 0
    assert expect in cli.stderr and "impostor says yes" not in cli.stdout + cli.stderr and "allow" not in cli.stdout


@needs_root
def test_a_socket_directory_owned_by_another_user_is_refused(shared, impostor, env):  # type: ignore[no-untyped-def]
    run = shared / "hookd-0"
    run.mkdir(mode=0o755)
    os.chown(run, NOBODY, NOBODY)
    impostor(run / "hookd.sock", "before")
    refused_everywhere(run / "hookd.sock", env.env, f"{run} is owned by uid {NOBODY}, not you (uid 0)")


@needs_root
def test_a_listener_running_as_another_user_is_refused(shared, impostor, env):  # type: ignore[no-untyped-def]
    # Directory and socket file are root's; only the listening process's uid gives it away.
    run = shared / "ours"
    run.mkdir(mode=0o755)
    impostor(run / "hookd.sock", "after")
    refused_everywhere(run / "hookd.sock", env.env, f"runs as uid {NOBODY}, not as you (uid 0)")


def test_a_planted_symlink_or_a_writable_directory_is_refused(daemon, env, tmp_path):  # type: ignore[no-untyped-def]
    sock = Path(daemon.socket)
    link = tmp_path / "planted"
    link.symlink_to(sock.parent)
    refused_everywhere(link / sock.name, env.env, f"{link} is a symbolic link (to {sock.parent})")
    sock.parent.chmod(0o777)
    try:
        refused_everywhere(sock, env.env, f"{sock.parent} is writable by group and others (mode 777)")
    finally:
        sock.parent.chmod(0o700)
    with Client(str(sock)) as c:  # the same daemon, reached the honest way
        assert c.status().pid == daemon.proc.pid


@needs_root
def test_a_socket_file_owned_by_another_user_is_refused(daemon, env):  # type: ignore[no-untyped-def]
    sock = Path(daemon.socket)
    os.chown(sock, NOBODY, NOBODY)
    try:
        refused_everywhere(sock, env.env, f"{sock} is owned by uid {NOBODY}, not you (uid 0)")
    finally:
        os.chown(sock, 0, 0)
    with Client(str(sock)) as c:
        assert c.decide(POINT, {}).decision is None
