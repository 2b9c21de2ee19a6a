"""The guards' data: the call's context, a finding, the packs' names."""

from __future__ import annotations

from typing import NamedTuple

PACKS: tuple[str, ...] = ("files", "git", "infra", "secrets", "publish")
DEFAULT: tuple[str, ...] = PACKS


class OptionsError(ValueError):
    """A builtin hook's options that cannot be a policy; the message names the field and what was wrong.
    Here, with the packs' data, so that whoever catches it need not load the packs."""


class Context(NamedTuple):
    """What the packs know of the call beyond its arguments."""

    cwd: str | None  # the call's working directory, may be None
    project: str | None  # the project root hookd resolved for the call, may be None
    home: str  # the user's home directory


class Finding(NamedTuple):
    """A rule of a pack that fired: the decision, and why, for a person."""

    pack: str  # "git"
    rule: str  # "git.reset-hard": the name a policy allows or asks
    decision: str  # "deny" or "ask"
    reason: str  # what the command would destroy, and the safer command instead
    command: str  # the one offending simple command as parsed


class Hit(NamedTuple):
    """What a rule says before the policy has its word: the rule's full name and the reason."""

    rule: str
    reason: str
