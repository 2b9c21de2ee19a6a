"""User hook files (seed 000, 用户钩子配置): where they are and what they say.

A file is validated as a whole (the checks live in :mod:`hookd.validator`):
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

from . import projects
from .validator import KNOWN_KEYS, REQUIRED, ConfigInvalid, Problem, validate

__all__ = ["KNOWN_KEYS", "REQUIRED", "ConfigInvalid", "HookFile", "Problem", "load", "parse", "read", "validate"]

GLOBAL_FILES = ("~/.codingcode/hooks.yaml", "{config}/hookd/hooks.yaml")
PROJECT_FILES = (".codingcode/hooks.yaml", ".hookd/hooks.yaml")


def config_home(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")


def global_files(environ: dict[str, str] | None = None) -> list[str]:
    home = config_home(environ)
    return [os.path.expanduser(p.format(config=home)) for p in GLOBAL_FILES]


def project_files(project: str) -> list[str]:
    return [os.path.join(project, rel) for rel in PROJECT_FILES]


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
    if real in {os.path.realpath(p) for p in global_files(environ)}:
        return "global", ""
    inside = projects.split(os.path.abspath(file))
    if inside is not None:
        return "project", os.path.realpath(inside[0])
    return "project", os.path.realpath(os.path.dirname(os.path.abspath(file)))
