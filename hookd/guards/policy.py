"""The policy the packs apply: rules allowed or asked by name, protected branches and paths."""

from __future__ import annotations

import msgspec


class Policy(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    allow: tuple[str, ...] = ()  # rule names, or "<pack>.*", that never fire
    ask: tuple[str, ...] = ()  # rule names (or "<pack>.*") answered "ask" instead of "deny"
    protected_branches: tuple[str, ...] = ("main", "master")
    protected_paths: tuple[str, ...] = ()  # extra paths never to delete or overwrite (~, $HOME, project-relative)
    force_with_lease: str = "allow"  # "allow" | "deny": git push --force-with-lease to a protected branch

    def allowed(self, rule: str) -> bool:
        return _matches(rule, self.allow)

    def decision(self, rule: str) -> str:
        return "ask" if _matches(rule, self.ask) else "deny"


def _matches(rule: str, names: tuple[str, ...]) -> bool:
    if not names:
        return False
    return rule in names or rule.split(".", 1)[0] + ".*" in names
