"""A decide's trace as text for a person: one block per hook, in the order the call met them."""

from __future__ import annotations

import json
from typing import Any

from hookd.cli.common import plural

INPUT_CHARS = 600  # the text form shows this much of a hook's input; --json shows all of it


def _json(value: Any, limit: int | None = None) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if limit is not None and len(text) > limit:
        text = text[:limit] + f" ... ({plural(len(text) - limit, 'more character')}; --json shows all)"
    return text


def _indent(label: str, text: str) -> list[str]:
    lines = text.rstrip("\n").splitlines() or [""]
    out = [f"   {label:<7} {lines[0]}"]
    out.extend(f"   {'':<7} {line}" for line in lines[1:])
    return out


def _head(n: int, e: dict[str, Any]) -> str:
    ref = e["hook"]
    kind = "shadow, " if e.get("shadow") else ""
    where = f"[{kind}{e.get('type', 'decision')}, {ref['scope']}]"
    ms = f"  {e['ms']:g} ms" if e.get("ms") is not None else ""
    return f"{n}. {ref['name']}  {where}  {ref['source']}{ms}"


def _verdict(e: dict[str, Any]) -> str:
    if e.get("skipped"):
        return f"   not run: {e['skipped']}" + (f" ({e['why']})" if e.get("why") else "")
    if e.get("error"):
        return f"   failed: {e['error']}: {e.get('message', '')}"
    answer = e.get("answer")
    would = "would answer" if e.get("shadow") else "answered"
    if not answer:
        return f"   {would}: nothing (abstained)" + ("; never applied" if e.get("shadow") else "")
    line = f"   {would}: {_json(answer)}" + ("; never applied" if e.get("shadow") else "")
    if answer.get("rule"):  # a built-in guard's rule: the name to allow or ask it by
        rule = answer["rule"]
        line += f"\n   rule:   {rule} (pack {rule.partition('.')[0]})"
    return line


def render(point: str, outcome: dict[str, Any]) -> str:
    """The outcome's one-line summary, then each trace entry."""
    decision = outcome.get("decision") or "no decision"
    by = outcome.get("decided_by")
    head = f"{point}: {decision}" + (f" by {by['name']!r} [{by['scope']}]" if by else "")
    if outcome.get("reason"):
        head += f": {outcome['reason']}"
    lines = [head]
    entries = outcome.get("trace") or []
    if not entries:
        lines.append("no hook is configured for this call")
    for n, e in enumerate(entries, 1):
        lines.append("")
        lines.append(_head(n, e))
        if e.get("input") is not None:
            lines.extend(_indent("input:", _json(e["input"], INPUT_CHARS)))
        lines.append(_verdict(e))
        for stream in ("stdout", "stderr"):
            if e.get(stream):
                lines.extend(_indent(f"{stream}:", e[stream]))
    for n in outcome.get("not_run") or []:
        lines.append(f"\nguard {n['hook']['name']!r} did not run: {n['reason']} ({n.get('message', '')})")
    return "\n".join(lines) + "\n"
