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

import msgspec
from hookd_client.messages import TraceEntry
from hookd_client.messages.observe import TRACE_EXCERPT

from hookd.core.intake import safe_text

_encode = msgspec.msgpack.Encoder().encode


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


# A trace repeats the call's payload for every hook: past this size (msgpack bytes) an input is
# replaced by a note, so a traced call on a large payload still fits in a reply frame.
TRACE_INPUT_MAX = 64 * 1024


class Tracer:
    """The entries of one traced call, in the order the hooks came up."""

    __slots__ = ("_sizes", "entries")

    def __init__(self) -> None:
        self.entries: list[TraceEntry] = []
        self._sizes: dict[int, tuple[dict[str, Any], int]] = {}  # by the payload's id (kept alive here)

    def _bounded(self, payload: dict[str, Any] | None) -> dict[str, Any] | None:
        if payload is None:
            return None
        known = self._sizes.get(id(payload))
        if known is None:
            try:
                size = len(_encode(payload))
            except Exception:  # what msgpack cannot carry is shown as the event would show it
                size = TRACE_INPUT_MAX + 1
            known = self._sizes[id(payload)] = (payload, size)
        size = known[1]
        if size <= TRACE_INPUT_MAX:
            return payload
        return {"hookd.trace": f"an input of {size} bytes, over the {TRACE_INPUT_MAX} a trace shows"}

    def add(self, entry: TraceEntry | None) -> None:
        if entry is not None:
            entry.input = self._bounded(entry.input)
            self.entries.append(entry)

    def skipped(self, hook: Any, reason: str, why: str, payload: dict[str, Any] | None = None, shadow: bool = False) -> None:
        ref = hook.ref if hasattr(hook, "ref") else hook
        kind = getattr(hook, "type", "decision")
        entry = TraceEntry(ref, kind, self._bounded(payload), skipped=reason, why=why, shadow=shadow)  # type: ignore[arg-type]
        self.entries.append(entry)


def unmatched(hook: Any, payload: dict[str, Any]) -> str:
    """Which entry of a hook's ``match`` filter the payload fails, for a person reading the trace."""
    from hookd.core.matcher import MISSING, Matcher, lookup

    match = dict(getattr(hook.spec, "match", None) or {})
    for path, pattern in match.items():
        if not Matcher({path: pattern})(payload):
            found = lookup(payload, tuple(path.split(".")))
            seen = "the payload has no such field" if found is MISSING else f"got {safe_text(repr(found))[:200]}"
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
