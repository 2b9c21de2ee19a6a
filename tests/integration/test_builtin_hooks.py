"""Built-in hooks through a real daemon and the real CLI: a project's hook file with `builtin: git`
and its policy, trusted and toggled; a shadow guard that shows what it would have denied; and the
rule that fired, in `hookd decide`, `--trace`, `explain`, `stats`, `tail` and `hooks`."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

from tests.conftest import HOOKD, Env

SHELL = '{{"toolName": "execute_command", "args": {{"command": "{command}"}}}}'
PROJECT_GUARDS = """\
hooks:
  - name: guards
    point: tool.approval.pre
    builtin: [files, git]
    on_error: deny
    enabled: true
    options:
      allow: [git.clean-force]
      ask: [git.stash-drop]
"""


def hookd(env: Env, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HOOKD, *args], env=env.env, cwd=cwd, capture_output=True, text=True, timeout=60)


def decide(env: Env, cwd: Path, command: str, *more: str) -> subprocess.CompletedProcess[str]:
    return hookd(env, cwd, "decide", "tool.approval.pre", "--payload", SHELL.format(command=command), *more)


def test_a_project_builtin_hook_through_trust_toggles_and_the_cli(env: Env, daemon_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "app"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(PROJECT_GUARDS)
    daemon_factory()

    before = decide(env, project, "git reset --hard")
    assert json.loads(before.stdout)["decision"] is None and "guard 'guards' did not run: untrusted" in before.stderr
    assert hookd(env, project, "trust").returncode == 0

    denied = json.loads(decide(env, project, "git reset --hard").stdout)
    assert denied["decision"] == "deny" and denied["reason"].startswith("git.reset-hard: ")
    assert denied["decided_by"]["name"] == "guards" and denied["decided_by"]["scope"] == "project"
    assert json.loads(decide(env, project, "git clean -fdx").stdout)["decision"] is None  # allowed by name
    assert json.loads(decide(env, project, "git stash clear").stdout)["decision"] == "ask"  # promoted to ask

    trace = decide(env, project, "git reset --hard", "--trace").stdout
    assert "rule:   git.reset-hard (pack git)" in trace and trace.startswith("tool.approval.pre: deny by 'guards' [project]")

    explained = hookd(env, project, "explain", "tool.approval.pre", "--payload", SHELL.format(command="git reset --hard")).stdout
    assert "builtin: would deny by rule git.reset-hard: " in explained, explained
    listed = hookd(env, project, "hooks", "--project", str(project)).stdout
    assert "builtin: files, git" in listed and "allow: ['git.clean-force']" in listed, listed

    stats = hookd(env, project, "stats").stdout
    assert "rules: git.reset-hard 2, git.stash-drop 1" in stats, stats
    tail = hookd(env, project, "tail", "--since", "1h", "--point", "tool.*").stdout
    assert "by guards [git.reset-hard]" in tail and "by guards [git.stash-drop]" in tail, tail

    assert hookd(env, project, "disable", "guards", "--project", str(project)).returncode == 0
    off = decide(env, project, "git reset --hard")
    assert json.loads(off.stdout)["decision"] is None


def test_a_shadow_builtin_hook_blocks_nothing_and_shows_what_it_would_have_denied(env: Env, daemon_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    written = env.hookd("init", "--global", "--shadow")
    assert written.returncode == 0 and "shadow mode" in written.stdout, written.stderr
    daemon_factory()
    out = json.loads(env.hookd("decide", "tool.approval.pre", "--payload", SHELL.format(command="git stash drop")).stdout)
    assert out["decision"] is None
    # The shadow's answer is recorded once it is in: read the journal until the call's event is there.
    with subprocess.Popen(
        [*HOOKD, "tail", "-f", "--since", "1h", "--point", "tool.*"], env=env.env, stdout=subprocess.PIPE, text=True
    ) as tail:
        assert tail.stdout is not None
        try:
            line = tail.stdout.readline()
        finally:
            tail.kill()
    assert "shadow would deny [git.stash-drop] by guards" in line, line
    stats = env.hookd("stats").stdout
    assert "(shadow: never applied)" in stats and "would deny" in stats and "rules: git.stash-drop 1" in stats, stats


def test_check_names_a_bad_option_down_to_its_item(env: Env, tmp_path: Path) -> None:
    path = env.write_global_hooks(
        textwrap.dedent(
            """\
            hooks:
              - name: guards
                point: tool.approval.pre
                builtin: [git, secret]
                enabled: true
                options:
                  allow: [git.reset-hrad]
            """
        )
    )
    done = env.hookd("check", str(path))
    assert done.returncode == 1
    assert "field 'builtin[1]': unknown pack 'secret' (did you mean 'secrets'?)" in done.stdout, done.stdout
    assert "field 'options.allow[0]'" in done.stdout and "git.reset-hard" in done.stdout
    fixed = env.hookd("check", "--fix", str(path))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "builtin: [git, secrets]" in path.read_text() and "allow: [git.reset-hard]" in path.read_text()
