"""Which version of an agent's CLI the user runs, asked of the CLI itself (``NAME --version``).

For the bridges whose agents changed their hook contract between releases: each names the first release
it supports, and ``hookd doctor`` names an older one with what will not work with it. Never raises: a
CLI that cannot be found or asked gives an unknown version and why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import NamedTuple

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class Found(NamedTuple):
    cli: str | None  # the CLI that was asked; None: none was found
    version: tuple[int, int, int] | None  # None: unknown
    why: str = ""  # why the version is unknown

    def text(self) -> str:
        return ".".join(map(str, self.version)) if self.version else "unknown"

    def older_than(self, minimum: tuple[int, int, int]) -> bool:
        """Known, and older than ``minimum`` (an unknown version is not called older)."""
        return self.version is not None and self.version < minimum


def parse(text: str) -> tuple[int, int, int] | None:
    """The first ``X.Y.Z`` in a ``--version`` output (``GitHub Copilot CLI 1.0.102.``, ``3.0.65``)."""
    m = _VERSION.search(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def detect(name: str, environ: dict[str, str] | None = None, timeout: float = 30) -> Found:
    """Ask ``name`` (a command on PATH, or a path) its version."""
    env = os.environ if environ is None else environ
    cli = shutil.which(name, path=env.get("PATH", os.defpath))
    if cli is None:
        return Found(None, None, f"no `{name}` on PATH")
    try:
        done = subprocess.run([cli, "--version"], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Found(cli, None, f"`{cli} --version` failed: {exc}")
    version = parse(done.stdout) if done.returncode == 0 else None
    if version is None:
        said = (done.stdout or done.stderr).strip()[:200]
        return Found(cli, None, f"`{cli} --version` exited {done.returncode} saying {said!r}")
    return Found(cli, version)
