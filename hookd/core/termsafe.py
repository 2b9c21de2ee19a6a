"""Text from events, hooks and files, made safe to show on a terminal.

Payloads, hook answers and hook files are written by others. A control
character in them (ESC, BEL, CSI 0x9b, DEL, ...) would reach the terminal as
a command: an OSC 52 sequence sets the clipboard, others retitle the window,
move the cursor or hide text. Every such character is shown escaped (``\\x1b``)
instead, so only hookd's own colour codes reach the terminal. Bidirectional
overrides are escaped too: they reorder what is shown without being seen.
"""

from __future__ import annotations

from typing import Any, TextIO

# C0 except tab and newline, DEL, C1; then the bidi embeddings, overrides and isolates.
_CONTROL = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
_LINE = {c: f"\\x{c:02x}" for c in _CONTROL} | {c: f"\\u{c:04x}" for c in _BIDI}
_ONE_LINE = _LINE | {0x09: "\\t", 0x0A: "\\n"}
# In JSON text the same characters become JSON escapes, so the output stays valid JSON (json already escapes C0).
_JSON = {c: f"\\u{c:04x}" for c in [*range(0x7F, 0xA0), *_BIDI]}


def clean(text: str) -> str:
    """``text`` with every control character escaped; newlines and tabs stay."""
    return text.translate(_LINE)


def one_line(text: str) -> str:
    """``text`` with every control character escaped, newlines and tabs too."""
    return text.translate(_ONE_LINE)


def json_text(text: str) -> str:
    """JSON text (whose encoder already escapes C0) with DEL, C1 and bidi controls as \\u escapes."""
    return text.translate(_JSON)


class SafeStream:
    """A text stream that escapes control characters in everything written to it.

    The CLI writes through it, so no path that prints payload or hook-provided
    text can forget; ``unfiltered`` is the original, for text already made safe
    piece by piece (``hookd tail``'s coloured lines).
    """

    def __init__(self, stream: TextIO) -> None:
        self.unfiltered = stream

    def write(self, text: str) -> int:
        return self.unfiltered.write(text.translate(_LINE))

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unfiltered, name)


def unfiltered(stream: Any) -> Any:
    return getattr(stream, "unfiltered", stream)
