"""A real nats-server (JetStream on, its store in the test's temp dir, on 127.0.0.1 and a free port)
and daemons whose team settings point at it."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Env, make_env


def nats_server_binary() -> str | None:
    beside = Path(sys.executable).parent / "nats-server"
    return str(beside) if beside.exists() else shutil.which("nats-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NatsServer:
    def __init__(self, root: Path, token: str | None = None) -> None:
        binary = nats_server_binary()
        if binary is None:
            pytest.skip("nats-server is not installed (the dev dependencies bring it)")
        self.binary = binary
        self.root = root
        self.store = root / "jetstream"
        self.port = free_port()
        self.token = token
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> NatsServer:
        self.starts += 1
        log = open(self.root / f"nats-{self.starts}.log", "wb")  # noqa: SIM115 - handed to the child
        # Every acknowledged message on disk before its acknowledgement: the server is killed in tests.
        conf = [f"listen: 127.0.0.1:{self.port}", f'jetstream {{ store_dir: "{self.store}", sync_interval: always }}']
        if self.token:
            conf.append(f'authorization {{ token: "{self.token}" }}')
        config = self.root / "nats.conf"
        config.write_text("\n".join(conf) + "\n")
        self.proc = subprocess.Popen([self.binary, "-c", str(config)], stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nats-server exited with {self.proc.returncode}: {self.log()}")
            if "Server is ready" in self.log():
                return self
            time.sleep(0.02)
        raise TimeoutError(f"nats-server not ready: {self.log()}")

    def log(self) -> str:
        return (self.root / f"nats-{self.starts}.log").read_text(errors="replace")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> None:
        self.kill()
        self.start()


@pytest.fixture
def nats_server(tmp_path: Path) -> Iterator[NatsServer]:
    root = tmp_path / "nats"
    root.mkdir()
    server = NatsServer(root).start()
    yield server
    server.kill()


def write_team_settings(env: Env, server: NatsServer, extra: str = "", **export: Any) -> Path:
    path = env.config / "hookd" / "team.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'servers = ["{server.url}"]', 'host = "box.example"', f'user = "{env.root.name}"', extra, "[export]"]
    lines += [f"{k} = {v!r}".replace("'", '"').replace("True", "true").replace("False", "false") for k, v in export.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def admin_settings(server: NatsServer, root: Path) -> Any:
    from hookd.team import settings

    path = root / "admin-team.toml"
    path.write_text(f'servers = ["{server.url}"]\n')
    s = settings.load(str(path))
    assert s is not None
    return s


def init_team(server: NatsServer, root: Path) -> Any:
    from hookd.team import admin

    s = admin_settings(server, root)
    asyncio.run(admin.init(s))
    return s


def make_team_env(tmp_path: Path, name: str, server: NatsServer) -> Env:
    e = make_env(tmp_path / name)
    write_team_settings(e, server)
    return e


def stream_messages(server: NatsServer, stream: str = "HOOKD") -> list[Any]:
    """Every message the stream holds, in stream order: (subject, headers, JSON body)."""
    import json

    async def read() -> list[Any]:
        import nats

        nc = await nats.connect(server.url)
        try:
            js = nc.jetstream()
            info = await js.stream_info(stream)
            out = []
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                if info.state.messages == 0:
                    break
                msg = await js.get_msg(stream, seq)
                out.append((msg.subject, dict(msg.headers or {}), json.loads(msg.data)))
            return out
        finally:
            await nc.close()

    return asyncio.run(read())


GUARD_SCRIPT = """\
import json, sys
payload = json.load(sys.stdin)
pattern = sys.argv[1]
if pattern in json.dumps(payload):
    print(json.dumps({"decision": "deny", "reason": f"organisation guard: no {pattern}"}))
"""


def deny_guard(root: Path, pattern: str = "rm -rf", name: str = "no-rm-rf", point: str = "tool.execute.before") -> str:
    """A guards document (hooks.yaml format) with one command hook that denies calls whose payload holds ``pattern``."""
    script = root / "guard.py"
    script.write_text(GUARD_SCRIPT)
    return textwrap.dedent(
        f"""\
        hooks:
          - name: {name}
            point: {point}
            type: decision
            enabled: true
            command: {sys.executable}
            args: [{str(script)!r}, {pattern!r}]
            on_error: deny
        """
    )
