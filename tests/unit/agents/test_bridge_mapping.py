"""The Claude Code mapping as pure functions: routing, rendering, and the reverse translation run-hook uses."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookd.agents import dialect, run
from hookd.agents.claude_code import hooks as ch
from hookd.agents.claude_code import protocol as cc
from hookd.core import points

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


def test_every_routed_point_is_in_the_catalog() -> None:
    for event, (point, _) in cc.ROUTES.items():
        assert points.lookup(point).name == point, event


def test_which_decision_routes_fall_back_to_emit_today() -> None:
    # These events ask for a decision but their point is an observer point in the catalog, so the
    # daemon answers wrong_kind and the bridge emits. If the catalog changes, update docs/bridges.md.
    observer_points = {e for e, (p, decide) in cc.ROUTES.items() if decide and points.lookup(p).kind == "observer"}
    assert observer_points == set()


def test_route_builds_payload_session_and_project() -> None:
    data = {
        "session_id": "s1",
        "transcript_path": "/t.jsonl",
        "cwd": "/repo/sub",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }
    call = dialect.route(cc.DIALECT, data, {"CLAUDE_PROJECT_DIR": "/repo"})
    assert call.point == "tool.approval.pre" and call.decide
    assert call.session == "s1" and call.project == "/repo"
    common = {k: data[k] for k in ("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name")}
    # Each field travels once: the tool input is not repeated under hookInput.
    # The agent's environment travels with the call, for hooks that came from Claude Code.
    # The tool is named in hookd's vocabulary; the agent and its own tool name travel beside it.
    assert call.payload == {
        "toolName": "execute_command",
        "agentToolName": "Bash",
        "agent": "claude-code",
        "args": {"command": "ls"},
        "toolUseId": "toolu_1",
        "hookInput": common,
        "agentEnv": {"CLAUDE_PROJECT_DIR": "/repo"},
    }
    assert ch.hook_input(call.payload, call.point, "s1", "/repo", "/") == data
    assert dialect.route(cc.DIALECT, data, {}).project == "/repo/sub"
    assert dialect.route(cc.DIALECT, {**data, "cwd": "relative"}, {}).project is None


def test_route_session_lifecycle_and_unmapped() -> None:
    start = dialect.route(cc.DIALECT, {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"}, {})
    assert (start.point, start.attach, start.dispose) == ("agent.turn.start", True, False)
    end = dialect.route(cc.DIALECT, {"hook_event_name": "SessionEnd", "session_id": "s1", "reason": "other"}, {})
    assert (end.point, end.decide, end.attach, end.dispose) == ("chat.finished", False, False, True)
    other = dialect.route(cc.DIALECT, {"hook_event_name": "FileChanged", "file_path": "/x"}, {})
    assert (other.point, other.decide, other.session) == ("custom.claude.FileChanged", False, None)


@pytest.mark.parametrize("bad", [[], "x", 3, {}, {"hook_event_name": ""}, {"hook_event_name": 5}])
def test_route_rejects_what_is_not_a_hook_input(bad: object) -> None:
    with pytest.raises(dialect.BadInput):
        dialect.route(cc.DIALECT, bad, {})


def test_render_deny_without_reason_names_the_hook() -> None:
    v = dialect.Verdict("deny", decided_by="guard")
    assert dialect.render(cc.DIALECT, "PreToolUse", v) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "denied by hookd hook 'guard'",
        }
    }
    assert dialect.render(cc.DIALECT, "Stop", v) == {"decision": "block", "reason": "blocked by hookd hook 'guard'"}


def test_render_stop_when_the_catalog_allows_it() -> None:
    assert dialect.render(cc.DIALECT, "Stop", dialect.Verdict("deny", "tests still fail", "run pytest")) == {
        "decision": "block",
        "reason": "tests still fail",
        "hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "run pytest"},
    }


@pytest.mark.parametrize(
    ("event", "verdict"),
    [
        ("PreToolUse", dialect.Verdict("continue")),
        ("PermissionRequest", dialect.Verdict("ask", "confirm")),
        ("UserPromptSubmit", dialect.Verdict("allow")),
        ("PreCompact", dialect.Verdict(None, injection="ignored: PreCompact has no context field")),
        ("Notification", dialect.Verdict("deny", "observers cannot decide")),
        ("SessionEnd", dialect.Verdict("deny")),
    ],
)
def test_render_says_nothing_when_the_agent_has_no_field_for_it(event: str, verdict: dialect.Verdict) -> None:
    assert dialect.render(cc.DIALECT, event, verdict) is None


def test_fail_closed_denies_only_pre_tool_use() -> None:
    assert dialect.fail_closed(cc.DIALECT, "PreToolUse", "down")["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert dialect.fail_closed(cc.DIALECT, "UserPromptSubmit", "down") is None


@given(
    st.sampled_from([*cc.ROUTES, "Unknown"]),
    st.sampled_from([None, "allow", "deny", "ask", "continue"]),
    st.none() | st.text(),
    st.none() | st.text(),
    st.none() | st.dictionaries(st.text(), json_values, max_size=3),
    json_values,
)
def test_render_always_gives_json_or_nothing(event, decision, reason, injection, modified_input, modified_output) -> None:
    out = dialect.render(cc.DIALECT, event, dialect.Verdict(decision, reason, injection, modified_input, modified_output))
    assert out is None or json.loads(json.dumps(out)) == out


@given(st.dictionaries(st.text(), json_values, max_size=6), st.text())
def test_route_never_crashes_on_adversarial_input(data: dict, event: str) -> None:
    try:
        call = dialect.route(cc.DIALECT, {**data, "hook_event_name": event}, {})
    except dialect.BadInput:
        assert not event
        return
    assert call.event == event and call.payload["hookInput"]["hook_event_name"] == event


# ------------------------------------------------------------------ run-hook: Claude Code hook -> HookDecision


@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [
        (None, "Bash", True),
        ("*", "Bash", True),
        ("", "Write", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Edit|Write", "Write", True),
        ("Edit, Write", "Edit", True),
        ("Edit|Write", "NotebookEdit", False),
        ("Edit.*", "NotebookEdit", True),
        ("^Notebook", "NotebookEdit", True),
        ("mcp__memory__.*", "mcp__memory__create_entities", True),
        ("mcp__memory", "mcp__memory__create_entities", False),
        ("(", "Bash", False),
    ],
)
def test_matcher_follows_claude_code(matcher: str | None, tool: str, expected: bool) -> None:
    assert ch.matches(matcher, "PreToolUse", {"tool_name": tool}) is expected


def test_hook_input_prefers_the_chains_current_args() -> None:
    original = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": "/repo",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    }
    payload = {"toolName": "Bash", "args": {"command": "echo safe"}, "hookInput": original}
    data = ch.hook_input(payload, "tool.approval.pre", "s1", "/repo", "/")
    assert data["tool_input"] == {"command": "echo safe"}
    assert data["hook_event_name"] == "PreToolUse" and data["session_id"] == "s1"


def test_hook_input_without_the_bridge_is_rebuilt_from_the_point() -> None:
    data = ch.hook_input({"toolName": "Bash", "args": {"command": "ls"}, "durationMs": 3}, "tool.execute.after", "s9", "", "/work")
    assert data == {
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "duration_ms": 3,
        "hook_event_name": "PostToolUse",
        "session_id": "s9",
        "cwd": "/work",
    }


@pytest.mark.parametrize(
    ("event", "code", "stdout", "stderr", "expected"),
    [
        (
            "PreToolUse",
            2,
            "",
            "Blocked: rm commands are not allowed\n",
            {"decision": "deny", "reason": "Blocked: rm commands are not allowed"},
        ),
        ("PermissionRequest", 2, "", "ignored", None),
        # After the fact, exit 2 feeds stderr to Claude beside the result: a block with that reason.
        ("PostToolUse", 2, "", "lint: 3 errors", {"decision": "deny", "reason": "lint: 3 errors"}),
        # Exit 2 blocks even beside a JSON allow; the JSON's reason is the message.
        (
            "PreToolUse",
            2,
            '{"hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "json says"}}',
            "stderr says",
            {"decision": "deny", "reason": "json says"},
        ),
        ("SessionStart", 2, "", "setup failed", {"agentOutput": {"systemMessage": "setup failed"}}),
        ("PreToolUse", 0, "", "", None),
        (
            "PreToolUse",
            0,
            json.dumps(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "allow",
                        "permissionDecisionReason": "ok",
                        "updatedInput": {"command": "npm run lint"},
                        "additionalContext": "prod",
                    }
                }
            ),
            "",
            {"decision": "allow", "reason": "ok", "modifiedInput": {"command": "npm run lint"}, "injection": "prod"},
        ),
        (
            "PreToolUse",
            0,
            '{"hookSpecificOutput": {"permissionDecision": "defer"}}',
            "",
            {"decision": "ask", "agentOutput": {"defer": True}},
        ),
        (
            "PermissionRequest",
            0,
            json.dumps(
                {
                    "hookSpecificOutput": {
                        "decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}]}
                    }
                }
            ),
            "",
            {"decision": "allow", "agentOutput": {"updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}]}},
        ),
        (
            "PermissionRequest",
            0,
            '{"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "no", "interrupt": true}}}',
            "",
            {"decision": "deny", "reason": "no", "agentOutput": {"interrupt": True}},
        ),
        ("PermissionDenied", 0, '{"hookSpecificOutput": {"retry": true}}', "", {"agentOutput": {"retry": True}}),
        (
            "Stop",
            0,
            '{"continue": false, "stopReason": "build broke", "systemMessage": "see log", "suppressOutput": true}',
            "",
            {"agentOutput": {"continue": False, "stopReason": "build broke", "systemMessage": "see log", "suppressOutput": True}},
        ),
        (
            "SessionStart",
            0,
            '{"hookSpecificOutput": {"additionalContext": "ctx", "sessionTitle": "t"}}',
            "",
            {"injection": "ctx", "agentOutput": {"specific": {"sessionTitle": "t"}}},
        ),
        ("PreToolUse", 0, '{"decision": "block", "reason": "legacy"}', "", {"decision": "deny", "reason": "legacy"}),
        ("Stop", 0, '{"decision": "block", "reason": "tests fail"}', "", {"decision": "deny", "reason": "tests fail"}),
        (
            "PermissionRequest",
            0,
            '{"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "no"}}}',
            "",
            {"decision": "deny", "reason": "no"},
        ),
        ("PostToolUse", 0, '{"hookSpecificOutput": {"updatedMCPToolOutput": [1]}}', "", {"modifiedOutput": [1]}),
        ("UserPromptSubmit", 0, "Current branch: main\n", "", {"injection": "Current branch: main"}),
        ("PreToolUse", 0, "plain text is only logged", "", None),
    ],
)
def test_claude_hook_results_become_hook_decisions(event, code, stdout, stderr, expected) -> None:
    assert ch.decision(event, code, stdout, stderr) == expected


def test_a_failing_claude_hook_is_an_error_not_a_decision() -> None:
    with pytest.raises(ch.NotADecision, match="non-blocking status code: boom"):
        ch.decision("PreToolUse", 1, "", "boom\nmore")
    # With valid JSON the exit code is ignored, as in Claude Code.
    assert ch.decision("Stop", 1, '{"decision": "block", "reason": "r"}', "") == {"decision": "deny", "reason": "r"}
    with pytest.raises(ch.NotADecision, match="not valid JSON"):
        ch.decision("PreToolUse", 0, "{not json}", "")


# ------------------------------------------------------------------ the bridge's own argument reader


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], run.Options()),
        (["--fail-closed"], run.Options(fail_closed=True)),
        (["--timeout", "2.5", "--socket", "/s"], run.Options(2.5, False, "/s")),
        (["--timeout=3", "--socket=/x", "--fail-closed"], run.Options(3.0, True, "/x")),
        (["--help"], None),
        (["--timeout"], None),
        (["--timeout", "soon"], None),
        (["--fail-close"], None),
    ],
)
def test_bridge_arguments_without_argparse(argv: list[str], expected: run.Options | None) -> None:
    assert run.parse(argv) == expected


_KEYS = st.one_of(
    st.sampled_from(["tool_name", "tool_input", "tool_response", "tool_use_id", "hookInput", "hook_input", "toolName", "a__b", "_x", "X"]),
    st.text(max_size=12),
)


@given(st.dictionaries(_KEYS, st.one_of(st.integers(), st.text(), st.lists(st.integers())), max_size=8))
def test_payload_carries_each_field_once_and_rebuilds_the_input_exactly(extra: dict) -> None:
    data = {**extra, "hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/repo"}
    payload = dialect.payload_of(data, cc.COMMON_FIELDS)
    inner = payload["hookInput"]
    outer = {k: v for k, v in payload.items() if k != "hookInput"}
    assert len(inner) + len(outer) == len(data)  # nothing twice
    assert ch.hook_input(payload, "tool.approval.pre", "s1", "/repo", "/") == data


def test_a_large_input_is_sent_once() -> None:
    content = "x" * (600 * 1024)
    call = dialect.route(
        cc.DIALECT, {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": "/f", "content": content}}, {}
    )
    assert len(json.dumps(call.payload)) < len(content) + 1024


def test_guards_that_did_not_run_are_shown_to_the_user() -> None:
    from hookd_client.messages import HookRef, NotRun, Outcome

    outcome = Outcome(
        id=1,
        not_run=[
            NotRun(HookRef("no-rm", "project", "/p/.hookd/hooks.yaml"), "untrusted", "run `hookd trust /p`"),
            NotRun(HookRef("lint", "global", "plugin"), "plugin_failed", "requirements.txt failed to install"),
        ],
    )
    verdict = run.verdict_of(outcome)
    out = dialect.render(cc.DIALECT, "PreToolUse", verdict)
    assert out == {
        "systemMessage": "hookd: guard 'no-rm' did not run: untrusted (run `hookd trust /p`)\n"
        "hookd: guard 'lint' did not run: plugin_failed (requirements.txt failed to install)"
    }
    denied = dialect.render(cc.DIALECT, "SubagentStart", verdict._replace(decision="deny", reason="no"))
    assert denied is not None and denied["systemMessage"].startswith("hookd: no (Claude Code cannot block")
    assert "'no-rm' did not run" in denied["systemMessage"]
    for event in cc.ROUTES:  # every event the bridge answers tells the user
        rendered = dialect.render(cc.DIALECT, event, verdict)
        assert rendered is not None and "did not run" in rendered["systemMessage"], event


# Claude Code's hooks reference: TeammateIdle and TaskCompleted have no JSON decision field; exit code 2
# blocks them (the teammate gets stderr as feedback and keeps working; the task is not marked completed
# and stderr goes back to the model). Any other event answers with JSON on exit 0.
@pytest.mark.parametrize(
    ("event", "verdict", "expected"),
    [
        ("TeammateIdle", dialect.Verdict("deny", "Run the tests first"), (2, "Run the tests first")),
        ("TaskCompleted", dialect.Verdict("deny", "Tests are failing"), (2, "Tests are failing")),
        ("TaskCompleted", dialect.Verdict("deny", None, decided_by="ci-check"), (2, "blocked by hookd hook 'ci-check'")),
        ("TaskCompleted", dialect.Verdict("allow"), (0, "")),
        ("TeammateIdle", None, (0, "")),
        ("Stop", dialect.Verdict("deny", "keep going"), (0, "")),
        ("PreToolUse", dialect.Verdict("deny", "no"), (0, "")),
    ],
)
def test_exit_code_2_where_claude_code_blocks_only_that_way(event: str, verdict: dialect.Verdict | None, expected: tuple[int, str]) -> None:
    assert dialect.exit_status(cc.DIALECT, event, verdict) == expected
    if expected[0] == 2:
        assert dialect.render(cc.DIALECT, event, verdict) is None  # no JSON field for it: the exit code is the answer
