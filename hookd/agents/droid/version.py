"""Which Factory Droid the user runs, and whether the bridge supports it.

The bridge was built and checked (tests/e2e/droid) against Droid 0.225.2: hooks read from the ``hooks``
key of settings.json in Claude Code's format, its PreToolUse input with the shell tool ``Execute``
(``{summary, command}``), and a deny by ``permissionDecision`` or exit code 2. An older Droid may read its
hooks from elsewhere or with another contract, so doctor names it with what may not work. ``droid
--version`` prints the version alone (``0.225.2``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import NamedTuple

MIN_VERSION = (0, 225, 2)
CLI_NAME = "droid"
OLDER = (
    "its hooks may not be read from settings.json's `hooks` key in Claude Code's format, nor its shell tool be "
    "`Execute` with `command`: tool calls may not reach hookd, or reach it unnamed"
)
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class Found(NamedTuple):
    cli: str | None  # None: no CLI found
    version: tuple[int, int, int] | None  # None: unknown
    why: str = ""

    @property
    def supported(self) -> bool | None:
        """True at or above MIN_VERSION, False below it, None when the version is unknown."""
        return None if self.version is None else self.version >= MIN_VERSION

    def describe(self) -> str:
        if self.version is None:
            return f"the Factory Droid version is unknown ({self.why})"
        return f"Factory Droid {'.'.join(map(str, self.version))} ({self.cli})"


def parse(text: str) -> tuple[int, int, int] | None:
    m = _VERSION.search(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def detect(explicit: str | None = None, environ: dict[str, str] | None = None) -> Found:
    """Ask the CLI its version. Never raises: what went wrong is in ``why``."""
    env = os.environ if environ is None else environ
    cli = shutil.which(explicit or CLI_NAME, path=env.get("PATH", os.defpath))
    if cli is None:
        return Found(None, None, f"{explicit!r} is not an executable" if explicit else f"no `{CLI_NAME}` on PATH")
    try:
        done = subprocess.run([cli, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Found(cli, None, f"`{cli} --version` failed: {exc}")
    version = parse(done.stdout) if done.returncode == 0 else None
    if version is None:
        said = (done.stdout or done.stderr).strip()[:200]
        return Found(cli, None, f"`{cli} --version` exited {done.returncode} saying {said!r}")
    return Found(cli, version)


def problem(found: Found) -> str | None:
    """What doctor says about ``found``: None when it is supported or unknown (no Droid to ask)."""
    if found.supported is not False:
        return None
    since = ".".join(map(str, MIN_VERSION))
    return f"{found.describe()} is older than {since}, the oldest the bridge supports: {OLDER}"
