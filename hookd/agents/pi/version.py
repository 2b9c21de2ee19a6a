"""Which pi the user runs, and what hookd's extension needs of it.

The extension relies on pi's extension API as 0.65.0 and later have it: ``session_start`` fired with a reason for
every session (``startup``, ``new``, ``resume``, ``fork``; before 0.65.0 a switched session came as
``session_switch`` / ``session_fork``, which the extension does not handle, so the new session is never attached),
``session_shutdown`` fired in print and JSON modes (0.63.0; before it a ``pi -p`` run never disposes its session),
and a ``tool_call`` handler's changes to ``event.input`` applied to the tool (documented since 0.63.1; a guard's
rewrite depends on it). ``pi --version`` prints the version on stderr. The end-to-end suite runs 0.73.1.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

MIN_VERSION = (0, 65, 0)
CLI_NAME = "pi"
# What does not work with a pi older than MIN_VERSION, for `hookd doctor`.
OLDER = (
    "a session switched with /new, /resume or /fork is never attached to hookd (its session hooks do not run), "
    "a `pi -p` run before 0.63.0 never disposes its session, and a guard's rewrite of a tool call is not "
    "guaranteed before 0.63.1"
)
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class Found(NamedTuple):
    cli: str | None  # the CLI that was asked; None: none was found
    version: tuple[int, int, int] | None  # None: unknown
    why: str = ""  # why the version is unknown

    @property
    def supported(self) -> bool:
        return self.version is not None and self.version >= MIN_VERSION

    def describe(self) -> str:
        if self.version is None:
            return f"the pi version is unknown ({self.why})"
        return f"pi {'.'.join(map(str, self.version))} ({self.cli})"

    def package_index(self) -> Path | None:
        """pi's package entry (dist/index.js beside the CLI's dist/cli.js), whose loader loads extensions as pi does."""
        if self.cli is None:
            return None
        index = Path(os.path.realpath(self.cli)).with_name("index.js")
        return index if index.is_file() else None


def parse(text: str) -> tuple[int, int, int] | None:
    m = _VERSION.search(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def find_cli(explicit: str | None = None, environ: dict[str, str] | None = None) -> str | None:
    env = os.environ if environ is None else environ
    return shutil.which(explicit or CLI_NAME, path=env.get("PATH", os.defpath))


def detect(explicit: str | None = None, environ: dict[str, str] | None = None) -> Found:
    """Ask the CLI its version. Never raises: what went wrong is in ``why``."""
    cli = find_cli(explicit, environ)
    if cli is None:
        return Found(None, None, f"{explicit!r} is not an executable" if explicit else f"no `{CLI_NAME}` on PATH")
    env = dict(os.environ if environ is None else environ)
    env["PI_OFFLINE"] = "1"  # no update check
    try:
        done = subprocess.run(
            [cli, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Found(cli, None, f"`{cli} --version` failed: {exc}")
    said = f"{done.stdout}\n{done.stderr}"  # pi prints its version on stderr
    version = parse(said) if done.returncode == 0 else None
    if version is None:
        return Found(cli, None, f"`{cli} --version` exited {done.returncode} saying {said.strip()[:200]!r}")
    return Found(cli, version)
