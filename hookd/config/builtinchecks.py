"""The checks of a built-in hook (``builtin: PACK``, docs/guards.md): its packs, its options, and
the fields it has no use for.

A mixin of :class:`hookd.config.validator._Checker`, as :mod:`hookd.config.hookchecks` is. Each
problem names the field at fault down to the option and the list item (``options.allow[1]``), and
a misspelt pack or rule name with one known name close to it carries its fix (`hookd check --fix`).
hookd.guards has the last word on the options: whatever it refuses that the checks here did not
word is reported with its own message. It is imported when a file has a built-in hook, not before:
reading every other hook file (and building the command line's manual page, where the packs' shell
parser is not installed) needs none of it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import yaml

from hookd.config.problems import Entry, ProblemReport, describe_value, did_you_mean, node_position, only_match, replace_scalar

DEFAULT = "default"  # `builtin: default`: every pack of guards.DEFAULT
# The options of guards.Policy, and what each holds.
LISTS = ("allow", "ask", "protected_branches", "protected_paths")
RULE_LISTS = ("allow", "ask")
FORCE_WITH_LEASE = ("allow", "deny")
OPTIONS = (*LISTS, "force_with_lease")
# The fields of a command hook a built-in hook has no use for: it runs in the daemon, in microseconds.
COMMAND_ONLY = ("command", "args", "env", "cwd", "mode", "concurrency", "format", "timeout")


# The packs are imported inside the functions below: a hook file without a built-in hook never loads them.


@cache
def pack_names() -> tuple[str, ...]:
    """What `builtin` may name: each pack, and default."""
    from hookd.guards.model import PACKS

    return (*PACKS, DEFAULT)


@cache
def _rule_names() -> tuple[str, ...]:
    from hookd.guards.catalogue import rules
    from hookd.guards.model import PACKS

    names: list[str] = []
    for pack in PACKS:
        names.append(f"{pack}.*")
        names.extend(name for name, _ in rules(pack))
    return tuple(names)


def expand(packs: list[str]) -> list[str]:
    """The packs ``builtin`` names, ``default`` expanded."""
    from hookd.guards import model

    default = model.DEFAULT
    out: list[str] = []
    for name in packs:
        for pack in default if name == DEFAULT else (name,):
            if pack not in out:
                out.append(pack)
    return out


class BuiltinChecks(ProblemReport):
    """``builtin`` and ``options``, reported through the file's :class:`ProblemReport`; the class using it provides the entry."""

    @staticmethod
    def _items(node: yaml.Node | None) -> list[yaml.Node | None]:
        return list(node.value) if isinstance(node, yaml.SequenceNode) else []

    def _name(
        self, node: yaml.Node | None, value: Any, choices: tuple[str, ...], where: str, label: str, at: tuple[int, int], what: str
    ) -> bool:
        """One name among ``choices``; a problem at its node (with a fix for a lone near miss) if not."""
        if isinstance(value, str) and value in choices:
            return True
        spot = node_position(node) if node is not None else at
        if not isinstance(value, str):
            self.problem(f"a {what} name must be a string, got {describe_value(value)}", spot, label, where)
            return False
        near = only_match(value, choices, 0.6)
        fix = replace_scalar(self.text, node, near) if near else None
        hint = did_you_mean(value, choices, 0.6) or (
            f"the packs are {', '.join(choices)}" if what == "pack" else "`hookd help guards` lists every rule of every pack"
        )
        self.problem(f"unknown {what} {value!r}", spot, label, where, hint, fix)
        return False

    def check_builtin(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        names = pack_names()
        what = f"a pack ({', '.join(names[:-1])}, or {DEFAULT} for all of them)"
        node = e.value_nodes.get("builtin")
        if isinstance(value, str):
            self._name(node, value, names, "builtin", label, at, "pack")
            return
        if not isinstance(value, list) or not value:
            self.problem(
                f"builtin must name {what} or a list of packs, got {describe_value(value)}",
                at,
                label,
                "builtin",
                "e.g. builtin: default, or builtin: [files, git]",
            )
            return
        items = self._items(node)
        for i, item in enumerate(value):
            self._name(items[i] if i < len(items) else None, item, names, f"builtin[{i}]", label, at, "pack")

    def check_options(self, e: Entry, label: str, value: Any, at: tuple[int, int]) -> None:
        if not self.is_mapping(label, "options", value, at, "option: value", f"the options are {', '.join(OPTIONS)}"):
            return
        node = e.value_nodes.get("options")
        keys: dict[Any, yaml.Node] = {}
        values: dict[Any, yaml.Node] = {}
        if isinstance(node, yaml.MappingNode):
            for k_node, v_node in node.value:
                if isinstance(k_node, yaml.ScalarNode):
                    keys[k_node.value] = k_node
                    values[k_node.value] = v_node
        before = self._count()
        written = e.values.get("builtin")
        packs = expand([p for p in (written if isinstance(written, list) else [written]) if isinstance(p, str)])
        rules = _rule_names()
        for key, item in value.items():
            where = f"options.{key}"
            spot = node_position(values[key]) if key in values else at
            if key not in OPTIONS:
                near = only_match(str(key), OPTIONS, 0.6) if isinstance(key, str) else None
                fix = replace_scalar(self.text, keys.get(key), near) if near and near not in value else None
                hint = did_you_mean(str(key), OPTIONS, 0.6) or f"the options are {', '.join(OPTIONS)}"
                self.problem(f"unknown option {key!r}", node_position(keys[key]) if key in keys else at, label, "options", hint, fix)
            elif key == "force_with_lease":
                if item not in FORCE_WITH_LEASE:
                    near = only_match(item, FORCE_WITH_LEASE, 0.5) if isinstance(item, str) else None
                    fix = replace_scalar(self.text, values.get(key), near) if near else None
                    self.problem(f"must be 'allow' or 'deny', got {describe_value(item)}", spot, label, where, None, fix)
            elif not isinstance(item, list):
                hint = f"write {key}: [{item}]" if isinstance(item, str) else None
                self.problem(f"must be a list of strings, got {describe_value(item)}", spot, label, where, hint)
            else:
                nodes = self._items(values.get(key))
                for i, entry in enumerate(item):
                    at_i = node_position(nodes[i]) if i < len(nodes) and nodes[i] is not None else spot
                    if key in RULE_LISTS:
                        if self._name(nodes[i] if i < len(nodes) else None, entry, rules, f"{where}[{i}]", label, at_i, "rule"):
                            self._in_packs(entry, packs, f"{where}[{i}]", label, at_i)
                    elif not isinstance(entry, str) or not entry.strip():
                        self.problem(f"item {i} must be a non-empty string, got {describe_value(entry)}", at_i, label, where)
        if self._count() == before:
            from hookd.guards.options import OptionsError, policy

            try:
                policy(value)
            except OptionsError as exc:  # what the packs refuse that the checks above did not word
                self.problem(str(exc), at, label, "options")

    def _in_packs(self, rule: str, packs: list[str], where: str, label: str, at: tuple[int, int]) -> None:
        pack = rule.partition(".")[0]
        if packs and pack not in packs:
            self.problem(
                f"{rule!r} is a rule of the {pack} pack, which this hook does not run (it runs {', '.join(packs)})",
                at,
                label,
                where,
                f"add {pack} to builtin, or remove {rule}",
            )

    def _count(self) -> int:
        return len(getattr(self, "problems", ()))

    def check_builtin_fields(self, e: Entry, label: str) -> None:
        """Cross-field rules: a built-in hook decides, runs no program, and only it takes options."""
        values = e.values
        if "builtin" not in values:
            if "options" in values:
                self.problem(
                    "options belong to a built-in hook (builtin: PACK); a command hook takes args and env",
                    e.key_marks["options"],
                    label,
                    "options",
                    "remove options, or add builtin: default",
                )
            return
        for key in COMMAND_ONLY:
            if key in values:
                why = "it runs hookd's packs, not a program" if key == "command" else "it runs in the daemon, with no process"
                self.problem(f"a built-in hook has no {key}: {why}", e.key_marks[key], label, key, f"remove {key}")
        if "type" in values and values["type"] != "decision":
            self.problem(
                "a built-in hook is a decision hook: its packs deny or ask",
                e.value_marks["type"],
                label,
                "type",
                "write type: decision, or leave type out",
            )
