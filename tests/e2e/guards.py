"""The global guards every agent's end-to-end suite installs: one denies `rm -rf`, one rewrites
`echo original` into `echo rewritten`. Defined once, so the guard that stops Claude Code, Codex,
Gemini CLI, Qwen Code and opencode is the same hooks.yaml in each."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Env, write_script

GUARDS = """\
hooks:
  - name: no-rm-rf
    point: {point}
    type: decision
    command: {scripts}/no_rm_rf.py
    enabled: true
  - name: rewrite-placeholder
    point: {point}
    type: decision
    command: {scripts}/rewrite.py
    enabled: true
"""
NO_RM_RF = """
import json, sys
command = json.load(sys.stdin).get("args", {}).get("command", "")
print(json.dumps({"decision": "deny", "reason": "no recursive force delete"}) if "rm -rf" in command else "null")
"""
REWRITE = """
import json, sys
args = json.load(sys.stdin).get("args", {})
command = args.get("command", "")
rewritten = dict(args, command=command.replace("echo original", "echo rewritten"))
print(json.dumps({"decision": "allow", "modifiedInput": rewritten}) if "echo original" in command else "null")
"""


def install_readme_guard(env: Env) -> None:
    """The README's guard, as written there, beside the global hooks.yaml (hooks.d/readme.yaml)."""
    from tests.docs.test_samples import readme_hooks_file

    readme = env.config / "hookd" / "hooks.d" / "readme.yaml"
    readme.parent.mkdir(parents=True, exist_ok=True)
    readme.write_text(readme_hooks_file())


def install_guards(env: Env, scripts: Path, point: str = "tool.approval.pre") -> None:
    """Write the two guards' scripts under ``scripts`` and a global hooks.yaml running them on ``point``."""
    scripts.mkdir(parents=True, exist_ok=True)
    write_script(scripts / "no_rm_rf.py", NO_RM_RF)
    write_script(scripts / "rewrite.py", REWRITE)
    env.write_global_hooks(GUARDS.format(scripts=scripts, point=point))
