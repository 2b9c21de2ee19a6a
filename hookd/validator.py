"""Validation of a hook file's text, with positions and suggestions.

The YAML is composed into nodes first, so that every problem can point at the
line and column of the key or value at fault (PyYAML's node marks), and only
then constructed into Python values. Each field of seed 000's UserHookConfig,
and hookd's own options (timeout, on_error, match, cwd), is checked by hand so
that a message says what was expected, what was found and, where one is
obvious, what to write instead. Nothing here reads files or raises anything but
:class:`~hookd.userconfig.ConfigInvalid`-compatible problem lists.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec
import yaml
from hookd_client.messages import HookSpec

from . import points

REQUIRED = ("name", "point", "type", "command", "enabled")  # the seed's table: 必填 = 是
KNOWN_KEYS = tuple(HookSpec.__struct_fields__)
HOOK_TYPES = ("observer", "decision")
ON_ERROR = ("continue", "deny", "ask")
MAX_TIMEOUT = 3600.0
MAX_PRIORITY = 2**53  # exact in JSON and msgpack clients of every language
_ENV_NAME = re.compile(r"^[^=\x00]+$")


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


def _describe(value: Any) -> str:
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


def _quote_hint(value: Any, node: yaml.Node | None = None) -> str | None:
    """For a scalar YAML read as a number or boolean (``off``, ``1.0``): quote it as written."""
    if isinstance(value, bool | int | float) and not isinstance(value, str):
        written = node.value if isinstance(node, yaml.ScalarNode) else None
        text = written or (str(value).lower() if isinstance(value, bool) else str(value))
        return f'quote it: "{text}"'
    return None


@dataclass(slots=True)
class _Entry:
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


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Checker:
    def __init__(self, file: str, loader: yaml.SafeLoader) -> None:
        self.file = file
        self.loader = loader
        self.problems: list[Problem] = []

    def problem(
        self,
        message: str,
        at: tuple[int, int] | None = None,
        hook: str | None = None,
        fieldname: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        line, column = at if at is not None else (None, None)
        self.problems.append(Problem(self.file, message, hook, fieldname, line, column, suggestion))

    def construct(self, node: yaml.Node) -> Any:
        return self.loader.construct_object(node, deep=True)

    # ------------------------------------------------------------- the file

    def document(self, root: yaml.Node | None) -> list[HookSpec]:
        if root is None:
            return []
        if not isinstance(root, yaml.MappingNode):
            value = self.construct(root)
            if value is None:
                return []
            self.problem(
                f"the file must be a mapping with one key, 'hooks', holding a list; got {_describe(value)}",
                _mark(root),
                suggestion="start the file with `hooks:` and list the hooks under it",
            )
            return []
        hooks_node: yaml.Node | None = None
        for key_node, value_node in self._pairs(root, None):
            key = self.construct(key_node)
            if key == "hooks":
                hooks_node = value_node
            else:
                self.problem(
                    f"unknown top-level key {key!r}; the only key is 'hooks'",
                    _mark(key_node),
                    suggestion=did_you_mean(str(key), ["hooks"], 0.5),
                )
        if hooks_node is None:
            return []
        if isinstance(hooks_node, yaml.ScalarNode) and self.construct(hooks_node) is None:
            return []
        if not isinstance(hooks_node, yaml.SequenceNode):
            self.problem(
                f"'hooks' must be a list of hooks, got {_describe(self.construct(hooks_node))}",
                _mark(hooks_node),
                fieldname="hooks",
                suggestion="write each hook as a list item starting with `- name: ...`",
            )
            return []
        specs: list[HookSpec] = []
        first_seen: dict[str, int] = {}
        for index, item in enumerate(hooks_node.value):
            entry = self.entry(index, item)
            if entry is None:
                continue
            spec = self.hook(entry)
            name = entry.values.get("name")
            if isinstance(name, str) and name:
                if name in first_seen:
                    self.problem(
                        f"duplicate hook name {name!r} (first defined at line {first_seen[name]}); names must be unique in a scope",
                        entry.value_marks.get("name", entry.mark),
                        name,
                        "name",
                        suggestion="rename one of them",
                    )
                    spec = None
                else:
                    first_seen[name] = entry.value_marks.get("name", entry.mark)[0]
            if spec is not None:
                specs.append(spec)
        return specs

    def _pairs(self, node: yaml.MappingNode, hook: str | None) -> list[tuple[yaml.Node, yaml.Node]]:
        """The mapping's pairs; a key written twice is a problem (YAML would silently keep the last).

        ``<<: *anchor`` merges are resolved the YAML way: keys written here win over merged ones.
        """
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct(key_node)
            try:
                hash(key)
            except TypeError:
                continue
            if key in seen:
                self.problem(
                    f"key {key!r} appears twice in this mapping (first at line {seen[key]}); YAML would keep only the last",
                    _mark(key_node),
                    hook,
                    str(key),
                    suggestion="remove one of them",
                )
            else:
                seen[key] = _mark(key_node)[0]
        self.loader.flatten_mapping(node)
        pairs: dict[Any, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            key = self.construct(key_node)
            try:
                hash(key)
            except TypeError:
                self.problem("a key must be a plain word, not a list or mapping", _mark(key_node), hook)
                continue
            pairs.pop(key, None)
            pairs[key] = (key_node, value_node)
        return list(pairs.values())

    def entry(self, index: int, node: yaml.Node) -> _Entry | None:
        entry = _Entry(index, _mark(node))
        if not isinstance(node, yaml.MappingNode):
            value = self.construct(node)
            self.problem(
                f"each hook must be a mapping of field: value, got {_describe(value)}",
                entry.mark,
                f"#{index + 1}",
                suggestion="write `- name: ...` and the other fields indented under it",
            )
            return None
        if node.tag != "tag:yaml.org,2002:map":
            self.problem(f"YAML tag {node.tag!r} is not allowed here; write a plain mapping", entry.mark, f"#{index + 1}")
            return None
        raw = self._pairs(node, None)
        for key_node, value_node in raw:
            key = self.construct(key_node)
            entry.values[key] = self.construct(value_node)
            entry.key_marks[key] = _mark(key_node)
            entry.value_marks[key] = _mark(value_node)
            entry.value_nodes[key] = value_node
        return entry

    # ------------------------------------------------------------- one hook

    def hook(self, e: _Entry) -> HookSpec | None:
        before = len(self.problems)
        label = e.label
        values = e.values
        for key in values:
            if key not in KNOWN_KEYS:
                hint = did_you_mean(str(key), KNOWN_KEYS) if isinstance(key, str) else None
                self.problem(
                    f"unknown field {key!r}; known fields are {', '.join(KNOWN_KEYS)}",
                    e.key_marks[key],
                    label,
                    str(key),
                    hint,
                )
        unknown = [k for k in values if isinstance(k, str) and k not in KNOWN_KEYS]
        for key in REQUIRED:
            if key not in values:
                typo = difflib.get_close_matches(key, unknown, n=1, cutoff=0.6)
                hint = f"is {typo[0]!r} a misspelling of it?" if typo else None
                if key == "enabled" and hint is None:
                    hint = "add `enabled: true` (or false) — the seed requires it"
                self.problem(f"required field {key!r} is missing", e.mark, label, key, hint)
        checks = {
            "name": self.check_name,
            "description": self.check_description,
            "point": self.check_point,
            "type": self.check_type,
            "command": self.check_command,
            "args": self.check_args,
            "env": self.check_env,
            "priority": self.check_priority,
            "enabled": self.check_enabled,
            "timeout": self.check_timeout,
            "on_error": self.check_on_error,
            "match": self.check_match,
            "cwd": self.check_cwd,
        }
        for key, check in checks.items():
            if key in values:
                check(e, label, values[key], e.value_marks[key])
        self.check_kinds(e, label)
        if len(self.problems) != before:
            return None
        try:
            return msgspec.convert(values, HookSpec)
        except msgspec.ValidationError as exc:  # a guard: the checks above should have caught it
            self.problem(f"invalid hook: {exc}", e.mark, label)
            return None

    def _string(self, e: _Entry, label: str, key: str, value: Any, at: tuple[int, int], empty_ok: bool = False) -> bool:
        if not isinstance(value, str):
            self.problem(f"{key} must be a string, got {_describe(value)}", at, label, key, _quote_hint(value, e.value_nodes.get(key)))
            return False
        if not empty_ok and not value.strip():
            self.problem(f"{key} must not be empty", at, label, key)
            return False
        return True

    def check_name(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if self._string(e, label, "name", value, at) and value != value.strip():
            self.problem("name must not start or end with spaces", at, label, "name", f"write {value.strip()!r}")

    def check_description(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        self._string(e, label, "description", value, at, empty_ok=True)

    def check_point(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not self._string(e, label, "point", value, at):
            return
        try:
            points.lookup(value)
        except points.UnknownPoint as exc:
            hint = f"did you mean {' or '.join(repr(s) for s in exc.suggestions)}?" if exc.suggestions else None
            self.problem(
                f"unknown hook point {value!r} (`hookd points` lists them; names under 'custom.' are free)",
                at,
                label,
                "point",
                hint,
            )

    def check_type(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value not in HOOK_TYPES:
            hint = did_you_mean(value, HOOK_TYPES, 0.5) if isinstance(value, str) else None
            self.problem(f"type must be 'observer' or 'decision', got {_describe(value)}", at, label, "type", hint)

    def check_kinds(self, e: _Entry, label: str) -> None:
        """Cross-field rules: a decision hook needs a decision point; on_error only steers decisions."""
        point, kind = e.values.get("point"), e.values.get("type")
        if not isinstance(point, str) or kind not in HOOK_TYPES:
            return
        try:
            found = points.lookup(point)
        except points.UnknownPoint:
            return
        if kind == "decision" and found.kind != "decision":
            near = difflib.get_close_matches(point, points.decision_points(), n=1, cutoff=0.0)
            hint = "use `type: observer`" + (f", or a decision point such as {near[0]!r}" if near else "")
            self.problem(
                f"{point!r} is an observer point: a decision hook there would never be asked to decide",
                e.value_marks["type"],
                label,
                "type",
                hint,
            )
        if kind == "observer" and "on_error" in e.values and e.values["on_error"] != "continue":
            self.problem(
                "on_error applies to decision hooks only: a failing observer never blocks anything",
                e.key_marks["on_error"],
                label,
                "on_error",
                "remove on_error, or make this a decision hook",
            )

    def check_command(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if isinstance(value, list):
            self.problem(
                "command must be one program (a string), got a list",
                at,
                label,
                "command",
                "put the program in command and its arguments in args",
            )
            return
        self._string(e, label, "command", value, at)

    def check_args(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is None:
            return
        if not isinstance(value, list):
            hint = f"write args: [{value!r}]" if isinstance(value, str) else None
            self.problem(f"args must be a list of strings, got {_describe(value)}", at, label, "args", hint)
            return
        node = e.value_nodes["args"]
        for i, item in enumerate(value):
            if not isinstance(item, str):
                item_node = node.value[i] if isinstance(node, yaml.SequenceNode) and i < len(node.value) else None
                item_at = _mark(item_node) if item_node is not None else at
                hint = _quote_hint(item, item_node)
                self.problem(f"args[{i}] must be a string, got {_describe(item)}", item_at, label, "args", hint)

    def _mapping_items(self, e: _Entry, key: str) -> dict[Any, yaml.Node]:
        """The value node of each key of a mapping field, to point at and to quote from."""
        node = e.value_nodes[key]
        nodes: dict[Any, yaml.Node] = {}
        if isinstance(node, yaml.MappingNode):
            for k_node, v_node in node.value:
                nodes[self.construct(k_node)] = v_node
        return nodes

    def check_env(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            self.problem(f"env must be a mapping of NAME: value, got {_describe(value)}", at, label, "env")
            return
        nodes = self._mapping_items(e, "env")
        for name, item in value.items():
            node = nodes.get(name)
            where = _mark(node) if node is not None else at
            if not isinstance(name, str) or not _ENV_NAME.match(name):
                self.problem(f"env name {name!r} is not a valid variable name", where, label, "env")
            elif not isinstance(item, str):
                self.problem(f"env {name} must be a string, got {_describe(item)}", where, label, "env", _quote_hint(item, node))

    def check_priority(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            hint = f"write {round(value)}" if isinstance(value, float) and math.isfinite(value) else None
            self.problem(f"priority must be a whole number (higher runs first), got {_describe(value)}", at, label, "priority", hint)
        elif abs(value) > MAX_PRIORITY:
            self.problem(f"priority must be between -{MAX_PRIORITY} and {MAX_PRIORITY}, got {value}", at, label, "priority")

    def check_enabled(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not isinstance(value, bool):
            self.problem(f"enabled must be true or false, got {_describe(value)}", at, label, "enabled")

    def check_timeout(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TIMEOUT:
            hint = "write seconds as a number, e.g. timeout: 10" if isinstance(value, str) else None
            self.problem(
                f"timeout must be a number of seconds, more than 0 and at most {MAX_TIMEOUT:g}; got {_describe(value)}",
                at,
                label,
                "timeout",
                hint,
            )

    def check_on_error(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value not in ON_ERROR:
            hint = did_you_mean(value, ON_ERROR, 0.5) if isinstance(value, str) else None
            self.problem(f"on_error must be one of continue, deny, ask; got {_describe(value)}", at, label, "on_error", hint)

    def check_match(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            self.problem(
                f"match must be a mapping of payload field: regular expression, got {_describe(value)}",
                at,
                label,
                "match",
                'e.g. match: {toolName: "execute_command|write_file"}',
            )
            return
        nodes = self._mapping_items(e, "match")
        for path, pattern in value.items():
            node = nodes.get(path)
            where = _mark(node) if node is not None else at
            if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
                self.problem(f"match key {path!r} must be a field name or a dotted path like args.command", where, label, "match")
                continue
            if not isinstance(pattern, str):
                self.problem(
                    f"match {path}: the pattern must be a string (a regular expression), got {_describe(pattern)}",
                    where,
                    label,
                    "match",
                    _quote_hint(pattern, node),
                )
                continue
            try:
                re.compile(pattern)
            except re.error as exc:
                self.problem(f"match {path}: not a valid regular expression: {exc}", where, label, "match")

    def check_cwd(self, e: _Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is not None:
            self._string(e, label, "cwd", value, at)


def validate(text: str, file: str) -> list[HookSpec]:
    """Every hook of a file's text; raises ConfigInvalid listing every problem found."""
    try:
        loader = yaml.SafeLoader(text)  # the reader refuses control characters right here
    except yaml.YAMLError as exc:
        raise ConfigInvalid([Problem(file, f"not valid YAML: {exc}")]) from None
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else None
            column = mark.column + 1 if mark is not None else None
            message = exc.problem or exc.context or "malformed"
            raise ConfigInvalid([Problem(file, f"not valid YAML: {message}", line=line, column=column)]) from None
        except yaml.YAMLError as exc:
            raise ConfigInvalid([Problem(file, f"not valid YAML: {exc}")]) from None
        checker = _Checker(file, loader)
        try:
            specs = checker.document(root)
        except yaml.MarkedYAMLError as exc:  # e.g. a tag the safe loader refuses (!!python/object)
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else None
            column = mark.column + 1 if mark is not None else None
            raise ConfigInvalid([Problem(file, f"not valid here: {exc.problem or exc.context}", line=line, column=column)]) from None
        except (yaml.YAMLError, RecursionError) as exc:
            raise ConfigInvalid([Problem(file, f"cannot read this YAML: {type(exc).__name__}: {exc}")]) from None
    finally:
        loader.dispose()
    if checker.problems:
        raise ConfigInvalid(sorted(checker.problems, key=lambda p: (p.line or 0, p.column or 0)))
    return specs
