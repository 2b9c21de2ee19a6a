"""Counts the CLI prints are in the singular for one and the plural otherwise: what `import` wrote,
what `stats` counted. Real CLI, real daemon, real hooks."""

from __future__ import annotations

import json
from pathlib import Path

from hookd_client import Client

from ..conftest import Env


def _settings(tmp_path: Path, commands: list[str]) -> Path:
    settings = tmp_path / f"settings-{len(commands)}.json"
    hooks = [{"type": "command", "command": c} for c in commands]
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}) + "\n")
    return settings


def test_import_says_how_many_hooks_it_wrote(env: Env, tmp_path: Path) -> None:
    for commands, said in ((["true"], "wrote 1 hook to"), (["true", "false"], "wrote 2 hooks to")):
        out = tmp_path / f"imported-{len(commands)}.yaml"
        r = env.hookd("import", "claude-code", str(_settings(tmp_path, commands)), "-o", str(out), "--keep")
        assert r.returncode == 0, r.stderr
        assert f"hookd: {said} {out}" in r.stderr, r.stderr


def test_stats_counts_one_call_one_error_one_timeout(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.write_global_hooks(
        """
        hooks:
          - name: slow
            point: tool.approval.pre
            type: decision
            command: /bin/sleep
            args: ["30"]
            timeout: 0.2
            enabled: true
        """
    )
    daemon = daemon_factory()
    with Client(daemon.socket) as c:
        outcome = c.decide("tool.approval.pre", {"toolName": "Bash"})
    assert outcome.errors and outcome.errors[0].code == "timeout", outcome
    r = env.hookd("stats")
    assert r.returncode == 0, r.stderr
    life = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("life ")]
    assert life and life[0].startswith("life    1 call  1 error  1 timeout  p50"), r.stdout
    with Client(daemon.socket) as c:
        c.decide("tool.approval.pre", {"toolName": "Bash"})
    r = env.hookd("stats")
    life = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("life ")]
    assert life[0].startswith("life    2 calls  2 errors  2 timeouts  p50"), r.stdout
