"""`hookd tail --team` takes the local tail's --decision and --until: the decide events with those
decisions, up to a time or a stream sequence number. A real nats-server, a real daemon exporting to it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from tests.conftest import DaemonProcess, write_script

from .conftest import NatsServer, init_team, make_team_env

HANG_GUARD = 60.0
POINT = "tool.approval.pre"


def _stream(server: NatsServer, stream: str = "HOOKD") -> list[tuple[int, dict[str, Any]]]:
    """Every message of the stream as (stream sequence, event)."""

    async def read() -> list[tuple[int, dict[str, Any]]]:
        import nats

        nc = await nats.connect(server.url)
        try:
            js = nc.jetstream()
            info = await js.stream_info(stream)
            if info.state.messages == 0:
                return []
            out = []
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                msg = await js.get_msg(stream, seq)
                out.append((seq, json.loads(msg.data)))
            return out
        finally:
            await nc.close()

    return asyncio.run(read())


def test_tail_team_filters_by_decision_and_ends_at_until(tmp_path: Path, nats_server: NatsServer) -> None:
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "gina", nats_server)
    guard = write_script(
        tmp_path / "guard.py",
        """
        import json, sys
        command = json.load(sys.stdin).get("args", {}).get("command", "")
        if command.startswith("rm"):
            print(json.dumps({"decision": "deny", "reason": "rm"}))
        elif command.startswith("ls"):
            print(json.dumps({"decision": "allow", "reason": "ls"}))
        """,
    )
    env.write_global_hooks(f"hooks:\n  - name: g\n    point: {POINT}\n    type: decision\n    command: {guard}\n    enabled: true\n")
    daemon = DaemonProcess(env).start()
    try:
        with daemon.client() as c:
            for command in ("ls a", "rm a", "echo a", "rm b", "ls b"):
                c.decide(POINT, {"args": {"command": command}})
        deadline = time.monotonic() + HANG_GUARD
        decides: list[tuple[int, dict[str, Any]]] = []
        while len(decides) < 5 and time.monotonic() < deadline:
            decides = [(seq, ev) for seq, ev in _stream(nats_server) if ev.get("kind") == "decide"]
            time.sleep(0.05)
        assert len(decides) == 5, decides

        def tail(*args: str) -> list[str]:
            r = env.hookd("tail", "--team", "--no-follow", "--json", "--since", "1h", *args)
            assert r.returncode == 0, r.stderr
            return [json.loads(line)["payload"]["args"]["command"] for line in r.stdout.splitlines()]

        assert tail("--decision", "deny") == ["rm a", "rm b"]
        assert tail("--decision", "allow,none") == ["ls a", "echo a", "ls b"]
        third = decides[2][0]  # --until SEQ is the stream's sequence number, as --since SEQ is
        assert tail("--point", POINT, "--until", str(third)) == ["ls a", "rm a", "echo a"]
        assert tail("--until", str(third), "--decision", "deny") == ["rm a"]
        assert tail("--until", "1h") == []  # everything here is younger than an hour
        r = env.hookd("tail", "--team", "--until", "1h", "--follow")
        assert r.returncode == 2 and "--until reads the past" in r.stderr
    finally:
        daemon.stop()
