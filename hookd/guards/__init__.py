"""The guard packs hookd ships (files, git, infra, secrets, publish): pure rules
that read a tool call with a real shell parser and name what it would destroy.

Pure: no event loop, no processes, no files; everything about the call comes in :class:`Context`.
The daemon's ``builtin`` hook type calls :func:`check`; docs/guards-rules.md lists every rule.
"""

from hookd.guards.catalogue import rules
from hookd.guards.check import check
from hookd.guards.model import DEFAULT, PACKS, Context, Finding
from hookd.guards.options import OptionsError, policy
from hookd.guards.policy import Policy

__all__ = ["DEFAULT", "PACKS", "Context", "Finding", "OptionsError", "Policy", "check", "policy", "rules"]
