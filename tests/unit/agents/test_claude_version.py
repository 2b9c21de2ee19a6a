"""Which Claude Code honours `onFailure: "block"`: read from `claude --version` as the CLI prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.agents.claude_code import version as cv


@pytest.mark.parametrize(
    ("printed", "version", "honours"),
    [
        ("2.1.332 (Claude Code)\n", (2, 1, 332), True),
        ("2.1.295 (Claude Code)\n", (2, 1, 295), True),
        ("2.1.294 (Claude Code)\n", (2, 1, 294), False),
        ("2.1.197 (Claude Code)\n", (2, 1, 197), False),
        ("3.0.0 (Claude Code)\n", (3, 0, 0), True),
        ("1.0.128 (Claude Code)\n", (1, 0, 128), False),
    ],
)
def test_the_version_claude_prints_decides(printed: str, version: tuple[int, int, int], honours: bool) -> None:
    assert cv.parse(printed) == version
    assert cv.Found("/usr/bin/claude", cv.parse(printed)).honours_on_failure is honours


def test_an_unknown_version_is_assumed_not_to_honour_it(tmp_path: Path) -> None:
    found = cv.detect(str(tmp_path / "claude"))
    assert found.version is None and not found.honours_on_failure
    assert "is not an executable" in found.describe()
    nothing = cv.detect(environ={"PATH": str(tmp_path)})
    assert nothing.cli is None and "no `claude` on PATH" in nothing.why
    assert cv.parse("claude: command not found") is None
