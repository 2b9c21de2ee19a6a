"""User hook files (seed 000, 用户钩子配置): where they are and what they say.

Next to every ``hooks.yaml`` a drop-in directory ``hooks.d/`` may hold more
files (``hooks.d/*.yaml``, as systemd's ``*.d`` and sudoers.d): they load after
the ``hooks.yaml`` beside them, in name order, each a hook file of its own
(validated, trusted, reloaded and kept as last accepted on its own).

A file is validated as a whole (the checks live in :mod:`hookd.config.validator`):
either every hook in it is valid and the file loads, or the file is rejected
with a list of problems (file, line, column, hook, field, what is wrong) and
whatever was loaded from it before stays in force.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from hookd_client.messages import HookSpec

from hookd.config import projects
from hookd.config.validator import KNOWN_KEYS, REQUIRED, ConfigInvalid, Problem, validate

__all__ = ["KNOWN_KEYS", "REQUIRED", "ConfigInvalid", "HookFile", "Problem", "load", "parse", "read", "validate"]

GLOBAL_FILES = ("~/.codingcode/hooks.yaml", "{config}/hookd/hooks.yaml")
PROJECT_FILES = (".codingcode/hooks.yaml", ".hookd/hooks.yaml")
DROPIN_DIR = "hooks.d"
DROPIN_SUFFIX = ".yaml"
MAX_DROPINS = 256  # per directory: a directory of thousands of files is a mistake, not a configuration


def config_home(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")


def global_main_files(environ: dict[str, str] | None = None) -> list[str]:
    home = config_home(environ)
    return [os.path.expanduser(p.format(config=home)) for p in GLOBAL_FILES]


def project_main_files(project: str) -> list[str]:
    return [os.path.join(project, rel) for rel in PROJECT_FILES]


def dropin_dir(main_file: str) -> str:
    """The drop-in directory beside a ``hooks.yaml``."""
    return os.path.join(os.path.dirname(main_file), DROPIN_DIR)


def dropins(directory: str) -> list[str]:
    """The drop-in files of ``directory`` in load (name) order: ``*.yaml``, not hidden (editors' temp files)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    wanted = sorted(n for n in names if n.endswith(DROPIN_SUFFIX) and not n.startswith("."))
    return [os.path.join(directory, n) for n in wanted[:MAX_DROPINS]]


def _with_dropins(mains: list[str]) -> list[str]:
    return [f for main in mains for f in (main, *dropins(dropin_dir(main)))]


def global_files(environ: dict[str, str] | None = None) -> list[str]:
    """The global hook files in load order: each ``hooks.yaml``, then the drop-ins beside it (existing now)."""
    return _with_dropins(global_main_files(environ))


def project_files(project: str) -> list[str]:
    """A project's hook files in load order: each ``hooks.yaml``, then the drop-ins beside it (existing now)."""
    return _with_dropins(project_main_files(project))


def global_dropin_dirs(environ: dict[str, str] | None = None) -> list[str]:
    return [dropin_dir(f) for f in global_main_files(environ)]


def project_dropin_dirs(project: str) -> list[str]:
    return [dropin_dir(f) for f in project_main_files(project)]


@dataclass(frozen=True, slots=True)
class HookFile:
    """A hook file as read: its hooks and the SHA-256 of its bytes (what trust records)."""

    path: str
    specs: list[HookSpec]
    sha256: str


def parse(text: str, file: str) -> list[HookSpec]:
    """Validate a whole file's text; raises ConfigInvalid listing every problem."""
    return validate(text, file)


def read(file: str) -> HookFile | None:
    """The hooks of ``file``; None when it does not exist. Raises ConfigInvalid."""
    try:
        data = Path(file).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ConfigInvalid([Problem(file, f"cannot read: {exc.strerror or exc}")]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigInvalid([Problem(file, f"not UTF-8 text: {exc}")]) from None
    return HookFile(file, validate(text, file), hashlib.sha256(data).hexdigest())


def load(file: str) -> list[HookSpec] | None:
    """The hooks of ``file``; None when it does not exist. Raises ConfigInvalid."""
    loaded = read(file)
    return None if loaded is None else loaded.specs


def scope_of(file: str, environ: dict[str, str] | None = None) -> tuple[str, str]:
    """(scope, owner) of a hook file path: global, or project with the project directory as owner."""
    real = os.path.realpath(file)
    if real in {os.path.realpath(p) for p in global_main_files(environ)}:
        return "global", ""
    if real.endswith(DROPIN_SUFFIX) and os.path.dirname(real) in {os.path.realpath(d) for d in global_dropin_dirs(environ)}:
        return "global", ""  # a global drop-in, existing or not
    inside = projects.split(os.path.abspath(file))
    if inside is not None:
        return "project", os.path.realpath(inside[0])
    return "project", os.path.realpath(os.path.dirname(os.path.abspath(file)))
