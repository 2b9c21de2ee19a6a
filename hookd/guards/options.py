"""A builtin hook's options read into a policy, every rule name checked against the packs' catalogue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from hookd.guards.catalogue import RULES
from hookd.guards.model import PACKS, OptionsError
from hookd.guards.policy import Policy


def _check_names(field: str, names: tuple[str, ...]) -> None:
    for name in names:
        pack, _, rest = name.partition(".")
        if rest == "*" and pack in PACKS:
            continue
        if name not in RULES:
            raise OptionsError(f"{field}: {name!r} is no rule of a pack (rules are named <pack>.<rule>, or <pack>.* for a whole pack)")


def policy(options: Mapping[str, Any] | None) -> Policy:
    """The policy a builtin hook's options describe; raises OptionsError naming the field that is wrong."""
    if options is None:
        return Policy()
    if not isinstance(options, Mapping):
        raise OptionsError(f"options: expected a mapping, got {type(options).__name__}")
    try:
        made = msgspec.convert(dict(options), Policy)
    except msgspec.ValidationError as e:
        raise OptionsError(f"options: {e}") from None
    _check_names("allow", made.allow)
    _check_names("ask", made.ask)
    if made.force_with_lease not in ("allow", "deny"):
        raise OptionsError(f"force_with_lease: expected 'allow' or 'deny', got {made.force_with_lease!r}")
    for field, values in (("protected_branches", made.protected_branches), ("protected_paths", made.protected_paths)):
        for value in values:
            if not value.strip():
                raise OptionsError(f"{field}: an empty name protects nothing")
    return made
