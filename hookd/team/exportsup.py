"""The daemon's side of an export: starts the exporter's process, reads what it reports, restarts it.

Two exporters run this way: the NATS export (exportproc.py) and the OpenTelemetry
one (otelproc.py); both read the journal by themselves.

The exporter runs in its own process (exportproc.py): the daemon's loop only
reads a status line now and then and relays the exporter's events to the bus,
so a decide never waits for a publish, an acknowledgement or a journal read.
The lag in ``hookd status`` is the daemon's newest seq less the seq the server
acknowledged, as the exporter last reported it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from typing import Any

import structlog
from hookd_client import messages as m

from hookd.team.exportproc import settings_to_json
from hookd.team.settings import TeamSettings

log = structlog.get_logger("hookd.team")

RESTART_FIRST = 0.5
RESTART_MAX = 30.0
STOP_GRACE = 5.0  # seconds the exporter has to record and close once told to stop
LINE_MAX = 1 << 20  # a status or event line; longer is the exporter's bug, and ends it


class ExportSupervisor:
    def __init__(
        self,
        settings: TeamSettings,
        journal_path: str,
        state_dir: str,
        newest: Callable[[], int],
        publish: Callable[[str, dict[str, Any]], None],
        what: str = "export",
    ) -> None:
        self.what = what  # "export" (NATS, exportproc.py) or "otel" (OpenTelemetry, otelproc.py)
        self.module = f"hookd.team.{what}proc"
        self.settings = settings
        self.journal_path = journal_path
        self.state_dir = state_dir
        self.newest = newest
        self.publish = publish
        self.status: dict[str, Any] = {"state": "connecting", "identity": "", "acked": 0, "published": 0, "missed": 0, "error": ""}
        self.proc: asyncio.subprocess.Process | None = None
        self.exits = 0
        self._stopping = False
        self._reaper: asyncio.Future[None] | None = None

    def info(self) -> m.ExportInfo:
        s = self.status
        acked = int(s.get("acked") or 0)
        return m.ExportInfo(
            state=str(s.get("state") or "connecting"),
            stream=self.settings.stream,
            identity=str(s.get("identity") or ""),
            acked=acked,
            lag=max(0, self.newest() - acked),
            published=int(s.get("published") or 0),
            missed=int(s.get("missed") or 0),
            error=str(s.get("error") or ""),
        )

    async def run(self) -> None:
        pause = RESTART_FIRST
        while not self._stopping:
            code = await self._run_once()
            if self._stopping:
                return
            self.exits += 1
            why = f"the exporter's process exited with {code}; starting it again"
            self.status.update(state="failing", error=why)
            log.error("exporter process ended", what=self.what, code=code, restart_in=pause)
            data = {"acked": self.status.get("acked", 0), "error": why}
            if self.what == "export":
                data["stream"] = self.settings.stream
            self.publish(f"hookd.{self.what}.failing", data)
            await asyncio.sleep(pause)
            pause = min(RESTART_MAX, pause * 2)

    async def _run_once(self) -> int | None:
        proc = self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            self.module,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=LINE_MAX,
        )
        assert proc.stdin is not None and proc.stdout is not None
        config = {
            "settings": settings_to_json(self.settings),
            "journal": self.journal_path,
            "state_dir": self.state_dir,
            "newest": self.newest(),
        }
        try:
            proc.stdin.write(json.dumps(config).encode() + b"\n")
            await proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it died at once: its exit code says more
        try:
            while line := await proc.stdout.readline():
                self._got(line)
        except (ValueError, asyncio.LimitOverrunError) as exc:
            log.error("export process wrote an unreadable line; stopping it", error=str(exc))
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        return await proc.wait()

    def _got(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            log.warning("export process said something unreadable", line=line[:200])
            return
        if not isinstance(msg, dict):
            return
        kind = msg.get("t")
        if kind == "status":
            self.status.update({k: v for k, v in msg.items() if k != "t"})
        elif kind == "event" and isinstance(msg.get("point"), str) and isinstance(msg.get("data"), dict):
            self.publish(msg["point"], msg["data"])
        elif kind == "log" and isinstance(msg.get("entry"), dict):
            entry = dict(msg["entry"])
            event = str(entry.pop("event", "export"))
            level = msg.get("level") if msg.get("level") in ("debug", "info", "warning", "error", "critical") else "info"
            if level == "critical":
                level = "error"
            getattr(log, str(level))(event, **{k: v for k, v in entry.items() if k not in ("level", "timestamp")})

    def stop(self) -> None:
        """Tell the exporter to record what the server has and exit: its stdin ends."""
        self._stopping = True
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop()
            self._reaper = asyncio.ensure_future(_reap(proc))


async def _reap(proc: asyncio.subprocess.Process) -> None:
    try:
        async with asyncio.timeout(STOP_GRACE):
            await proc.wait()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
