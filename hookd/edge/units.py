"""The systemd user units shipped in systemd/, rendered for the hookd that is running.

The shipped hookd.service says ``ExecStart=hookd serve``, which systemd resolves
in its own fixed search path; a user install (a venv, pipx, ~/.local) is not in
it. Rendering replaces the command with the absolute path of this install.
"""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path

UNITS = ("hookd.socket", "hookd.service")


def shipped(name: str) -> str:
    """The text of a unit file as shipped with hookd."""
    return (resources.files("hookd") / "systemd" / name).read_text(encoding="utf-8")


def hookd_command() -> list[str]:
    """The argv prefix that runs this very install of hookd.

    The console script next to the interpreter when there is one (venv, pipx,
    system package), else the interpreter with ``-m hookd``. Symlinks are kept:
    a venv's python is only that venv when called by its own path.
    """
    script = Path(sys.executable).parent / "hookd"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "hookd"]


def quote(arg: str, executable: bool = False) -> str:
    """One ExecStart= word: specifiers (%) escaped, variables ($) too except in the executable
    (systemd expands them in arguments only), quoted when needed."""
    escaped = arg.replace("%", "%%")
    if not executable:
        escaped = escaped.replace("$", "$$")
    if escaped and not any(c in escaped for c in " \t\"'\\;"):
        return escaped
    escaped = escaped.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def render(name: str, command: list[str] | None = None, serve_args: list[str] | None = None) -> str:
    """The unit ``name`` with ExecStart= running ``command serve [serve_args]``."""
    text = shipped(name)
    if name != "hookd.service":
        return text
    argv = [*(command or hookd_command()), "serve", *(serve_args or [])]
    line = "ExecStart=" + " ".join(quote(a, executable=i == 0) for i, a in enumerate(argv))
    lines = text.splitlines(keepends=True)
    found = [i for i, existing in enumerate(lines) if existing.startswith("ExecStart=")]
    if len(found) != 1:
        raise RuntimeError(f"the shipped {name} has {len(found)} ExecStart= lines, expected one")
    lines[found[0]] = line + "\n"
    return "".join(lines)


def user_unit_dir(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/systemd/user``, else ``~/.config/systemd/user``: where a user's own units go."""
    env = os.environ if environ is None else environ
    config = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(config) / "systemd" / "user"


def install(directory: Path, command: list[str] | None = None, serve_args: list[str] | None = None) -> list[tuple[Path, str]]:
    """Write both units into ``directory``; returns (path, "created" | "updated" | "unchanged") per unit."""
    directory.mkdir(parents=True, exist_ok=True)
    done = []
    for name in UNITS:
        text = render(name, command, serve_args)
        path = directory / name
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            done.append((path, "unchanged"))
            continue
        tmp = path.with_name(f".{name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        done.append((path, "created" if old is None else "updated"))
    return done


_EXEC_PREFIXES = "@-:+!|"


def exec_start(texts: list[str]) -> list[str] | None:
    """The argv of the service's ExecStart=, from the unit's text and then its drop-ins' (later wins;
    an empty ``ExecStart=`` resets). Quoting as systemd reads it, specifiers and ``$$`` unescaped."""
    import shlex

    value: str | None = None
    for text in texts:
        section = ""
        for raw in text.splitlines():
            line = raw.strip()
            if line.startswith("[") and line.endswith("]"):
                section = line
            elif section == "[Service]" and line.startswith("ExecStart="):
                value = line.removeprefix("ExecStart=").strip() or None
    if value is None:
        return None
    value = value.lstrip(_EXEC_PREFIXES)
    try:
        words = shlex.split(value)
    except ValueError:
        return None
    return [w.replace("%%", "%") if i == 0 else w.replace("%%", "%").replace("$$", "$") for i, w in enumerate(words)]


def installed_service(directory: Path | None = None) -> tuple[Path, list[str]]:
    """The user's hookd.service and the texts that define it (the unit, then its drop-ins in order)."""
    base = directory or user_unit_dir()
    path = base / "hookd.service"
    texts = [path.read_text(encoding="utf-8")]
    dropins = base / "hookd.service.d"
    if dropins.is_dir():
        texts += [p.read_text(encoding="utf-8") for p in sorted(dropins.glob("*.conf"))]
    return path, texts
