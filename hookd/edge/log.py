"""structlog set-up: console lines on a terminal, JSON lines otherwise (journald, files).

With a log file (``hookd serve --log-file``) every entry is also appended there
as one JSON line, whatever stderr shows, so a daemon run by hand in a terminal
leaves a log that tools can read afterwards.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from typing import IO, Any

import structlog


def open_file(path: str) -> IO[str]:
    """The log file, appended to, line-buffered; its directory is created. Raises OSError."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    return open(path, "a", encoding="utf-8", buffering=1)  # kept open for the daemon's life


class _ToFile:
    """A processor that appends the entry to the log file as JSON and passes it on unchanged."""

    def __init__(self, file: IO[str]) -> None:
        self.file = file
        self.exc = structlog.processors.format_exc_info

    def __call__(self, logger: Any, name: str, event_dict: Any) -> Any:
        entry = self.exc(logger, name, dict(event_dict))
        with contextlib.suppress(OSError, ValueError):  # a full disk or a closed file must not stop the daemon
            self.file.write(json.dumps(entry, default=str, ensure_ascii=False) + "\n")
        return event_dict


def configure(level: str = "info", json: bool | None = None, file: IO[str] | None = None) -> None:
    use_json = (not sys.stderr.isatty()) if json is None else json
    tail: list[structlog.typing.Processor] = (
        [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
        if use_json
        else [structlog.dev.ConsoleRenderer(colors=True)]
    )
    tee: list[structlog.typing.Processor] = [_ToFile(file)] if file is not None else []
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *tee,
            *tail,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
