"""What is wrong with a hook file, and where: the problem type and the helpers that word it."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import yaml


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a hook file, and where."""

    file: str
    message: str
    hook: str | None = None
    field: str | None = None
    line: int | None = None
    column: int | None = None
    suggestion: str | None = None

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
        text = ": ".join(parts) + f": {self.message}"
        if self.suggestion:
            text += f" ({self.suggestion})"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "hook": self.hook,
            "field": self.field,
            "message": self.message,
            "suggestion": self.suggestion,
        }


class ConfigInvalid(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


def did_you_mean(word: str, choices: tuple[str, ...] | list[str], cutoff: float = 0.6) -> str | None:
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f"did you mean {near[0]!r}?" if near else None


def describe_value(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, int | float):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def quote_hint(value: Any, node: yaml.Node | None = None) -> str | None:
    """For a scalar YAML read as a number or boolean (``off``, ``1.0``): quote it as written."""
    if isinstance(value, bool | int | float) and not isinstance(value, str):
        written = node.value if isinstance(node, yaml.ScalarNode) else None
        text = written or (str(value).lower() if isinstance(value, bool) else str(value))
        return f'quote it: "{text}"'
    return None


@dataclass(slots=True)
class Entry:
    """One hook mapping: its constructed values and where each key and value sits."""

    index: int
    mark: tuple[int, int]
    values: dict[Any, Any] = field(default_factory=dict)
    key_marks: dict[Any, tuple[int, int]] = field(default_factory=dict)
    value_marks: dict[Any, tuple[int, int]] = field(default_factory=dict)
    value_nodes: dict[Any, yaml.Node] = field(default_factory=dict)

    @property
    def label(self) -> str:
        name = self.values.get("name")
        return name if isinstance(name, str) and name else f"#{self.index + 1}"


def node_position(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1
