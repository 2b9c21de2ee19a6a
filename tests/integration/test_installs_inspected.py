"""What `hookd doctor` and `hookd bridge status` will read: where each agent's install lives and what is wrong
with it, from the files `hookd bridge install` wrote (and those an earlier version wrote)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hookd.agents import installs, settings_file
from hookd.config.statefiles import state_home

from ..conftest import HOOKD, Env


def test_every_agent_s_fresh_install_is_found_and_has_no_problem(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    state = state_home(env.env)
    agents = [a for a in installs.AGENTS if a != "opencode" or shutil.which("node")]
    for agent in agents:
        extra = ("--no-trust", "--accept-untrusted") if agent == "codex" else ()
        r = subprocess.run([*HOOKD, "bridge", "install", agent, *extra], env=env.env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, env.env[name])  # the user's files as that user sees them
    monkeypatch.delenv("CODEX_HOME", raising=False)
    for agent in agents:
        found = [installs.inspect(agent, p) for p in installs.locations(agent, str(env.root), state)]
        [install] = [i for i in found if i.hooks]
        assert install.problems == (), install


def test_an_earlier_versions_narrowed_install_is_named(tmp_path: Path) -> None:
    route = settings_file.Route(port=1, token="t", token_file="/t", shim=None, fallback="hookd")
    hooks = {e: [route.group(e)] for e in ("UserPromptSubmit", "SessionStart", "Stop")}
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    install = installs.inspect("claude-code", str(settings))
    assert install.hooks == 3
    [problem] = install.problems
    assert problem.startswith("events not sent to hookd: PreToolUse, PostToolUse,") and "install again" in problem


@pytest.mark.parametrize(
    ("imports", "beside", "problem"),
    [('from "hookd-client"', False, "does not exist"), ('from "./hookd-client.mjs"', False, "is missing beside the plugin")],
)
def test_an_opencode_plugin_that_cannot_load_is_named(tmp_path: Path, imports: str, beside: bool, problem: str) -> None:
    from hookd.agents.opencode import install as opencode

    plugin = tmp_path / opencode.FILE_NAME
    plugin.write_text(f"{opencode.MARK}\n// created by install: []\nimport {{ Client }} {imports};\n")
    [line] = installs.inspect("opencode", str(plugin)).problems
    assert problem in line
