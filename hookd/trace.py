"""A decide's trace: what each hook of the call saw, answered and wrote.

Asked for per call (``trace`` on decide); a call without it pays nothing here but the
check of one context variable when a command hook ends. The runner that ran a hook
hands its output to :func:`output`; the engine, which set :data:`CAPTURE` around that
one hook's run, puts excerpts of it in the hook's entry. A context variable, because the
runners' signature is shared by every kind of hook and most have no output to give.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from hookd_client.messages import TraceEntry
from hookd_client.messages.observe import TRACE_EXCERPT

from .intake import safe_text


class Capture:
    """What one hook wrote, as excerpts."""

    __slots__ = ("stderr", "stdout")

    def __init__(self) -> None:
        self.stdout: str | None = None
        self.stderr: str | None = None


CAPTURE: ContextVar[Capture | None] = ContextVar("hookd_trace_capture", default=None)


def excerpt(data: bytes | str) -> str | None:
    """The first TRACE_EXCERPT bytes (or characters) of ``data`` as text, saying how much was cut."""
    if not data:
        return None
    size = len(data)
    head = data[:TRACE_EXCERPT]
    text = head.decode("utf-8", "replace") if isinstance(head, bytes) else head
    text = safe_text(text)
    if size > TRACE_EXCERPT:
        # The runner's own caps (stdout_cap, stderr_cap) bound what is counted here.
        text += f"\n[... {size - TRACE_EXCERPT} more {'bytes' if isinstance(data, bytes) else 'characters'} not shown]"
    return text


def output(stdout: bytes | str, stderr: bytes | str) -> None:
    """A runner's report of what a hook wrote; kept only when the call is traced."""
    capture = CAPTURE.get()
    if capture is not None:
        capture.stdout = excerpt(stdout)
        capture.stderr = excerpt(stderr)


class Tracer:
    """The entries of one traced call, in the order the hooks came up."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[TraceEntry] = []

    def add(self, entry: TraceEntry | None) -> None:
        if entry is not None:
            self.entries.append(entry)

    def skipped(self, hook: Any, reason: str, why: str, payload: dict[str, Any] | None = None, shadow: bool = False) -> None:
        ref = hook.ref if hasattr(hook, "ref") else hook
        kind = getattr(hook, "type", "decision")
        self.entries.append(TraceEntry(ref, kind, payload, skipped=reason, why=why, shadow=shadow))  # type: ignore[arg-type]


def unmatched(hook: Any, payload: dict[str, Any]) -> str:
    """Which entry of a hook's ``match`` filter the payload fails, for a person reading the trace."""
    from .matcher import _MISSING, Matcher, lookup

    match = dict(getattr(hook.spec, "match", None) or {})
    for path, pattern in match.items():
        if not Matcher({path: pattern})(payload):
            found = lookup(payload, tuple(path.split(".")))
            seen = "the payload has no such field" if found is _MISSING else f"got {safe_text(repr(found))[:200]}"
            return f"match {path}: {pattern!r} does not match ({seen})"
    return "its match filter does not match the payload"


def entry_of(hook: Any, payload: dict[str, Any], answer: Any, run: Any, capture: Capture) -> TraceEntry:
    """A ran hook's trace entry from its result and what it wrote."""
    from hookd_client.messages import Decision

    return TraceEntry(
        run.hook,
        hook.type,
        payload,
        answer if isinstance(answer, Decision) else None,
        run.ms,
        run.error,
        run.message,
        run.skipped,
        run.message if run.skipped is not None else None,
        capture.stdout,
        capture.stderr,
    )
