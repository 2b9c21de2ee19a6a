"""How long an agent waits for a hook, and how long hookd may take to answer it: always less.

An agent kills a hook that outlives its timeout and reads nothing from it. Under ``--fail-closed`` that
is the one outcome that must never happen, since the agent then runs the tool unchecked. So every
install writes, for every hook, the agent's own timeout and a deadline for hookd strictly below it:
the shim's and the Python bridge's ``--timeout``, and on the HTTP hooks the daemon answers itself the
``X-Hookd-Timeout`` header, the time within which the daemon must answer. The margin between the two
leaves room for the answer to reach the agent: a second for the shortest budgets, two seconds for
short ones, 2 % for long ones (600 s -> 588 s).
"""

from __future__ import annotations

import math

# The header an HTTP hook carries: the seconds within which the daemon must answer it.
HEADER = "X-Hookd-Timeout"
# The shortest `--timeout` an install accepts: below it hookd would have under a second to answer.
MIN_TIMEOUT = 2
# JavaScript timers (Claude Code, Gemini CLI and Qwen Code run on them) hold at most 2**31 - 1 ms; a
# longer timeout overflows and fires at once, killing every hook.
MAX_TIMEOUT = (2**31 - 1) // 1000
# Claude Code gives all SessionEnd hooks 1.5 s together (newer versions more, when the hooks ask).
CLAUDE_SESSION_END_BUDGET = 1.5


class TimeoutRefused(ValueError):
    """A ``--timeout`` the agent cannot honour; the message says why and what to use."""


def margin(agent_timeout: float) -> float:
    """How much sooner than the agent hookd gives up."""
    if agent_timeout > 3:
        return float(max(2, math.ceil(agent_timeout * 0.02)))
    if agent_timeout >= 2:
        return 1.0
    return agent_timeout / 3


def deadline(agent_timeout: float) -> float:
    """hookd's deadline for a hook the agent waits ``agent_timeout`` seconds for: strictly below it."""
    return agent_timeout - margin(agent_timeout)


def text(seconds: float) -> str:
    """Seconds as written on a command line or in a header: ``588``, ``1``, ``0.667``."""
    if seconds == int(seconds):
        return str(int(seconds))
    return f"{seconds:.3f}".rstrip("0")


def check(timeout: int, agent: str) -> int:
    """``timeout`` if the agent can honour it with a deadline for hookd below it, else TimeoutRefused."""
    if timeout < MIN_TIMEOUT:
        raise TimeoutRefused(
            f"--timeout {timeout}: {agent} would give hookd under a second to answer (hookd answers a margin before "
            f"{agent} gives up, so that {agent} hears the answer rather than killing the hook); use at least {MIN_TIMEOUT}"
        )
    if timeout > MAX_TIMEOUT:
        raise TimeoutRefused(
            f"--timeout {timeout}: over {MAX_TIMEOUT} s the timers of the JavaScript agents overflow and fire at once, "
            f"so {agent} could kill every hook at its start; use at most {MAX_TIMEOUT}"
        )
    return timeout
