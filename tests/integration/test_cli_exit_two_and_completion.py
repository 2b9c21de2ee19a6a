"""A Claude Code-style hook that exits 2 is told what that means in hookd; shell completion in a real shell."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from hookd_client import Client

from ..conftest import write_script


def _claude_style(tmp_path):  # type: ignore[no-untyped-def]
    return write_script(
        tmp_path / "block.py",
        """
        import sys
        sys.stdin.read()
        sys.stderr.write("rm is not allowed here\\n")
        sys.exit(2)
        """,
    )


def test_a_decision_hook_that_exits_2_gets_an_error_that_says_how_to_deny_in_hookd(env, daemon_factory, tmp_path):
    script = _claude_style(tmp_path)
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: claude-style, point: tool.approval.pre, type: decision, command: {script}, enabled: true}}
        """
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        out = c.decide("tool.approval.pre", {"toolName": "Bash", "args": {"command": "rm x"}})
    assert out.decision is None  # on_error continue: an error, and the hook error says why
    (error,) = out.errors
    text = error.message
    assert "exited with status 2" in text and "exit 2 blocks the action in Claude Code" in text
    assert '{"decision": "deny", "reason": "..."}' in text
    assert "format: claude-code" in text
    assert "rm is not allowed here" in text  # its stderr still follows


def test_the_adapter_the_hint_names_turns_exit_2_into_a_deny(env, daemon_factory, tmp_path):
    script = _claude_style(tmp_path)
    env.write_global_hooks(
        f"""
        hooks:
          - name: claude-style
            point: tool.approval.pre
            type: decision
            command: {sys.executable}
            args: [-m, hookd, bridge, run-hook, claude-code, --, {script}]
            enabled: true
        """
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        out = c.decide("tool.approval.pre", {"toolName": "Bash", "args": {"command": "rm x"}})
    assert out.decision == "deny" and "rm is not allowed here" in (out.reason or "")


def test_the_format_the_hint_names_turns_exit_2_into_a_deny(env, daemon_factory, tmp_path):
    script = _claude_style(tmp_path)
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: claude-style, point: tool.approval.pre, type: decision, command: {script}, format: claude-code, enabled: true}}
        """
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        out = c.decide("tool.approval.pre", {"toolName": "Bash", "args": {"command": "rm x"}})
    assert out.decision == "deny" and "rm is not allowed here" in (out.reason or ""), out


def test_observer_exits_and_other_statuses_get_no_claude_hint(env, daemon_factory, tmp_path):
    three = write_script(tmp_path / "three.py", "import sys\nsys.exit(3)\n")
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: three, point: tool.approval.pre, type: decision, command: {three}, enabled: true}}
        """
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        (error,) = c.decide("tool.approval.pre", {}).errors
    assert "exited with status 3" in error.message and "Claude" not in error.message


BASH_DRIVER = """
source <(hookd completion bash)
t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _hookd_complete; echo "${COMPREPLY[*]}"; }
t hookd ex
t hookd explain tool.appr
t hookd tail --point tool.execute.a
t hookd tail --color a
t hookd tail --fu
t hookd disable gu
t hookd help exit
t hookd completion f
t hookd serve --log-level w
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_completes_commands_options_points_and_hook_names(env, daemon_factory, tmp_path):
    env.write_global_hooks(
        """
        hooks:
          - {name: guard-one, point: custom.a, type: observer, command: /bin/true, enabled: true}
          - {name: guard-two, point: custom.a, type: observer, command: /bin/true, enabled: true}
        """
    )
    daemon_factory()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    write_script(bindir / "hookd", "import sys\nfrom hookd.cli import main\nsys.exit(main())\n")
    run_env = {**env.env, "PATH": f"{bindir}{os.pathsep}{env.env['PATH']}"}
    r = subprocess.run(["bash", "-c", BASH_DRIVER], env=run_env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "explain",
        "tool.approval.pre tool.approval.post",
        "tool.execute.after",
        "auto always",
        "--full",
        "guard-one guard-two",
        "exit-codes",
        "fish",
        "warning",
    ]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_parse(env, shell, tmp_path):
    r = env.hookd("completion", shell)
    assert r.returncode == 0 and "hookd completion --list points" in r.stdout
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed: the script was generated, not parsed")
    script = tmp_path / f"hookd.{shell}"
    script.write_text(r.stdout)
    check = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
