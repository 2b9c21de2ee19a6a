"""The daemon's HTTP hook endpoint serves Codex at /codex/EVENT (the shim run with --agent codex), next to
Claude Code at /claude-code/EVENT; anything else is still refused."""

from __future__ import annotations

from hookd.edge.http import checks

TOKEN = b"s3cret"
HOSTS = checks.hosts(4242)
HEADERS = [(b"host", b"127.0.0.1:4242"), (b"authorization", b"Bearer s3cret"), (b"x-hookd-env-path", b"/usr/bin")]


def test_codex_events_are_accepted_as_codex() -> None:
    got = checks.check(b"POST", b"/codex/PreToolUse", HEADERS, HOSTS, TOKEN)
    assert got == checks.Accepted("PreToolUse", {"PATH": "/usr/bin"}, "codex")


def test_claude_code_events_are_unchanged() -> None:
    assert checks.check(b"POST", b"/claude-code/Stop", HEADERS, HOSTS, TOKEN) == checks.Accepted(
        "Stop", {"PATH": "/usr/bin"}, "claude-code"
    )


def test_other_paths_are_refused() -> None:
    for path in (b"/codex/", b"/codex/Pre/ToolUse", b"/gemini-x/BeforeTool", b"/codexPreToolUse", b"/codex-x/PreToolUse"):
        got = checks.check(b"POST", path, HEADERS, HOSTS, TOKEN)
        assert isinstance(got, checks.Refusal) and got.status == 404, path
    # The secret is checked before the path, for Codex as for Claude Code.
    bad = [(b"host", b"127.0.0.1:4242"), (b"authorization", b"Bearer nope")]
    assert checks.check(b"POST", b"/codex/PreToolUse", bad, HOSTS, TOKEN).status == 401
