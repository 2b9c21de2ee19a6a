"""Hints for hook authors, added to a hook's error where a habit from another tool explains it.

A Claude Code hook blocks an action by exiting 2 with the reason on stderr.
In hookd any non-zero exit is a hook error, handled by the hook's ``on_error``
(``continue`` by default: the call goes on), so such a hook, configured as is,
would let through what it meant to block. The error says so, and how to write
the same hook for hookd.
"""

from __future__ import annotations


def exit_status_hint(command: str, code: int, decision: bool) -> str:
    """What to add to "COMMAND exited with status CODE" for a hook ("" when nothing is worth saying)."""
    if code != 2 or not decision:
        return ""
    return (
        " (exit 2 blocks the action in Claude Code; in hookd a non-zero exit is a hook error, handled by the "
        'hook\'s on_error. To deny, print {"decision": "deny", "reason": "..."} on stdout and exit 0; '
        "or keep the script as it is and add `format: claude-code` to the hook, so hookd reads its exit codes "
        "and JSON as Claude Code does)"
    )
