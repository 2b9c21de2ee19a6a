"""Validation of a hook file's text, with positions and suggestions.

The YAML is composed into nodes first, so that every problem can point at the
line and column of the key or value at fault (PyYAML's node marks), and only
then constructed into Python values. Each field of seed 000's UserHookConfig,
and hookd's own options (timeout, on_error, match, cwd, group, combine,
format), is checked by hand (hookd/config/hookchecks.py) so that a message says what
was expected, what was found and, where one is obvious, what to write instead.
Rules across hooks (unique names, one way of combining per group) are checked
here. Nothing here reads files or raises anything but
:class:`~hookd.config.userconfig.ConfigInvalid`-compatible problem lists.
"""

from __future__ import annotations

import difflib
from typing import Any

import msgspec
import yaml
from hookd_client.messages import HookSpec

from hookd.config.builtinchecks import BuiltinChecks
from hookd.config.hookchecks import FieldChecks
from hookd.config.problems import (
    ConfigInvalid,
    Entry,
    Problem,
    describe_value,
    did_you_mean,
    node_position,
    only_match,
    replace_scalar,
)

__all__ = ["KNOWN_KEYS", "REQUIRED", "ConfigInvalid", "Problem", "did_you_mean", "validate"]

REQUIRED = ("name", "point", "type", "command", "enabled")  # the seed's table: 必填 = 是
# A built-in hook (docs/guards.md) runs hookd's packs: no command, and it is a decision hook.
REQUIRED_BUILTIN = ("name", "point", "enabled")
KNOWN_KEYS = tuple(HookSpec.__struct_fields__)


class _Checker(FieldChecks, BuiltinChecks):
    def __init__(self, file: str, loader: yaml.SafeLoader, text: str) -> None:
        self.file = file
        self.loader = loader
        self.text = text  # what the nodes were read from: a fix edits it where a node was read
        self.problems: list[Problem] = []

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
                f"the file must be a mapping with one key, 'hooks', holding a list; got {describe_value(value)}",
                node_position(root),
                suggestion="start the file with `hooks:` and list the hooks under it",
            )
            return []
        hooks_node: yaml.Node | None = None
        pairs = self._pairs(root, None)
        keys = {self.construct(key_node) for key_node, _ in pairs}
        for key_node, value_node in pairs:
            key = self.construct(key_node)
            if key == "hooks":
                hooks_node = value_node
            else:
                hint = did_you_mean(str(key), ["hooks"], 0.5)
                # `hook:` for `hooks:`, when the file has no `hooks:` it would clash with.
                fix = replace_scalar(self.text, key_node, "hooks") if hint and "hooks" not in keys else None
                self.problem(
                    f"unknown top-level key {key!r}; the only key is 'hooks'",
                    node_position(key_node),
                    suggestion=hint,
                    fix=fix,
                )
        if hooks_node is None:
            return []
        if isinstance(hooks_node, yaml.ScalarNode) and self.construct(hooks_node) is None:
            return []
        if not isinstance(hooks_node, yaml.SequenceNode):
            self.problem(
                f"'hooks' must be a list of hooks, got {describe_value(self.construct(hooks_node))}",
                node_position(hooks_node),
                fieldname="hooks",
                suggestion="write each hook as a list item starting with `- name: ...`",
            )
            return []
        specs: list[HookSpec] = []
        grouped: list[tuple[HookSpec, Entry]] = []
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
                if spec.group:
                    grouped.append((spec, entry))
        return self.groups(specs, grouped)

    def groups(self, specs: list[HookSpec], grouped: list[tuple[HookSpec, Entry]]) -> list[HookSpec]:
        """One way of combining per group: stated once (or the same everywhere) and given to every member."""
        stated: dict[str, tuple[str, Entry]] = {}
        for spec, entry in grouped:
            if spec.combine is None or spec.group is None:
                continue
            first = stated.get(spec.group)
            if first is None:
                stated[spec.group] = (spec.combine, entry)
            elif first[0] != spec.combine:
                self.problem(
                    f"group {spec.group!r} is combined {first[0]!r} by hook {first[1].label!r} "
                    f"(line {first[1].mark[0]}) but {spec.combine!r} here; a group combines one way",
                    entry.value_marks.get("combine", entry.mark),
                    entry.label,
                    "combine",
                    f"write combine: {first[0]} (or state it on one member only)",
                )
        if not grouped:
            return specs
        ways = {name: way for name, (way, _) in stated.items()}
        return [msgspec.structs.replace(s, combine=ways.get(s.group, "first")) if s.group else s for s in specs]

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
                    node_position(key_node),
                    hook,
                    str(key),
                    suggestion="remove one of them",
                )
            else:
                seen[key] = node_position(key_node)[0]
        self.loader.flatten_mapping(node)
        pairs: dict[Any, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            key = self.construct(key_node)
            try:
                hash(key)
            except TypeError:
                self.problem("a key must be a plain word, not a list or mapping", node_position(key_node), hook)
                continue
            pairs.pop(key, None)
            pairs[key] = (key_node, value_node)
        return list(pairs.values())

    def entry(self, index: int, node: yaml.Node) -> Entry | None:
        entry = Entry(index, node_position(node), span=(node.start_mark.index, node.end_mark.index))
        if not isinstance(node, yaml.MappingNode):
            value = self.construct(node)
            self.problem(
                f"each hook must be a mapping of field: value, got {describe_value(value)}",
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
            entry.key_marks[key] = node_position(key_node)
            entry.value_marks[key] = node_position(value_node)
            entry.value_nodes[key] = value_node
            entry.key_nodes[key] = key_node
        return entry

    # ------------------------------------------------------------- one hook

    def hook(self, e: Entry) -> HookSpec | None:
        before = len(self.problems)
        label = e.label
        values = e.values
        for key in values:
            if key not in KNOWN_KEYS:
                hint = did_you_mean(str(key), KNOWN_KEYS) if isinstance(key, str) else None
                # A misspelt field with one known field close to it, which the hook does not have yet:
                # renamed where it is written (a key merged in from elsewhere, `<<: *anchor`, is left alone).
                near = only_match(key, KNOWN_KEYS) if isinstance(key, str) else None
                fix = replace_scalar(self.text, e.key_nodes.get(key), near, e.span) if near and near not in values else None
                self.problem(
                    f"unknown field {key!r}; known fields are {', '.join(KNOWN_KEYS)}",
                    e.key_marks[key],
                    label,
                    str(key),
                    hint,
                    fix,
                )
        unknown = [k for k in values if isinstance(k, str) and k not in KNOWN_KEYS]
        for key in REQUIRED_BUILTIN if "builtin" in values else REQUIRED:
            if key not in values:
                typo = difflib.get_close_matches(key, unknown, n=1, cutoff=0.6)
                hint = f"is {typo[0]!r} a misspelling of it?" if typo else None
                if key == "enabled" and hint is None:
                    hint = "add `enabled: true` (or false) — the seed requires it"
                if key == "command" and hint is None:
                    hint = "the program to run; or `builtin: default` for hookd's own guards (`hookd help guards`)"
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
            "group": self.check_group,
            "combine": self.check_combine,
            "format": self.check_format,
            "shadow": self.check_shadow,
            "builtin": self.check_builtin,
            "options": self.check_options,
        }
        for key, check in checks.items():
            if key in values:
                check(e, label, values[key], e.value_marks[key])
        self.check_kinds(e, label)
        self.check_grouping(e, label)
        self.check_builtin_fields(e, label)
        if len(self.problems) != before:
            return None
        if "builtin" in values:  # `builtin: git` is `builtin: [git]`; a built-in hook is a decision hook
            packs = values["builtin"]
            values = {**values, "builtin": [packs] if isinstance(packs, str) else packs, "type": values.get("type", "decision")}
        try:
            return msgspec.convert(values, HookSpec)
        except msgspec.ValidationError as exc:  # a guard: the checks above should have caught it
            self.problem(f"invalid hook: {exc}", e.mark, label)
            return None


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
        checker = _Checker(file, loader, text)
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
