"""The compiled shim for the Claude Code events that take only command hooks.

``build`` compiles shim.c with the machine's C compiler into the user's data
directory; ``hookd bridge install`` calls it and, where no compiler exists,
falls back to the Python bridge (`hookd bridge claude-code`).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import NamedTuple

SOURCE = Path(__file__).resolve().parent / "shim.c"
NAME = "claude-shim"


class Built(NamedTuple):
    path: str | None  # None: not built, ``why`` says why
    why: str = ""


def data_dir(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/hookd``, else ``~/.local/share/hookd``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "hookd"


def compiler(environ: dict[str, str] | None = None) -> list[str] | None:
    """$CC (a command line), else cc, else gcc or clang; None when there is none."""
    env = os.environ if environ is None else environ
    wanted = shlex.split(env.get("CC", "")) or ["cc"]
    for candidate in (wanted, ["gcc"], ["clang"]):
        found = shutil.which(candidate[0])
        if found:
            return [found, *candidate[1:]]
    return None


def build(directory: Path | None = None, cc: list[str] | None = None) -> Built:
    """Compile the shim; the binary is replaced atomically, so an agent never runs a half-written one."""
    cc = cc or compiler()
    if cc is None:
        return Built(None, "no C compiler found (set CC, or install cc)")
    target_dir = directory or data_dir()
    target_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = target_dir / NAME
    fd, tmp = tempfile.mkstemp(prefix=f".{NAME}.", dir=target_dir)
    os.close(fd)
    try:
        # Linked statically where the C library allows it: no dynamic loader at each exec, about
        # three times faster to start (bench/claude.md); else as the compiler links by default.
        for flags in (["-static"], []):
            done = subprocess.run([*cc, "-O2", *flags, "-o", tmp, str(SOURCE)], capture_output=True, text=True, timeout=120, check=False)
            if done.returncode == 0:
                break
        else:
            return Built(None, f"{cc[0]} failed: {done.stderr.strip()[:500]}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Built(None, f"cannot build the shim: {exc}")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return Built(str(target))
