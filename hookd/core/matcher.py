"""`match` filters: which payloads a hook wants to see, decided before any process starts.

``match`` maps a payload field (``toolName``) or a dotted path into nested
objects (``args.command``, ``args.files.0``) to a regular expression. A hook
runs only when every entry matches: the value is found and the expression is
found in it (``re.search``; anchor with ``^...$`` for an exact match). Strings
are matched as they are, numbers and booleans as their JSON text, a list when
any of its scalar items matches; a missing field or a mapping never matches.
``toolName`` matches the tool's name in hookd's vocabulary (``execute_command``)
or the agent's own name for it (``agentToolName``: ``Bash``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

MISSING = object()


def lookup(payload: Any, path: tuple[str, ...]) -> Any:
    value = payload
    for part in path:
        if isinstance(value, Mapping):
            value = value.get(part, MISSING)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
        if value is MISSING:
            return MISSING
    return value


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    return None


# A tool has two names (hookd/core/vocabulary.py): hookd's (``execute_command``) and the agent's own
# (``Bash``). ``toolName`` in a filter matches either, so a guard written before the vocabulary, or
# for one agent's tools, still sees that agent's calls.
_ALSO: dict[tuple[str, ...], tuple[str, ...]] = {("toolName",): ("agentToolName",)}


def _found(payload: Any, path: tuple[str, ...], pattern: re.Pattern[str]) -> bool | None:
    """Whether ``pattern`` is found in the value at ``path``; None when there is no such value."""
    value = lookup(payload, path)
    if value is MISSING:
        return None
    items = value if isinstance(value, list) else (value,)
    for item in items:
        text = _text(item)
        if text is not None and pattern.search(text):
            return True
    return False


class Matcher:
    """A compiled ``match`` mapping. Calling it with a payload says whether the hook runs."""

    __slots__ = ("rules", "source")

    def __init__(self, spec: Mapping[str, str]) -> None:
        self.source = dict(spec)
        rules = []
        for path, pattern in spec.items():
            parts = tuple(path.split("."))
            rules.append((parts, re.compile(pattern), _ALSO.get(parts)))
        self.rules = tuple(rules)

    def __call__(self, payload: Mapping[str, Any]) -> bool:
        for path, pattern, also in self.rules:
            if not _found(payload, path, pattern) and (also is None or not _found(payload, also, pattern)):
                return False
        return True

    def __repr__(self) -> str:
        return f"Matcher({self.source!r})"


def compile_match(spec: Mapping[str, str] | None) -> Matcher | None:
    """None for no filter (the common case: the engine then skips the check entirely)."""
    return Matcher(spec) if spec else None
