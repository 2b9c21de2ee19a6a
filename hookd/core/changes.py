"""What a reload changed, per file: the summary that is logged and published."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hookd.core.registry import Hook


def _fingerprint(hook: Hook) -> tuple[Any, ...]:
    return (hook.spec, hook.point, hook.type, hook.priority, hook.enabled)


@dataclass(slots=True)
class Changes:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    untrusted: list[str] = field(default_factory=list)  # in force after the reload but skipped until trusted

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def as_dict(self) -> dict[str, list[str]]:
        out = {"added": self.added, "removed": self.removed, "changed": self.changed}
        if self.untrusted:
            out["untrusted"] = self.untrusted
        return out


def diff(old: Iterable[Hook], new: Iterable[Hook], untrusted: Callable[[Hook], bool] | None = None) -> Changes:
    before = {h.name: h for h in old}
    after = {h.name: h for h in new}
    return Changes(
        added=[n for n in after if n not in before],
        removed=[n for n in before if n not in after],
        changed=[n for n in after if n in before and _fingerprint(after[n]) != _fingerprint(before[n])],
        untrusted=[n for n, h in after.items() if untrusted is not None and untrusted(h)],
    )
