"""User hook files (seed 000, 用户钩子配置): where they are and what they say.

A file is validated as a whole: either every hook in it is valid and the file
loads, or the file is rejected with a list of problems (file, hook, field,
what is wrong) and whatever was loaded from it before stays in force.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import yaml
from hookd_client.messages import HookSpec

from . import points

GLOBAL_FILES = ("~/.codingcode/hooks.yaml", "{config}/hookd/hooks.yaml")
PROJECT_FILES = (".codingcode/hooks.yaml", ".hookd/hooks.yaml")
REQUIRED = ("name", "point", "type", "command", "enabled")  # the seed's table: 必填 = 是
KNOWN_KEYS = tuple(HookSpec.__struct_fields__)


def config_home(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")


def global_files(environ: dict[str, str] | None = None) -> list[str]:
    home = config_home(environ)
    return [os.path.expanduser(p.format(config=home)) for p in GLOBAL_FILES]


def project_files(project: str) -> list[str]:
    return [os.path.join(project, rel) for rel in PROJECT_FILES]


@dataclass(frozen=True, slots=True)
class Problem:
    file: str
    message: str
    hook: str | None = None
    field: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [where]
        if self.hook:
            parts.append(f"hook {self.hook!r}")
        if self.field:
            parts.append(f"field {self.field!r}")
        return ": ".join(parts) + f": {self.message}"


class ConfigInvalid(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


_PATH_FIELD = re.compile(r"`\$(?:\[(\d+)\])?(?:\.(\w+))?")


def _hook_label(entry: Any, index: int) -> str:
    if isinstance(entry, dict) and isinstance(entry.get("name"), str):
        return entry["name"]
    return f"#{index + 1}"


def validate_entry(entry: Any, index: int, file: str) -> tuple[HookSpec | None, list[Problem]]:
    label = _hook_label(entry, index)
    if not isinstance(entry, dict):
        return None, [Problem(file, f"each hook must be a mapping, got {type(entry).__name__}", label)]
    problems: list[Problem] = []
    unknown = [k for k in entry if k not in KNOWN_KEYS]
    for key in unknown:
        problems.append(Problem(file, f"unknown key; known keys are {', '.join(KNOWN_KEYS)}", label, str(key)))
    for key in REQUIRED:
        if key not in entry:
            problems.append(Problem(file, "required field is missing", label, key))
    if problems:
        return None, problems
    try:
        spec = msgspec.convert(entry, HookSpec)
    except msgspec.ValidationError as exc:
        text = str(exc)
        match = _PATH_FIELD.search(text)
        fieldname = match.group(2) if match else None
        message = text.split(" - at ")[0]
        return None, [Problem(file, message, label, fieldname)]
    try:
        points.check_hook(spec.point, spec.type)
    except points.UnknownPoint as exc:
        return None, [Problem(file, str(exc), label, "point")]
    except points.WrongKind as exc:
        return None, [Problem(file, str(exc), label, "type")]
    return spec, []


def parse(text: str, file: str) -> list[HookSpec]:
    """Validate a whole file's text; raises ConfigInvalid listing every problem."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigInvalid([Problem(file, f"not valid YAML: {problem}", line=line, column=column)]) from None
    if data is None:
        return []
    if not isinstance(data, dict) or set(data) - {"hooks"}:
        raise ConfigInvalid([Problem(file, "the file must be a mapping with one key, 'hooks', holding a list")])
    entries = data.get("hooks") or []
    if not isinstance(entries, list):
        raise ConfigInvalid([Problem(file, "'hooks' must be a list", field="hooks")])
    specs: list[HookSpec] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        spec, found = validate_entry(entry, index, file)
        problems.extend(found)
        if spec is not None:
            if spec.name in seen:
                problems.append(Problem(file, "duplicate hook name in this file", spec.name, "name"))
            seen.add(spec.name)
            specs.append(spec)
    if problems:
        raise ConfigInvalid(problems)
    return specs


def load(file: str) -> list[HookSpec] | None:
    """The hooks of ``file``; None when it does not exist. Raises ConfigInvalid."""
    try:
        text = Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigInvalid([Problem(file, f"cannot read: {exc}")]) from None
    return parse(text, file)
