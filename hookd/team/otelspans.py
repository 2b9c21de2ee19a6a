"""Journal events as OpenTelemetry spans, built with the official SDK.

One span per call (``decide <point>``, ``emit <point>``), timed from the event:
it ends at the event's time, and a decide starts its chain's duration earlier.
Under a decide, one child span per hook of the call. A decide's event lists
every hook with its answer and its own time (``hooks``): each that ran gets a
span of its own duration (``hookd.hook.timing = "own"``), placed one after the
other in chain order from the call's start (shadow hooks from the start, beside
the chain), and each that did not run a zero-length span saying why
(``hookd.hook.skipped``). An event without that list (an older journal) names
only the hook that decided it (``decided_by``) and each hook that failed or
timed out in it (the ``hookd.hook.error`` / ``hookd.hook.timeout`` events just
before it, on the same point and session); those spans cover the call's
interval and say so (``hookd.hook.timing = "call"``).

Attributes follow the GenAI semantic conventions where they fit: a call about a
tool is an ``execute_tool`` operation with ``gen_ai.tool.name`` and
``gen_ai.tool.call.id``; the session is ``gen_ai.conversation.id``. The rest is
under ``hookd.``: point, kind, seq, decision, reason, project, errors.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Any, TypeGuard

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.trace import SpanKind, Status, StatusCode

HOOK_ERRORS = ("hookd.hook.error", "hookd.hook.timeout")
MAX_SECONDS = 1e11  # Unix times and durations past this are not a real clock's: the span gets none
PENDING_ERRORS = 64  # failed hooks kept per point and session until their call's event comes
TOOL_NAME_KEYS = ("toolName", "tool_name", "tool")
TOOL_CALL_KEYS = ("toolCallId", "tool_call_id", "tool_use_id", "callId")


class _Collect(SpanProcessor):
    """Keeps the spans that ended, for the exporter to send as one batch."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


class SpanBuilder:
    def __init__(self, service_name: str, host: str, user: str) -> None:
        resource = Resource.create({"service.name": service_name, "host.name": host, "user.name": user})
        self.provider = TracerProvider(resource=resource)
        self._collect = _Collect()
        self.provider.add_span_processor(self._collect)
        self.tracer = self.provider.get_tracer("hookd")
        self._errors: dict[tuple[str, str | None], deque[dict[str, Any]]] = defaultdict(lambda: deque(maxlen=PENDING_ERRORS))

    def take(self) -> list[ReadableSpan]:
        spans, self._collect.spans = self._collect.spans, []
        return spans

    def add(self, event: dict[str, Any]) -> None:
        """Make the spans for one journal event (none for most internal events)."""
        kind = event.get("kind")
        point = str(event.get("point") or "")
        if kind == "internal":
            payload = event.get("payload")
            if point in HOOK_ERRORS and isinstance(payload, dict) and isinstance(payload.get("point"), str):
                self._errors[(payload["point"], _text(event.get("session")))].append({**payload, "timeout": point.endswith("timeout")})
            return
        if kind not in ("decide", "emit"):
            return
        end = _ns(event.get("time"))
        duration = event.get("duration")
        start = end - int(duration * 1e6) if _number(duration) and 0 < duration < MAX_SECONDS * 1e3 else end
        attributes = _call_attributes(event, point, str(kind))
        name = f"{kind} {point}"
        span = self.tracer.start_span(name, kind=SpanKind.INTERNAL, attributes=attributes, start_time=start)
        context = trace.set_span_in_context(span)
        runs = event.get("hooks")
        if kind == "decide" and isinstance(runs, list) and runs:
            self._runs(runs, event.get("decided_by"), context, start, end)
            self._hooks(event, point)  # drops the failures its own list already names
        elif kind == "decide":
            for hook in self._hooks(event, point):
                child = self.tracer.start_span(f"hook {hook['name']}", context=context, attributes=hook["attributes"], start_time=start)
                if hook.get("error"):
                    child.set_status(Status(StatusCode.ERROR, hook["error"][:500]))
                child.end(end_time=end)
        span.end(end_time=end)

    def _hooks(self, event: dict[str, Any], point: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        errors = event.get("errors") if isinstance(event.get("errors"), int) else 0
        key = (point, _text(event.get("session")))
        pending = self._errors.get(key)
        failed: list[dict[str, Any]] = []
        if pending and errors:
            for _ in range(min(errors, len(pending))):
                failed.insert(0, pending.pop())
        if pending is not None and not pending:
            self._errors.pop(key, None)
        for f in failed:
            attrs = _hook_attributes(str(f.get("hook") or "?"), f.get("scope"), f.get("source"), "timed_out" if f["timeout"] else "failed")
            out.append({"name": str(f.get("hook") or "?"), "attributes": attrs, "error": str(f.get("message") or "failed")})
        decided_by = event.get("decided_by")
        if isinstance(decided_by, dict) and decided_by.get("name"):
            name = str(decided_by["name"])
            if not any(h["name"] == name and h["attributes"].get("hookd.hook.scope") == decided_by.get("scope") for h in out):
                attrs = _hook_attributes(name, decided_by.get("scope"), decided_by.get("source"), "decided")
                attrs["hookd.hook.decision"] = str(event.get("decision") or "")
                out.append({"name": name, "attributes": attrs})
        return out

    def _runs(self, runs: list[Any], decided_by: Any, context: Any, start: int, end: int) -> None:
        """A span per hook from the event's own list: each with its own time, in chain order."""
        at = start
        for run in runs:
            if not isinstance(run, dict) or not isinstance(run.get("hook"), dict):
                continue
            ref = run["hook"]
            name = _text(ref.get("name")) or "?"
            ms = run.get("ms")
            took = int(ms * 1e6) if _number(ms) and 0 <= ms < MAX_SECONDS * 1e3 else 0
            shadow = run.get("shadow") is True
            skipped = _text(run.get("skipped"))
            error = _text(run.get("error"))
            role = "shadow" if shadow else "skipped" if skipped else ("timed_out" if error == "timeout" else "failed") if error else "ran"
            decided = isinstance(decided_by, dict) and (decided_by.get("name"), decided_by.get("scope")) == (name, ref.get("scope"))
            if role == "ran" and decided:
                role = "decided"
            attrs = _hook_attributes(name, ref.get("scope"), ref.get("source"), role)
            attrs["hookd.hook.timing"] = "own"
            if (decision := _text(run.get("decision"))) is not None:
                attrs["hookd.hook.decision"] = decision
            if skipped is not None:
                attrs["hookd.hook.skipped"] = skipped
            begin = start if shadow else at
            finish = min(begin + took, end) if end >= begin else begin
            child = self.tracer.start_span(f"hook {name}", context=context, attributes=attrs, start_time=begin)
            if error is not None:
                child.set_status(Status(StatusCode.ERROR, (_text(run.get("message")) or error)[:500]))
            child.end(end_time=finish)
            if not shadow:
                at = finish

    def shutdown(self) -> None:
        self.provider.shutdown()


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _ns(when: Any) -> int:
    return int(when * 1e9) if _number(when) and 0 <= when < MAX_SECONDS else 0


def _int64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _call_attributes(event: dict[str, Any], point: str, kind: str) -> dict[str, Any]:
    attrs: dict[str, Any] = {"hookd.point": point, "hookd.kind": kind}
    if _int64(event.get("seq")):
        attrs["hookd.seq"] = event["seq"]
    for key in ("decision", "reason", "project"):
        if (value := _text(event.get(key))) is not None:
            attrs[f"hookd.{key}"] = value
    if _int64(event.get("errors")) and event["errors"]:
        attrs["hookd.errors"] = event["errors"]
    decided_by = event.get("decided_by")
    if isinstance(decided_by, dict) and _text(decided_by.get("name")):
        attrs["hookd.decided_by"] = decided_by["name"]
    if (session := _text(event.get("session"))) is not None:
        attrs["gen_ai.conversation.id"] = session
    payload = event.get("payload")
    if isinstance(payload, dict):
        tool = next((v for k in TOOL_NAME_KEYS if (v := _text(payload.get(k))) is not None), None)
        if tool is not None:
            attrs["gen_ai.operation.name"] = "execute_tool"
            attrs["gen_ai.tool.name"] = tool
        # The agent that made the call (its bridge names it) and its own name for the tool.
        if (agent := _text(payload.get("agent"))) is not None:
            attrs["gen_ai.agent.name"] = agent
        if (own := _text(payload.get("agentToolName"))) is not None and own != tool:
            attrs["hookd.agent.tool.name"] = own
        call = next((v for k in TOOL_CALL_KEYS if (v := _text(payload.get(k))) is not None), None)
        if call is not None:
            attrs["gen_ai.tool.call.id"] = call
    return attrs


def _hook_attributes(name: str, scope: Any, source: Any, role: str) -> dict[str, Any]:
    attrs: dict[str, Any] = {"hookd.hook.name": name, "hookd.hook.role": role, "hookd.hook.timing": "call"}
    if (s := _text(scope)) is not None:
        attrs["hookd.hook.scope"] = s
    if (s := _text(source)) is not None:
        attrs["hookd.hook.source"] = s
    return attrs


def as_spans(builder: SpanBuilder, events: Sequence[dict[str, Any]]) -> list[ReadableSpan]:
    for event in events:
        builder.add(event)
    return builder.take()
