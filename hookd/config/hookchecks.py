"""The checks of each field of one hook, with positions and suggestions.

A mixin of :class:`hookd.config.validator._Checker`: each ``check_*`` method looks at one field's
constructed value and the YAML node it came from, and records problems with ``self.problem``.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

import yaml

from hookd.config.problems import (
    Entry,
    Fix,
    ProblemReport,
    describe_value,
    did_you_mean,
    node_position,
    only_match,
    plain_scalar,
    quote_hint,
    quote_scalar,
    replace_scalar,
    typo_of,
)
from hookd.core import points

HOOK_TYPES = ("observer", "decision")
ON_ERROR = ("continue", "deny", "ask")
COMBINE = ("first", "strictest")
FORMATS = ("hookd", "claude-code")
MAX_TIMEOUT = 3600.0
MAX_PRIORITY = 2**53  # exact in JSON and msgpack clients of every language
_ENV_NAME = re.compile(r"^[^=\x00]+$")
_SECONDS = re.compile(r"[0-9]+(\.[0-9]+)?")


class FieldChecks(ProblemReport):
    """The per-field checks, reported through the file's :class:`ProblemReport`; the class using it provides ``construct``.

    A problem with exactly one way out carries it as a :class:`Fix` (`hookd check --fix`): a
    misspelt word with one known word close to it, a value YAML read as a number or boolean in a
    field that takes a string (quoted as written), spaces around a name, a whole number written
    as a float, a number of seconds written as a string."""

    def _one_of(self, e: Entry, key: str, value: Any, choices: tuple[str, ...], cutoff: float) -> tuple[str | None, Fix | None]:
        """The hint for a value not among ``choices``, and the fix when one choice alone is close to it."""
        if not isinstance(value, str):
            return None, None
        near = only_match(value, choices, cutoff)
        fix = replace_scalar(self.text, e.value_nodes.get(key), near) if near else None
        return did_you_mean(value, choices, cutoff), fix

    def construct(self, node: yaml.Node) -> Any:
        raise NotImplementedError

    def _string(self, e: Entry, label: str, key: str, value: Any, at: tuple[int, int], empty_ok: bool = False) -> bool:
        if not isinstance(value, str):
            node = e.value_nodes.get(key)
            hint = quote_hint(value, node)
            fix = quote_scalar(self.text, node) if hint else None
            self.problem(f"{key} must be a string, got {describe_value(value)}", at, label, key, hint, fix)
            return False
        if not empty_ok and not value.strip():
            self.problem(f"{key} must not be empty", at, label, key)
            return False
        return True

    def check_name(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if self._string(e, label, "name", value, at) and value != value.strip():
            fix = replace_scalar(self.text, e.value_nodes.get("name"), value.strip())
            self.problem("name must not start or end with spaces", at, label, "name", f"write {value.strip()!r}", fix)

    def check_description(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        self._string(e, label, "description", value, at, empty_ok=True)

    def check_point(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not self._string(e, label, "point", value, at):
            return
        try:
            points.lookup(value)
        except points.UnknownPoint as exc:
            hint = f"did you mean {' or '.join(repr(s) for s in exc.suggestions)}?" if exc.suggestions else None
            # One point a typing slip away: written in its place. Points near each other differ in
            # meaning (pre and post, stop and start), so anything further is left to the author.
            only = typo_of(value, list(points.POINTS)) if exc.suggestions else None
            fix = replace_scalar(self.text, e.value_nodes.get("point"), only) if only else None
            self.problem(exc.reason, at, label, "point", hint, fix)

    def check_type(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value not in HOOK_TYPES:
            hint, fix = self._one_of(e, "type", value, HOOK_TYPES, 0.5)
            self.problem(f"type must be 'observer' or 'decision', got {describe_value(value)}", at, label, "type", hint, fix)

    def check_kinds(self, e: Entry, label: str) -> None:
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

    def check_command(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
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

    def check_args(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is None:
            return
        if not isinstance(value, list):
            hint = f"write args: [{value!r}]" if isinstance(value, str) else None
            self.problem(f"args must be a list of strings, got {describe_value(value)}", at, label, "args", hint)
            return
        node = e.value_nodes["args"]
        for i, item in enumerate(value):
            if not isinstance(item, str):
                item_node = node.value[i] if isinstance(node, yaml.SequenceNode) and i < len(node.value) else None
                item_at = node_position(item_node) if item_node is not None else at
                hint = quote_hint(item, item_node)
                fix = quote_scalar(self.text, item_node) if hint else None
                self.problem(f"args[{i}] must be a string, got {describe_value(item)}", item_at, label, "args", hint, fix)

    def _mapping_items(self, e: Entry, key: str) -> dict[Any, yaml.Node]:
        """The value node of each key of a mapping field, to point at and to quote from."""
        node = e.value_nodes[key]
        nodes: dict[Any, yaml.Node] = {}
        if isinstance(node, yaml.MappingNode):
            for k_node, v_node in node.value:
                nodes[self.construct(k_node)] = v_node
        return nodes

    def check_env(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not self.is_mapping(label, "env", value, at, "NAME: value"):
            return
        nodes = self._mapping_items(e, "env")
        for name, item in value.items():
            node = nodes.get(name)
            where = node_position(node) if node is not None else at
            if not isinstance(name, str) or not _ENV_NAME.match(name):
                self.problem(f"env name {name!r} is not a valid variable name", where, label, "env")
            elif not isinstance(item, str):
                hint = quote_hint(item, node)
                fix = quote_scalar(self.text, node) if hint else None
                self.problem(f"env {name} must be a string, got {describe_value(item)}", where, label, "env", hint, fix)

    def check_priority(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            hint = f"write {round(value)}" if isinstance(value, float) and math.isfinite(value) else None
            # 10.0 is 10; 10.5 is a choice between 10 and 11 that is the author's.
            whole = isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) <= MAX_PRIORITY
            fix = plain_scalar(self.text, e.value_nodes.get("priority"), str(int(value))) if whole else None
            self.problem(
                f"priority must be a whole number (higher runs first), got {describe_value(value)}", at, label, "priority", hint, fix
            )
        elif abs(value) > MAX_PRIORITY:
            self.problem(f"priority must be between -{MAX_PRIORITY} and {MAX_PRIORITY}, got {value}", at, label, "priority")

    def check_enabled(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not isinstance(value, bool):
            self.problem(f"enabled must be true or false, got {describe_value(value)}", at, label, "enabled")

    def check_timeout(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TIMEOUT:
            hint = "write seconds as a number, e.g. timeout: 10" if isinstance(value, str) else None
            fix = None
            if isinstance(value, str) and _SECONDS.fullmatch(value) and 0 < float(value) <= MAX_TIMEOUT:
                fix = plain_scalar(self.text, e.value_nodes.get("timeout"), value)  # "10" -> 10
            self.problem(
                f"timeout must be a number of seconds, more than 0 and at most {MAX_TIMEOUT:g}; got {describe_value(value)}",
                at,
                label,
                "timeout",
                hint,
                fix,
            )

    def check_on_error(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value not in ON_ERROR:
            hint, fix = self._one_of(e, "on_error", value, ON_ERROR, 0.5)
            self.problem(f"on_error must be one of continue, deny, ask; got {describe_value(value)}", at, label, "on_error", hint, fix)

    def check_match(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not self.is_mapping(
            label, "match", value, at, "payload field: regular expression", 'e.g. match: {toolName: "execute_command|write_file"}'
        ):
            return
        nodes = self._mapping_items(e, "match")
        for path, pattern in value.items():
            node = nodes.get(path)
            where = node_position(node) if node is not None else at
            if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
                self.problem(f"match key {path!r} must be a field name or a dotted path like args.command", where, label, "match")
                continue
            if not isinstance(pattern, str):
                hint = quote_hint(pattern, node)
                self.problem(
                    f"match {path}: the pattern must be a string (a regular expression), got {describe_value(pattern)}",
                    where,
                    label,
                    "match",
                    hint,
                    quote_scalar(self.text, node) if hint else None,
                )
                continue
            try:
                re.compile(pattern)
            except re.error as exc:
                self.problem(f"match {path}: not a valid regular expression: {exc}", where, label, "match")

    def check_cwd(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is not None:
            self._string(e, label, "cwd", value, at)

    def check_group(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value is not None and self._string(e, label, "group", value, at) and value != value.strip():
            fix = replace_scalar(self.text, e.value_nodes.get("group"), value.strip())
            self.problem("group must not start or end with spaces", at, label, "group", f"write {value.strip()!r}", fix)

    def check_combine(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value not in COMBINE:
            hint, fix = self._one_of(e, "combine", value, COMBINE, 0.5)
            self.problem(f"combine must be 'first' or 'strictest', got {describe_value(value)}", at, label, "combine", hint, fix)

    def check_format(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if value not in FORMATS:
            hint, fix = self._one_of(e, "format", value, FORMATS, 0.5)
            self.problem(f"format must be 'hookd' or 'claude-code', got {describe_value(value)}", at, label, "format", hint, fix)

    def check_shadow(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not isinstance(value, bool):
            self.problem(f"shadow must be true or false, got {describe_value(value)}", at, label, "shadow")

    def check_grouping(self, e: Entry, label: str) -> None:
        """Cross-field rules: combine needs a group; a group holds decision hooks; a Claude Code hook is spawned."""
        values = e.values
        if "combine" in values and not values.get("group"):
            self.problem(
                "combine says how a group of hooks combines, but this hook names no group",
                e.key_marks["combine"],
                label,
                "combine",
                "add `group: NAME` to this hook and the others it combines with",
            )
        if values.get("group") and values.get("type") == "observer":
            self.problem(
                "group applies to decision hooks only: observers never take part in a decision",
                e.key_marks["group"],
                label,
                "group",
                "remove group, or make this a decision hook",
            )
        if values.get("shadow") is True and values.get("type") == "observer":
            self.problem(
                "shadow applies to decision hooks only: an observer's answer never changes an outcome anyway",
                e.key_marks["shadow"],
                label,
                "shadow",
                "remove shadow, or make this a decision hook",
            )
        if values.get("shadow") is True and values.get("group"):
            self.problem(
                "a shadow hook cannot be in a group: it runs beside the chain, not as a step of it",
                e.key_marks["shadow"],
                label,
                "shadow",
                "remove group from this hook while it is a shadow",
            )
        if values.get("format") == "claude-code" and values.get("mode") == "persistent":
            self.problem(
                "a claude-code format hook runs once per call, as Claude Code runs it; it cannot be persistent",
                e.key_marks["mode"],
                label,
                "mode",
                "remove `mode: persistent`",
            )
