"""What a hook printed, as text for a person: its tail, decoded whatever the bytes."""

from __future__ import annotations


def output_tail(data: bytes, limit: int = 2000) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text if len(text) <= limit else "..." + text[-limit:]
