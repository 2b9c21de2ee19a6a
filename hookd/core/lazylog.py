"""A named structlog logger that imports structlog with its first log line.

For modules that the short commands import (`hookd check`, `hookd tail`) but that log only on the daemon's
paths: structlog brings asyncio with it, which was a quarter of such a command's start.
"""

from __future__ import annotations

from typing import Any


class LazyLogger:
    __slots__ = ("_log", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._log: Any = None

    def __getattr__(self, method: str) -> Any:
        if self._log is None:
            import structlog

            self._log = structlog.get_logger(self._name)
        return getattr(self._log, method)
