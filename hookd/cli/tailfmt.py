"""How `hookd tail` shows an event to a human: one line, the facts that matter first.

``time  point  session  [agent]  decision (reason) by HOOK  errors  not run  duration  payload``:
the decision and its reason come before the payload, so a line cut to the
terminal's width loses payload, not the verdict.

A line is built as segments of plain text, each with its colour, and cut to the
width (in terminal cells: wide characters count two, combining marks none)
before any colour is added, so a cut never falls inside an escape sequence and
every colour opened is closed. Every string taken from an event is cleaned of
control characters first (hookd.cli.termsafe): only hookd's own colours reach
the terminal. Pure functions (no I/O), so the format is tested without a terminal.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from hookd_client.messages import Event, Gap
from wcwidth import wcswidth, wcwidth

from hookd.cli.common import plural
from hookd.core.termsafe import clean, one_line

RESET = "\033[0m"
DIM = "\033[2m"
BOLD = "\033[1m"
RED = "\033[31m"
GREEN = "\033[32m"
YELLOW = "\033[33m"
BLUE = "\033[34m"
MAGENTA = "\033[35m"
CYAN = "\033[36m"
COLOURS = (DIM, BOLD, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, BOLD + RED)

_DECISION_COLOUR = {"deny": RED, "allow": GREEN, "ask": YELLOW, "continue": BLUE}
_KIND_COLOUR = {"emit": CYAN, "decide": MAGENTA, "internal": DIM}
ELLIPSIS = "…"

Segment = tuple[str, str]  # (text, colour); colour "" for none


def cells(text: str) -> int:
    """Terminal cells ``text`` takes (text without escape sequences), measured as a whole: a
    character's width can depend on what comes before it (a spacing mark after a letter takes a
    cell of its own, an emoji sequence joined by ZWJ takes two in all)."""
    width = wcswidth(text)
    return width if width >= 0 else sum(_cell(ch) for ch in text)


def _cell(ch: str) -> int:
    w = wcwidth(ch)
    return 1 if w < 0 else w  # a control character (never here after cleaning) counts as one


def _flat(text: str) -> str:
    """One line: runs of whitespace (newlines, tabs) become one space."""
    return " ".join(text.split())


def fit(segments: list[Segment], width: int | None, colour: bool) -> str:
    """The segments as one line of at most ``width`` cells (None: no limit); a cut line ends in an ellipsis."""
    segments = list(segments)
    while segments and not segments[-1][0].strip(" "):  # trailing padding is not content: it never forces a cut
        segments.pop()
    if segments:
        segments[-1] = (segments[-1][0].rstrip(" "), segments[-1][1])
    if width is None or cells("".join(text for text, _ in segments)) <= width:
        return _cut(segments, -1, colour)[0]
    # Cut character by character, then measured as the terminal will show the whole line: where
    # the two differ (a width that depends on the character before), cut again, shorter.
    budget = max(0, width - len(ELLIPSIS))
    while True:
        line, shown = _cut(segments, budget, colour)
        over = cells(shown) - width
        if over <= 0 or budget == 0:
            return line
        budget = max(0, budget - over)


def _cut(segments: list[Segment], budget: int, colour: bool) -> tuple[str, str]:
    """The line cut to ``budget`` cells (counted character by character; -1: not cut), and its visible text."""
    out: list[str] = []
    shown: list[str] = []
    for text, paint in segments:
        if not text:
            continue
        cut = False
        if budget >= 0:
            text, cut, used = _take(text, budget)
            budget -= used
        if text:
            out.append(f"{paint}{text}{RESET}" if colour and paint else text)
            shown.append(text)
        if cut:
            out.append(ELLIPSIS)
            shown.append(ELLIPSIS)
            break
    return "".join(out).rstrip(" "), "".join(shown).rstrip(" ")


def _take(text: str, room: int) -> tuple[str, bool, int]:
    """The longest start of ``text`` that fits in ``room`` cells (counted character by
    character), whether anything was left out, and the cells that start takes."""
    used = 0
    for i, ch in enumerate(text):
        width = _cell(ch)
        if used + width > room:
            return text[:i], True, used
        used += width
    return text, False, used


def when(ts: float, today: datetime.date | None = None) -> str:
    """Local wall time to the millisecond; the date too when it is not today."""
    dt = datetime.datetime.fromtimestamp(ts)
    stamp = dt.strftime("%H:%M:%S.") + f"{dt.microsecond // 1000:03d}"
    if dt.date() != (today or datetime.date.today()):
        stamp = dt.strftime("%Y-%m-%d ") + stamp
    return stamp


def agent_of(event: Event) -> str:
    """The agent whose call this is, as its bridge named it (hookd/core/vocabulary.py); "" for none."""
    agent = event.payload.get("agent") if isinstance(event.payload, dict) else None
    return one_line(agent) if isinstance(agent, str) else ""


def _tool(payload: dict[str, Any]) -> str:
    name = payload.get("toolName") or payload.get("tool") or ""
    own = payload.get("agentToolName")
    if isinstance(own, str) and own and own != name:
        name = f"{name} ({own})"
    args = payload.get("args")
    command = args.get("command") if isinstance(args, dict) else None
    command = command or payload.get("command")
    parts = [str(name)] if name else []
    if command:
        parts.append(str(command) if isinstance(command, str) else json.dumps(command, ensure_ascii=False))
    return " ".join(parts)


def _compact(payload: dict[str, Any]) -> str:
    if not payload:
        return ""
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)}" for k, v in payload.items())


# Why a hook of a decide was passed over without being a guard that did not run: its match filter
# did not match, an earlier final answer ended the chain, or it is turned off.
_PASSED_OVER = frozenset({"match", "decided", "disabled"})


def not_run(event: Event) -> list[str]:
    """The guards of a decide that did not run, each as ``name (reason)``, from the event's hook results.
    A file whose hooks are all missing (rejected, not loaded) is named by its file. Shadow hooks are never
    guards, so they are not named; the payload is never read for this (an agent writes it)."""
    out = []
    for run in event.hooks:
        if run.skipped is None or run.skipped in _PASSED_OVER or run.shadow or run.type != "decision":
            continue
        name = run.hook.name if run.hook.name != "*" else f"every hook of {run.hook.source}"
        out.append(f"{name} ({run.skipped})")
    return out


def _rule(event: Event) -> str:
    """`` [git.reset-hard]`` when the hook that decided named the rule it applied (a built-in guard), else ""."""
    by = event.decided_by
    for run in event.hooks:
        if run.rule and not run.shadow and run.hook == by:
            return f" [{run.rule}]"
    return ""


def _shadow_rules(event: Event) -> str:
    """What the call's shadow hooks would have answered, when any would deny or ask: ``deny [git.reset-hard] by guards``."""
    out = []
    for run in event.hooks:
        if run.shadow and run.decision in ("deny", "ask"):
            rule = f" [{run.rule}]" if run.rule else ""
            out.append(f"{run.decision}{rule} by {run.hook.name}")
    return ", ".join(out)


def _text(text: str) -> str:
    return clean(_flat(text))


def summary_segments(event: Event) -> list[Segment]:
    """Decision, reason, who decided, errors, guards that did not run, duration; then the payload."""
    payload = event.payload
    parts: list[Segment] = []
    if event.kind == "decide":
        parts.append((event.decision or "no decision", _DECISION_COLOUR.get(event.decision or "", "")))
        if event.reason:
            parts.append((f"({_text(event.reason)})", ""))
        if event.decided_by is not None:
            parts.append((f"by {_text(event.decided_by.name)}{_rule(event)}", ""))
        would = _shadow_rules(event)
        if would:  # what a shadow guard would have done: the point of trying a guard in shadow first
            parts.append((f"shadow would {_text(would)}", YELLOW))
        if event.errors:
            parts.append((plural(event.errors, "hook error"), RED))
        # A guard that did not run is named on the call's own line: a decide without it would read as an allow.
        skipped = not_run(event)
        if skipped:
            parts.append((f"not run: {_text(', '.join(skipped))}", RED))
    took = event.duration if event.duration is not None else payload.get("duration")
    if isinstance(took, int | float) and not isinstance(took, bool):
        parts.append((f"{took:g}ms", DIM))
    about = "" if event.kind == "internal" else _tool(payload)
    if not about and (event.kind != "decide" or not parts):
        about = _compact(payload)
    if about:
        parts.append((_text(about), ""))
    spaced: list[Segment] = []
    for i, seg in enumerate(parts):
        if i:
            spaced.append((" ", ""))
        spaced.append(seg)
    return spaced


def summary(event: Event, colour: bool = False) -> str:
    return fit(summary_segments(event), None, colour)


def line(event: Event, colour: bool = False, today: datetime.date | None = None, width: int | None = None) -> str:
    """``time  point  session  summary`` for one event, at most ``width`` cells (None: the whole line)."""
    # Everything from the event is cleaned of control characters: only our own colours reach the terminal.
    point = one_line(event.point)
    point_colour = RED if point.startswith(("hookd.hook.", "hookd.subscriber.")) else _KIND_COLOUR.get(event.kind, "")
    pad = " " * max(0, 28 - cells(point))
    session = one_line(event.session or "-")
    segments: list[Segment] = [
        (when(event.time, today), DIM),
        ("  ", ""),
        (point, point_colour),
        (pad + "  ", ""),
        (session + " " * max(0, 12 - cells(session)) + "  ", ""),
    ]
    agent = agent_of(event)
    if agent:
        segments.append((f"[{agent}]  ", BLUE))
    segments.extend(summary_segments(event))
    return fit(segments, width, colour)


def gap_line(gap: Gap, colour: bool = False, width: int | None = None) -> str:
    if gap.reason == "history":
        gone = "is" if gap.missed == 1 else "are"
        text = f"-- {plural(gap.missed, 'event')} (seq {gap.first}..{gap.last}) {gone} no longer in the daemon's memory --"
    else:
        text = f"-- missed {plural(gap.missed, 'event')} (seq {gap.first}..{gap.last}): this reader fell behind --"
    return fit([(text, BOLD + RED)], width, colour)


def marker_line(text: str, colour: bool = False, width: int | None = None) -> str:
    """A line of hookd's own about the stream (``-- daemon restarted --``)."""
    return fit([(f"-- {text} --", BOLD)], width, colour)
