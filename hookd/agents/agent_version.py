"""Which version of an agent's CLI the user runs, asked of the CLI itself (``NAME --version``), or read from the npm
package whose JavaScript the CLI is.

For the bridges whose agents changed their hook contract between releases: the agent's row
(:class:`hookd.agents.registry.Version`) names the command that prints the version, the first release
the bridge supports and what does not work before it; install and ``hookd doctor`` read them here. One
reader for every agent. Never raises: a CLI that cannot be found or asked gives an unknown version and why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from hookd.agents.registry import Agent

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
# How many folders above the CLI's file its package.json may be (pi's is dist/cli.js, some are bin/x/y).
_PACKAGE_DEPTH = 4


class Found(NamedTuple):
    cli: str | None  # the CLI that was asked; None: none was found
    version: tuple[int, int, int] | None  # None: unknown
    why: str = ""  # why the version is unknown
    title: str = ""  # the agent, as describe() names it

    def text(self) -> str:
        return ".".join(map(str, self.version)) if self.version else "unknown"

    def older_than(self, minimum: tuple[int, int, int]) -> bool:
        """Known, and older than ``minimum`` (an unknown version is not called older)."""
        return self.version is not None and self.version < minimum

    def at_least(self, minimum: tuple[int, int, int]) -> bool:
        """Known, and ``minimum`` or later (an unknown version is not assumed to be)."""
        return self.version is not None and self.version >= minimum

    def describe(self) -> str:
        if self.version is None:
            return f"the {self.title} version is unknown ({self.why})"
        return f"{self.title} {self.text()} ({self.cli})"


def parse(text: str) -> tuple[int, int, int] | None:
    """The first ``X.Y.Z`` in a ``--version`` output (``GitHub Copilot CLI 1.0.102.``, ``2.1.332 (Claude Code)``)."""
    m = _VERSION.search(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def find_cli(name: str, environ: dict[str, str] | None = None) -> str | None:
    """``name`` as a path to an executable, or a command on PATH."""
    env = os.environ if environ is None else environ
    return shutil.which(name, path=env.get("PATH", os.defpath))


def packaged_version(cli: str) -> tuple[int, int, int] | None:
    """The version of the npm package whose ``bin`` is the file behind ``cli``, read from its package.json;
    None when no package names that file (a wrapper script, a native install): then the CLI is asked.

    Reading it spares a start of the agent's whole CLI (a second of CPU for pi) on every install and doctor."""
    target = os.path.realpath(cli)
    folder = os.path.dirname(target)
    for _ in range(_PACKAGE_DEPTH):
        try:
            with open(os.path.join(folder, "package.json"), encoding="utf-8") as f:
                package = json.load(f)
        except FileNotFoundError:
            package = None
        except (OSError, ValueError):
            return None
        if isinstance(package, dict) and "name" in package:  # the package's root: its bin names the CLI, or not
            bins = package.get("bin")
            named = [bins] if isinstance(bins, str) else list(bins.values()) if isinstance(bins, dict) else []
            if any(isinstance(b, str) and os.path.realpath(os.path.join(folder, b)) == target for b in named):
                return parse(str(package.get("version", "")))
            return None
        folder = os.path.dirname(folder)
    return None


def detect(
    name: str,
    environ: dict[str, str] | None = None,
    timeout: float = 30,
    *,
    explicit: str | None = None,
    title: str = "",
    extra_env: dict[str, str] | None = None,
    on_stderr: bool = False,
    packaged: bool = False,
) -> Found:
    """Ask ``explicit`` (a path or a command), else ``name`` on PATH, its version; ``on_stderr``: the CLI prints it there;
    ``packaged``: the CLI prints its npm package's version, read from the package without starting the CLI."""
    cli = find_cli(explicit or name, environ)
    if cli is None:
        return Found(None, None, f"{explicit!r} is not an executable" if explicit else f"no `{name}` on PATH", title)
    if packaged and (version := packaged_version(cli)) is not None:
        return Found(cli, version, "", title)
    env = None if extra_env is None else {**(os.environ if environ is None else environ), **extra_env}
    try:
        done = subprocess.run(
            [cli, "--version"], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Found(cli, None, f"`{cli} --version` failed: {exc}", title)
    said = f"{done.stdout}\n{done.stderr}" if on_stderr else done.stdout
    version = parse(said) if done.returncode == 0 else None
    if version is None:
        said = said.strip() if on_stderr else (done.stdout or done.stderr).strip()
        return Found(cli, None, f"`{cli} --version` exited {done.returncode} saying {said[:200]!r}", title)
    return Found(cli, version, "", title)


def of(row: Agent, explicit: str | None = None, environ: dict[str, str] | None = None) -> Found:
    """The version of the agent ``row`` names (its ``version``), asked of ``explicit`` or its command on PATH."""
    v = row.version
    if v is None:
        raise ValueError(f"the {row.title} row names no version command")
    return detect(
        v.cli, environ, explicit=explicit, title=row.title, extra_env=dict(v.env) or None, on_stderr=v.on_stderr, packaged=v.packaged
    )


def minimum(row: Agent) -> str:
    """The row's minimum as the user reads it (``0.225.2``)."""
    return ".".join(map(str, row.version.minimum)) if row.version else ""


def problem(row: Agent, found: Found) -> str | None:
    """What an agent older than the row's minimum cannot do, one line; None when it is recent enough or unknown."""
    v = row.version
    if v is None or not v.older or not found.older_than(v.minimum):
        return None
    return f"{found.describe()} is older than {minimum(row)}, {v.needs}: {v.older}"
