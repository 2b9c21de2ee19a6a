"""What is wrong with a hook file, and where: the problem type and the helpers that word it."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml


@dataclass(frozen=True, slots=True)
class Fix:
    """An edit that makes a problem go away with no choice left to the author: ``old`` at
    ``start:end`` of the text the problem was found in becomes ``new`` (character offsets;
    ``line`` and ``column`` are where ``old`` starts, 1-based)."""

    start: int
    end: int
    old: str
    new: str
    line: int
    column: int

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "replace": self.old, "with": self.new}


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
    fix: Fix | None = None  # set when the problem has exactly one way out (`hookd check --fix` applies it)

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"

    @property
    def where(self) -> str:
        """FILE, FILE:LINE or FILE:LINE:COLUMN."""
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return where

    @property
    def what(self) -> str:
        """The hook, the field, what is wrong and the suggestion: the problem without its place."""
        parts = []
        if self.hook:
            parts.append(f"hook {self.hook!r}")
        if self.field:
            parts.append(f"field {self.field!r}")
        text = ": ".join([*parts, self.message])
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


class ProblemReport:
    """The problems found in one hook file's text, each where it was found: the one ``problem`` the
    file's checks (the validator, the field checks, the built-in checks) all report through."""

    file: str
    text: str  # what the nodes were read from: a fix edits it where a node was read
    problems: list[Problem]

    def problem(
        self,
        message: str,
        at: tuple[int, int] | None = None,
        hook: str | None = None,
        fieldname: str | None = None,
        suggestion: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        line, column = at if at is not None else (None, None)
        self.problems.append(Problem(self.file, message, hook, fieldname, line, column, suggestion, fix))

    def is_mapping(self, hook: str, fieldname: str, value: Any, at: tuple[int, int], what: str, suggestion: str | None = None) -> bool:
        """Whether a mapping field's ``value`` is one to check key by key: a field left out (None) is
        not, and anything but a mapping is reported as not the mapping of ``what`` it must be."""
        if value is None:
            return False
        if isinstance(value, dict):
            return True
        self.problem(f"{fieldname} must be a mapping of {what}, got {describe_value(value)}", at, hook, fieldname, suggestion)
        return False


class ConfigInvalid(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


def did_you_mean(word: str, choices: tuple[str, ...] | list[str], cutoff: float = 0.6) -> str | None:
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f"did you mean {near[0]!r}?" if near else None


def only_match(word: str, choices: tuple[str, ...] | list[str], cutoff: float = 0.6) -> str | None:
    """The one choice close to ``word`` (as did_you_mean measures it), None when none is or several are."""
    near = difflib.get_close_matches(word, list(choices), n=2, cutoff=cutoff)
    return near[0] if len(near) == 1 else None


def _one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one letter added, dropped, changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1])
    return a[i + 1 :] == b[i:] if len(a) > len(b) else a[i:] == b[i + 1 :]


def typo_of(word: str, choices: tuple[str, ...] | list[str]) -> str | None:
    """The one choice ``word`` is a typing slip away from (one letter added, dropped, changed or two
    swapped), None when none is or several are: for names where a near miss may mean something else."""
    near = [c for c in choices if _one_edit(word, c)]
    return near[0] if len(near) == 1 else None


# A plain scalar written like this reads back as the same string in YAML, and as nothing else.
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")


def _written(value: str, style: str | None) -> str | None:
    """How ``value`` is written as a one-line scalar of ``style`` (None: it cannot be, or not surely)."""
    if any(ch in value for ch in "\n\r\t") or not value.isprintable():
        return None
    if style is None:
        if not _PLAIN.fullmatch(value) or yaml.safe_load(value) != value:
            return None
        return value
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    if style == '"':
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return None


def _source(text: str, node: yaml.Node, within: tuple[int, int] | None = None) -> str | None:
    """The text ``node`` was read from, when it is one scalar written exactly as its value (no anchor,
    tag, alias, escape or line break in it) and starts inside ``within`` (character offsets) when given."""
    if not isinstance(node, yaml.ScalarNode):
        return None
    start, end = node.start_mark.index, node.end_mark.index
    if within is not None and not within[0] <= start < within[1]:
        return None
    source = text[start:end]
    if node.style is None:
        return source if source == node.value and "\n" not in source else None
    return source if source == _written(node.value, node.style) else None


def replace_scalar(text: str, node: yaml.Node | None, new: str, within: tuple[int, int] | None = None) -> Fix | None:
    """A fix that writes the string ``new`` where the scalar ``node`` is, quoted as the node is."""
    if node is None:
        return None
    old = _source(text, node, within)
    written = _written(new, node.style)
    if old is None or written is None:
        return None
    return Fix(node.start_mark.index, node.end_mark.index, old, written, *node_position(node))


def quote_scalar(text: str, node: yaml.Node | None) -> Fix | None:
    """A fix that quotes a plain scalar YAML read as a number or boolean, so that it reads as written."""
    if not isinstance(node, yaml.ScalarNode) or node.style is not None:
        return None
    old = _source(text, node)
    if old is None or '"' in old or "\\" in old:
        return None
    return Fix(node.start_mark.index, node.end_mark.index, old, f'"{old}"', *node_position(node))


def plain_scalar(text: str, node: yaml.Node | None, written: str) -> Fix | None:
    """A fix that writes ``written`` (YAML source, e.g. ``10``) where the scalar ``node`` is."""
    if node is None:
        return None
    old = _source(text, node)
    if old is None:
        return None
    return Fix(node.start_mark.index, node.end_mark.index, old, written, *node_position(node))


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
    key_nodes: dict[Any, yaml.Node] = field(default_factory=dict)
    span: tuple[int, int] = (0, 0)  # the mapping's character offsets in the text: a fix edits nothing outside it

    @property
    def label(self) -> str:
        name = self.values.get("name")
        return name if isinstance(name, str) and name else f"#{self.index + 1}"


def node_position(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1
