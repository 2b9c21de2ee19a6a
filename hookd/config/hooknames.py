"""Which file of a scope keeps a hook name: one rule for the daemon and for `hookd check`.

Hook names are unique in a scope (the global files, or the files of one project). When two
files of a scope define the same name, one keeps it and the other is rejected as a whole
(a file never half-loads):

1. a file whose hook of that name is in force keeps it: a rejected file never takes an
   accepted file's guards down with it;
2. else a file whose last accepted version (kept in the state directory, hookd/config/accepted.py)
   defines the name keeps it. A restart loads the files in load order, whatever order they
   were created in; the kept versions are what makes it give every name back to the file
   that held it before, so the guards in force after a restart are those in force before;
3. else (both or neither held it) the file that comes first in load order keeps it.

The loser's problem names the hook, the file that keeps it and why. The daemon applies the
rule file by file as it loads them (hookd/daemon/handlers/files.py, :func:`clashes`); `hookd check`
replays a start of the daemon from the same kept versions (:func:`settle`), so both reject
the same file with the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from hookd.config.problems import Problem

CLASH = "duplicate hook name in this scope:"


@dataclass(frozen=True, slots=True)
class Holder:
    """Another file of the scope, as far as names go."""

    path: str
    in_force: frozenset[str]  # names of its hooks in force now
    claimed: frozenset[str]  # names of its last accepted version


def clashes(path: str, names: Iterable[str], claimed: frozenset[str], others: Iterable[Holder], order: Sequence[str]) -> list[Problem]:
    """The problems of ``path`` (defining ``names``; its last accepted version ``claimed``) with the
    other files of its scope, one per name another file keeps; [] when it may take every name."""
    rank = _ranks(order)
    mine = rank(path)
    ranked = sorted((h for h in others if h.path != path), key=lambda h: rank(h.path))
    problems: list[Problem] = []
    for name in names:
        for other in ranked:
            # One wording whichever step decided: a restart, which may meet the files in another order,
            # must refuse a file in the words the running daemon used.
            if name in other.in_force or (name in other.claimed and (name not in claimed or rank(other.path) < mine)):
                problems.append(problem(path, name, other.path))
                break
    return problems


def problem(path: str, name: str, keeper: str) -> Problem:
    message = f"{CLASH} {name!r}: {keeper} already defines it and keeps it (the file that held the name first keeps it)"
    return Problem(path, message, name, "name", suggestion="rename one of them")


def only_clashes(problems: Sequence[Problem]) -> bool:
    """Whether a file was refused for name clashes alone (it may load once the other file lets go)."""
    return bool(problems) and all(p.message.startswith(CLASH) for p in problems)


def kept_refused(problems: Sequence[Problem]) -> str:
    """Why a rejected file's accepted version cannot stand in for it either."""
    return f"its last accepted version cannot stand in for it ({problems[0]})"


def _ranks(order: Sequence[str]) -> Callable[[str], tuple[int, str]]:
    index = {p: i for i, p in enumerate(order)}
    return lambda p: (index.get(p, len(index)), p)


# --------------------------------------------------------- a start, replayed


@dataclass(slots=True)
class Settled:
    """What loading a scope leaves of one file."""

    problems: list[Problem]  # why its version as read is rejected ([]: accepted)
    in_force: tuple[str, ...] | None  # names in force from it; None: nothing, its hooks are missing
    from_kept: bool = False  # its last accepted version stands in for it
    kept_refused: str = ""  # why its last accepted version could not stand in


def settle(
    order: Sequence[str], current: Mapping[str, Sequence[str] | list[Problem]], kept: Mapping[str, Sequence[str]]
) -> dict[str, Settled]:
    """Load the files of one scope in ``order`` as the daemon does when it starts.

    ``current[path]``: the hook names of the file as it is now, or the problems that make it invalid
    on its own (an absent file is not in ``order``); ``kept[path]``: the names of its last accepted
    version, if one is kept. The daemon's steps, one file at a time: a valid file takes its names
    unless :func:`clashes` says otherwise; a rejected file with nothing in force gets its accepted
    version in force if that one clashes with nothing, else its hooks are missing (and its accepted
    version is forgotten); a file accepted lets the files refused for clashes alone try again.
    """
    claims: dict[str, frozenset[str]] = {p: frozenset(kept.get(p, ())) for p in order}
    in_force: dict[str, frozenset[str]] = {}
    out: dict[str, Settled] = {}

    def holders(path: str) -> list[Holder]:
        return [Holder(p, in_force.get(p, frozenset()), claims[p]) for p in order if p != path]

    def apply(path: str) -> None:
        now = current[path]
        if now and isinstance(now[0], Problem):
            reject(path, list(now))  # type: ignore[arg-type]
            return
        names = [str(n) for n in now]
        problems = clashes(path, names, claims[path], holders(path), order)
        if problems:
            reject(path, problems)
            return
        in_force[path] = claims[path] = frozenset(names)
        out[path] = Settled([], tuple(names))
        for sibling in order:
            if sibling != path and sibling in out and only_clashes(out[sibling].problems):
                apply(sibling)

    def reject(path: str, problems: list[Problem]) -> None:
        before = out.get(path)
        if before is not None and before.in_force is not None:
            out[path] = Settled(problems, before.in_force, before.from_kept)  # what was in force stays
            return
        names = tuple(kept.get(path, ())) if path in kept and claims[path] == frozenset(kept[path]) else None
        if names is None:
            out[path] = Settled(problems, None)
            return
        refused = clashes(path, names, claims[path], holders(path), order)
        if refused:
            claims[path] = frozenset()  # the daemon forgets an accepted version that can never stand in
            out[path] = Settled(problems, None, kept_refused=kept_refused(refused))
            return
        in_force[path] = frozenset(names)
        out[path] = Settled(problems, names, from_kept=True)

    for path in order:
        apply(path)
    return out
