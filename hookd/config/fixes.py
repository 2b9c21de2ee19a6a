"""Applying the fixes the validator found to a hook file's text (`hookd check --fix`).

Each fix replaces the text of one scalar, where the validator read it: nothing else of the file
changes, so its comments, quoting, order and line endings stay as written. Fixes are applied
again on the text they produced until none is left (a misspelt key fixed may reveal a value
to fix), a bounded number of rounds. A fix whose text is no longer where the validator saw it,
or that overlaps one already taken, is skipped: the problem is then reported as left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hookd.config.problems import ConfigInvalid, Problem
from hookd.config.validator import validate

ROUNDS = 10  # a fix reveals at most one more in practice (a key, then its value); this only bounds it


@dataclass
class Fixed:
    """What fixing a text did: the text after, the problems fixed (as found, in order), and what is left."""

    text: str
    fixed: list[Problem] = field(default_factory=list)
    left: list[Problem] = field(default_factory=list)


def _problems(text: str, file: str) -> list[Problem]:
    try:
        validate(text, file)
    except ConfigInvalid as exc:
        return exc.problems
    return []


def apply(text: str, problems: list[Problem]) -> tuple[str, list[Problem]]:
    """``text`` with the fixes of ``problems`` applied, and the problems whose fix was applied."""
    taken: list[Problem] = []
    spans: list[tuple[int, int]] = []
    for problem in problems:
        fix = problem.fix
        if fix is None or text[fix.start : fix.end] != fix.old:
            continue
        if any(fix.start < end and start < fix.end for start, end in spans):
            continue  # two problems, one spot: the first fix is taken (a second one with the same edit is the same fix)
        spans.append((fix.start, fix.end))
        taken.append(problem)
    for problem in sorted(taken, key=lambda p: p.fix.start if p.fix else 0, reverse=True):
        assert problem.fix is not None
        text = text[: problem.fix.start] + problem.fix.new + text[problem.fix.end :]
    return text, taken


def fix(text: str, file: str) -> Fixed:
    """Every fix of ``text``'s problems applied, round after round, and the problems left."""
    out = Fixed(text)
    for _ in range(ROUNDS):
        problems = _problems(out.text, file)
        out.text, taken = apply(out.text, problems)
        out.fixed += taken
        if not taken:
            out.left = problems
            return out
    out.left = _problems(out.text, file)
    return out
