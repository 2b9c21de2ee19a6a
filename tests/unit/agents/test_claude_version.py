"""Which Claude Code honours `onFailure: "block"`: read from `claude --version` as the CLI prints it, against the
minimum its registry row names (one version reader for every agent, hookd/agents/agent_version.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.agents import agent_version as av
from hookd.agents import registry

ROW = registry.agent("claude-code")


def honours(found: av.Found) -> bool:
    assert ROW.version is not None and ROW.version.on_failure
    return found.at_least(ROW.version.minimum)


@pytest.mark.parametrize(
    ("printed", "version", "honoured"),
    [
        ("2.1.332 (Claude Code)\n", (2, 1, 332), True),
        ("2.1.295 (Claude Code)\n", (2, 1, 295), True),
        ("2.1.294 (Claude Code)\n", (2, 1, 294), False),
        ("2.1.197 (Claude Code)\n", (2, 1, 197), False),
        ("3.0.0 (Claude Code)\n", (3, 0, 0), True),
        ("1.0.128 (Claude Code)\n", (1, 0, 128), False),
    ],
)
def test_the_version_claude_prints_decides(printed: str, version: tuple[int, int, int], honoured: bool) -> None:
    assert av.parse(printed) == version
    assert honours(av.Found("/usr/bin/claude", av.parse(printed))) is honoured


def test_an_unknown_version_is_assumed_not_to_honour_it(tmp_path: Path) -> None:
    found = av.of(ROW, str(tmp_path / "claude"))
    assert found.version is None and not honours(found)
    assert "the Claude Code version is unknown" in found.describe() and "is not an executable" in found.describe()
    nothing = av.of(ROW, environ={"PATH": str(tmp_path)})
    assert nothing.cli is None and "no `claude` on PATH" in nothing.why
    assert av.parse("claude: command not found") is None


def test_the_cli_the_row_names_is_asked(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    claude.write_text("#!/bin/sh\necho '2.1.332 (Claude Code)'\n")
    claude.chmod(0o755)
    found = av.of(ROW, environ={"PATH": str(tmp_path)})
    assert found.version == (2, 1, 332) and honours(found) and found.describe() == f"Claude Code 2.1.332 ({claude})"
