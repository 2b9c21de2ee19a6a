"""`hookd hooks --global`: the hooks that hold whatever the project or session, as `decide --global`
uses them, and the rejected edits of the user's global files only; `--global` with `--project` is a
usage error. Real daemon, real YAML, real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from hookd_client import Client

from ..conftest import Env
from .test_user_config import deny_hook, hooks_file, write_project


def test_hooks_global_lists_the_global_hooks_only(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.write_global_hooks(hooks_file(deny_hook("g", "global guard")))
    dropin = env.config / "hookd" / "hooks.d" / "broken.yaml"
    dropin.parent.mkdir(parents=True, exist_ok=True)
    dropin.write_text("hooks: [\n")  # never valid: a rejected global file
    project = tmp_path / "proj"
    write_project(project, hooks_file(deny_hook("p", "project guard")))
    write_project(project, "hooks: [\n", ".codingcode")  # a rejected project file
    daemon = daemon_factory()
    spec = {"name": "s", "point": "tool.approval.pre", "type": "decision", "command": "/bin/true"}
    with Client(daemon.socket) as owner:
        owner.attach_session("s1", [spec])
        assert env.hookd("explain", "tool.approval.pre", "-p", str(project)).returncode == 0  # the project is loaded
        everything = json.loads(env.hookd("hooks", "--json").stdout)
        assert {h["name"] for h in everything["hooks"]} >= {"g", "p", "s"}
        assert {r["file"] for r in everything["rejected"]} == {str(dropin), str(project / ".codingcode" / "hooks.yaml")}
        listed = json.loads(env.hookd("hooks", "--global", "--json").stdout)
        assert [(h["name"], h["scope"]) for h in listed["hooks"]] == [("g", "global")]
        assert [r["file"] for r in listed.get("rejected", [])] == [str(dropin)]
        text = env.hookd("hooks", "--global").stdout
        assert " g " in text and " p " not in text and " s " not in text and "codingcode" not in text, text
    both = env.hookd("hooks", "--global", "-p", str(project))
    assert both.returncode == 2 and "not allowed with" in both.stderr, both.stderr
