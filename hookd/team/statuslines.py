"""The team part of `hookd status`, as lines (the status reply's ``team`` field, as builtins)."""

from __future__ import annotations

from typing import Any


def lines(team: dict[str, Any] | None) -> list[str]:
    if not team:
        return []
    out = []
    if team.get("error"):
        out.append(f"team:        settings refused: {team['error']}")
    e = team.get("export")
    if e:
        detail = f"  error: {' '.join(e['error'].split())[:160]}" if e.get("error") else ""
        out.append(f"export:      {e['state']}  stream {e['stream']}  acked {e.get('acked', 0)}  lag {e.get('lag', 0)}{detail}")
    g = team.get("guards")
    if g:
        keys = ", ".join(f"{k}@{r}" for k, r in g.get("keys", {}).items()) or "none"
        out.append(f"guards:      revision {g.get('revision', 0)}  {g.get('state', '')}  bucket {g['bucket']}  in force: {keys}")
        for key, why in g.get("rejected", {}).items():
            out.append(f"guards:      refused {key}: {' '.join(why.split())[:160]}")
        if g.get("error"):
            out.append(f"guards:      {' '.join(g['error'].split())[:160]}")
    return out
