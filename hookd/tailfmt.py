"""How `hookd tail` shows an event to a human: one line, the facts that matter first.

Pure functions (no I/O), so the format is tested without a terminal. Every
string taken from an event is cleaned of control characters (hookd.cli.termsafe).
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from hookd_client.messages import Event, Gap

from hookd.cli.termsafe import clean, one_line

RESET = "\033[0m"
DIM = "\033[2m"
BOLD = "\033[1m"
RED = "\033[31m"
GREEN = "\033[32m"
YELLOW = "\033[33m"
BLUE = "\033[34m"
MAGENTA = "\033[35m"
CYAN = "\033[36m"

_DECISION_COLOUR = {"deny": RED, "allow": GREEN, "ask": YELLOW, "continue": BLUE}
_KIND_COLOUR = {"emit": CYAN, "decide": MAGENTA, "internal": DIM}
_SUMMARY_WIDTH = 100


def _paint(text: str, colour: str, on: bool) -> str:
    return f"{colour}{text}{RESET}" if on and colour else text


def _clip(text: str, width: int = _SUMMARY_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def when(ts: float, today: datetime.date | None = None) -> str:
    """Local wall time to the millisecond; the date too when it is not today."""
    dt = datetime.datetime.fromtimestamp(ts)
    stamp = dt.strftime("%H:%M:%S.") + f"{dt.microsecond // 1000:03d}"
    if dt.date() != (today or datetime.date.today()):
        stamp = dt.strftime("%Y-%m-%d ") + stamp
    return stamp


def _tool(payload: dict[str, Any]) -> str:
    name = payload.get("toolName") or payload.get("tool") or ""
    args = payload.get("args")
    command = args.get("command") if isinstance(args, dict) else None
    command = command or payload.get("command")
    parts = [str(name)] if name else []
    if command:
        parts.append(str(command) if isinstance(command, str) else json.dumps(command, ensure_ascii=False))
    return clean(" ".join(parts))


def _compact(payload: dict[str, Any]) -> str:
    if not payload:
        return ""
    return clean(" ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}" for k, v in payload.items()))


def _not_run_name(item: Any) -> str:
    if isinstance(item, dict):
        hook = item.get("hook") if isinstance(item.get("hook"), dict) else item
        return f"{hook.get('name', '?')} ({item.get('reason', '?')})"
    hook = getattr(item, "hook", None)
    return f"{getattr(hook, 'name', '?')} ({getattr(item, 'reason', '?')})"


def summary(event: Event, colour: bool = False) -> str:
    """Tool and command, decision and reason, durations; else the payload in brief."""
    payload = event.payload
    parts: list[str] = []
    if event.kind == "internal":
        parts.append(_compact(payload))
    else:
        tool = _tool(payload)
        if tool:
            parts.append(tool)
    if event.kind == "decide":
        verdict = event.decision or "no decision"
        parts.append(_paint(verdict, _DECISION_COLOUR.get(event.decision or "", ""), colour))
        if event.reason:
            parts.append(f"({clean(event.reason)})")
        if event.decided_by is not None:
            parts.append(f"by {clean(event.decided_by.name)}")
        if event.errors:
            parts.append(_paint(f"{event.errors} hook error{'s' if event.errors != 1 else ''}", RED, colour))
        # Guards that did not run, once the bus carries them on decide events (an Event field or the outcome summary).
        skipped = getattr(event, "not_run", None)
        outcome = payload.get("outcome")
        if not skipped and isinstance(outcome, dict):
            skipped = outcome.get("notRun")
        if skipped and isinstance(skipped, list):
            names = ", ".join(_not_run_name(n) for n in skipped)
            parts.append(_paint(f"not run: {clean(names)}", RED, colour))
    elif event.kind != "internal" and not parts:
        parts.append(_compact(payload))
    took = event.duration if event.duration is not None else payload.get("duration")
    if isinstance(took, int | float) and not isinstance(took, bool):
        parts.append(_paint(f"{took:g}ms", DIM, colour))
    return _clip(" ".join(p for p in parts if p), _SUMMARY_WIDTH + (40 if colour else 0))


def line(event: Event, colour: bool = False, today: datetime.date | None = None) -> str:
    """``time  point  session  summary`` for one event."""
    # Everything from the event is cleaned of control characters: only our own colours reach the terminal.
    point = one_line(event.point)
    point_colour = RED if point.startswith(("hookd.hook.", "hookd.subscriber.")) else _KIND_COLOUR.get(event.kind, "")
    return "  ".join(
        (
            _paint(when(event.time, today), DIM, colour),
            _paint(f"{point:<28}", point_colour, colour),
            f"{one_line(event.session or '-'):<12}",
            summary(event, colour),
        )
    ).rstrip()


def gap_line(gap: Gap, colour: bool = False) -> str:
    if gap.reason == "history":
        text = f"-- {gap.missed} events (seq {gap.first}..{gap.last}) are no longer in the daemon's memory --"
    else:
        text = f"-- missed {gap.missed} events (seq {gap.first}..{gap.last}): this reader fell behind --"
    return _paint(text, BOLD + RED, colour)
