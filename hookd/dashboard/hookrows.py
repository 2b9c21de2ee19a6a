"""Each row of the page's stats says which hook it is: where it comes from, and whether it still is.

The daemon counts a hook under its name, scope, source and the call's point, for its whole life
(hookd/events/stats.py). So a hook whose file was deleted keeps its row beside a hook of the same
name from another file, and a row named ``*`` stands for every hook of a file that did not load
(core/registry.py: the hooks of an invalid file, or of one not loaded in time, are not run and
named that way). Rows are told apart by what the daemon has in force now (``list_hooks``):

- ``in_force``: False for a hook the daemon no longer has (its file is gone, or no longer names
  it), and for a ``*`` row whose file is no longer rejected (it loaded since, or is gone): the
  counts are from before; missing when the daemon did not say;
- ``every_hook_of``: on a ``*`` row, the file it stands for, and ``file_problems``: why that file
  is rejected now, when it still is.
"""

from __future__ import annotations

from typing import Any

EVERY_HOOK = "*"


def annotate(stats: dict[str, Any], hooks: dict[str, Any] | None) -> dict[str, Any]:
    """``stats`` (a ``stats`` reply as builtins) with each hook row told apart, given the daemon's
    ``list_hooks`` reply (as builtins; None: not known)."""
    in_force: set[tuple[str, str, str]] | None = None
    problems: dict[str, list[str]] = {}
    if hooks is not None:
        in_force = {(h.get("name"), h.get("scope"), h.get("source")) for h in hooks.get("hooks", [])}
        for rejected in hooks.get("rejected", []):
            problems[rejected.get("file", "")] = list(rejected.get("problems", []))
    for row in stats.get("hooks", []):
        ref = row.get("hook") or {}
        if ref.get("name") == EVERY_HOOK:
            row["every_hook_of"] = ref.get("source", "")
            if ref.get("source") in problems:
                row["file_problems"] = problems[ref["source"]]
            if in_force is not None:
                row["in_force"] = ref.get("source") in problems  # the file is still not loaded
        elif in_force is not None:
            row["in_force"] = (ref.get("name"), ref.get("scope"), ref.get("source")) in in_force
    return stats
