"""The code samples of README.md and docs/*.md, as the reader sees them.

A sample is a fenced block with a language. How each language is run is in
tests/docs/test_samples.py. An HTML comment on the line right before the fence
(blank lines between are allowed) says how a sample is used:

- ``<!-- not-run: WHY -->``: the sample is not run (WHY is required: it needs
  systemd, it follows forever, ...).
- ``<!-- file: PATH -->``: the sample is the content of PATH (``~`` is the
  sample world's home): it is written there before the page's other samples run,
  and checked as its language says (YAML with `hookd check`, Python compiled).

Blocks without a language, or marked ``text``, show output or grammar and are
not code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE = frozenset({"sh", "python", "yaml", "json", "toml"})
NOT_CODE = frozenset({"", "text"})
# TypeScript samples need a compiler: they are type-checked against the client's types, together
# per page (later blocks go on from earlier ones), by test_typescript_samples.py.
TYPED = frozenset({"ts"})

_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)\s*$")
_MARK = re.compile(r"^<!--\s*(not-run|file):\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Sample:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    mark: str = ""  # "", "not-run" or "file"
    arg: str = ""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def samples(page: Path) -> list[Sample]:
    """Every fenced block of ``page`` with its marker; raises on an unclosed fence or an unknown language."""
    lines = page.read_text().splitlines()
    found: list[Sample] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        opener, lang = fence.group(1), fence.group(2).lower()
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].strip() != opener:
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"{page}:{start + 1}: unclosed code fence")
        i += 1
        if lang not in CODE | NOT_CODE | TYPED:
            raise ValueError(f"{page}:{start + 1}: code block language {lang!r} is neither run ({sorted(CODE | TYPED)}) nor text")
        mark = arg = ""
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and (m := _MARK.match(lines[j].strip())):
            mark, arg = m.group(1), m.group(2)
            if not arg:
                raise ValueError(f"{page}:{start + 1}: a {mark} marker needs {'a reason' if mark == 'not-run' else 'a path'}")
        found.append(Sample(page, start + 1, lang, "\n".join(body) + "\n", mark, arg))
    return found
