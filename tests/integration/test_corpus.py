"""The corpus of Claude Code hooks (tests/corpus), each run twice on identical projects: directly, as Claude
Code runs a command hook (bash -c in the project, the agent's environment, its input on stdin), and through
hookd (the project's settings imported with `hookd import claude-code`, then the hook input sent through
`hookd bridge claude-code` to a real daemon). Claude Code must act the same on both answers: the same
decision, the same text for Claude, the same messages for the user, and the same files left behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..conftest import HOOKD, Env
from ..corpus import claude_reading
from ..corpus.cases import CASES, HOOKS, Case, Payload

EXACT = re.compile(r"[A-Za-z0-9_\- ,|]*")
MATCHED_BY = {"PreToolUse": "tool_name", "PostToolUse": "tool_name", "SessionStart": "source", "PreCompact": "trigger"}


def matches(matcher: str | None, event: str, data: dict[str, Any]) -> bool:
    """Claude Code's matcher rule, for the direct run."""
    if matcher in (None, "", "*"):
        return True
    value = data.get(MATCHED_BY.get(event, ""))
    if not isinstance(value, str):
        return False
    if EXACT.fullmatch(matcher):
        return value in {p.strip() for p in re.split(r"[|,]", matcher)}
    return re.search(matcher, value) is not None


def _project(root: Path, case: Case) -> Path:
    project = root / "proj"
    hooks = project / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    shutil.copy2(HOOKS / case.script, hooks / case.script)
    if case.git_branch:
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
        subprocess.run([*git, "init", "-q", "-b", case.git_branch, str(project)], check=True)
        (project / "README.md").write_text("hello\n")
        subprocess.run([*git, "-C", str(project), "add", "README.md"], check=True)
        subprocess.run([*git, "-C", str(project), "commit", "-q", "-m", "first commit"], check=True)
    handler: dict[str, Any] = {"type": "command", "command": case.command.format(script=case.script)}
    if case.timeout:
        handler["timeout"] = case.timeout
    group: dict[str, Any] = {"hooks": [handler]}
    if case.matcher is not None:
        group["matcher"] = case.matcher
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {case.event: [group]}}, indent=2) + "\n")
    return project


def _input(case: Case, payload: Payload, project: Path, transcript: Path) -> dict[str, Any]:
    fields = json.loads(json.dumps(payload.fields).replace("{project}", str(project)))
    return {
        "session_id": "corpus-session",
        "transcript_path": str(transcript),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": case.event,
        **fields,
    }


def _agent_env(env: Env, project: Path) -> dict[str, str]:
    return {**env.env, "CLAUDE_PROJECT_DIR": str(project)}


def _direct(case: Case, data: dict[str, Any], project: Path, agent: dict[str, str]) -> claude_reading.Effect:
    if not matches(case.matcher, case.event, data):
        return claude_reading.Effect()
    command = case.command.format(script=case.script)
    done = subprocess.run(
        ["bash", "-c", command], input=json.dumps(data), cwd=project, env=agent, capture_output=True, text=True, timeout=60
    )
    return claude_reading.read(case.event, done.returncode, done.stdout, done.stderr)


def _through_hookd(case: Case, data: dict[str, Any], agent: dict[str, str]) -> claude_reading.Effect:
    done = subprocess.run([*HOOKD, "bridge", "claude-code"], input=json.dumps(data), env=agent, capture_output=True, text=True, timeout=60)
    return claude_reading.read(case.event, done.returncode, done.stdout, done.stderr)


def _files(project: Path) -> dict[str, bytes]:
    skip = {".git", ".hookd"}
    out = {}
    for path in sorted(project.rglob("*")):
        rel = path.relative_to(project)
        if rel.parts[0] in skip or not path.is_file() or rel.parts[:2] == (".claude", "settings.json"):
            continue
        if path.name.startswith("settings.json."):
            continue
        out[str(rel)] = path.read_bytes()
    return out


def _same(direct: claude_reading.Effect, hookd: claude_reading.Effect) -> str | None:
    if direct.key() != hookd.key():
        return f"direct {direct.key()!r} != through hookd {hookd.key()!r}"
    shown = "\n".join(hookd.to_user)
    missing = [m for m in direct.to_user if m not in shown]
    if missing:
        return f"messages for the user missing through hookd: {missing!r} (hookd showed {shown!r})"
    extra = [m for m in hookd.to_user if not any(d in m for d in direct.to_user)]
    if extra:
        return f"messages hookd added: {extra!r}"
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_claude_code_hook_acts_the_same_through_hookd(case: Case, env: Env, daemon_factory, tmp_path: Path) -> None:
    direct_project = _project(tmp_path / "run-direct", case)
    hookd_project = _project(tmp_path / "run-hookd", case)
    settings = hookd_project / ".claude" / "settings.json"
    # Imported into the user's global hooks file, as from ~/.claude/settings.json: a global hook must still
    # run in the project it is called for.
    r = env.hookd("import", "claude-code", str(settings), "-o", str(env.config / "hookd" / "hooks.yaml"))
    assert r.returncode == 0, r.stderr
    assert "hooks" not in json.loads(settings.read_text())  # moved, so it cannot run twice
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text('{"type": "user"}\n')
    daemon_factory()
    mismatches = []
    for payload in case.payloads:
        for project in (direct_project, hookd_project):
            for rel, text in payload.files.items():
                (project / rel).parent.mkdir(parents=True, exist_ok=True)
                (project / rel).write_text(text)
        direct = _direct(case, _input(case, payload, direct_project, transcript), direct_project, _agent_env(env, direct_project))
        hookd = _through_hookd(case, _input(case, payload, hookd_project, transcript), _agent_env(env, hookd_project))
        differs = _same(direct, hookd)
        if differs is None and _files(direct_project) != _files(hookd_project):
            differs = f"files differ: direct {_files(direct_project)!r} != through hookd {_files(hookd_project)!r}"
        if differs is not None:
            mismatches.append(f"{payload.label}: {differs}")
    assert not mismatches, "\n".join(mismatches)


def test_the_corpus_covers_the_contract() -> None:
    # At least ten hooks, in Python, bash and node, over the exit-code and JSON forms of the contract.
    assert len(CASES) >= 10 and sum(len(c.payloads) for c in CASES) >= 25
    kinds = {os.path.splitext(c.script)[1] for c in CASES}
    assert kinds == {".py", ".sh", ".js"}
    assert {c.event for c in CASES} >= {"PreToolUse", "PostToolUse", "SessionStart", "Stop", "UserPromptSubmit", "PreCompact"}
