"""Which Claude Code the user runs, and whether it honours what ``--fail-closed`` writes.

``--fail-closed`` writes ``"onFailure": "block"`` on the PreToolUse HTTP hook, so that Claude Code blocks
the tool call when hookd cannot answer. Claude Code before ON_FAILURE_SINCE ignores that key: with the
daemon down, the tool runs. Those versions are still what npm installs on Node 20 (2.1.197 is the last
release that accepts Node 18 and 20), so install asks the CLI its version (``claude --version`` prints
``2.1.332 (Claude Code)``) and, for an older one, or when no CLI can be found, puts PreToolUse on the
shim with ``--fail-closed`` instead: a command hook that denies by itself when hookd does not answer.

Found by running releases between 2.1.197 and 2.1.332 offline (bisected) against a PreToolUse HTTP hook on a
closed port with ``onFailure: "block"``: 2.1.294 and older ran the command; 2.1.295 blocked it, as did every
later release tried (2.1.296, 2.1.299, 2.1.310, 2.1.332). tests/e2e/claude runs both sides of the line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import NamedTuple

# The first Claude Code that blocks a tool call when its PreToolUse HTTP hook with onFailure: block fails.
ON_FAILURE_SINCE = (2, 1, 295)
CLI_NAME = "claude"
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class Found(NamedTuple):
    cli: str | None  # the CLI that was asked; None: none was found
    version: tuple[int, int, int] | None  # None: unknown (no CLI, or it did not say)
    why: str = ""  # why the version is unknown

    @property
    def honours_on_failure(self) -> bool:
        """Whether ``onFailure: "block"`` stops a tool call; an unknown version is assumed not to."""
        return self.version is not None and self.version >= ON_FAILURE_SINCE

    def describe(self) -> str:
        if self.version is None:
            return f"the Claude Code version is unknown ({self.why})"
        return f"Claude Code {'.'.join(map(str, self.version))} ({self.cli})"


def parse(text: str) -> tuple[int, int, int] | None:
    """The version in ``claude --version``'s output (``2.1.332 (Claude Code)``)."""
    m = _VERSION.search(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def find_cli(explicit: str | None = None, environ: dict[str, str] | None = None) -> str | None:
    """The Claude Code CLI: ``explicit`` (a path or a name on PATH), else ``claude`` on PATH."""
    env = os.environ if environ is None else environ
    return shutil.which(explicit or CLI_NAME, path=env.get("PATH", os.defpath))


def detect(explicit: str | None = None, environ: dict[str, str] | None = None) -> Found:
    """Ask the CLI its version. Never raises: what went wrong is in ``why``."""
    cli = find_cli(explicit, environ)
    if cli is None:
        where = f"{explicit!r} is not an executable" if explicit else f"no `{CLI_NAME}` on PATH"
        return Found(None, None, where)
    try:
        done = subprocess.run([cli, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Found(cli, None, f"`{cli} --version` failed: {exc}")
    version = parse(done.stdout) if done.returncode == 0 else None
    if version is None:
        said = (done.stdout or done.stderr).strip()[:200]
        return Found(cli, None, f"`{cli} --version` exited {done.returncode} saying {said!r}")
    return Found(cli, version)
