"""Doctor's canary through opencode's plugin: the plugin file loaded by Node as opencode loads it, and called with
opencode's ``(input, output)`` for a shell tool call (hookd/agents/canary.py; the opencode row's ``loader``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping

from hookd.agents import registry
from hookd.agents.canary import TIMEOUT, Sent, blocked
from hookd.agents.registry import Hook

_DRIVER = """
import { pathToFileURL } from "node:url";
const [file, session, cwd, input] = process.argv.slice(1);
const { HookdPlugin } = await import(pathToFileURL(file).href);
const hooks = await HookdPlugin({ directory: cwd, worktree: cwd });
const output = { args: JSON.parse(input) };
let thrown = null;
try {
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: session, callID: "hookd-canary" }, output);
} catch (err) {
  thrown = String(err?.message ?? err);
}
process.stdout.write(JSON.stringify({ output, thrown }) + "\\n");
process.exit(0);
"""


def canary(hook: Hook, session_id: str, cwd: str, env: Mapping[str, str]) -> Sent:
    """The plugin, loaded by Node and called with opencode's ``(input, output)`` for the canary's tool call."""
    node = shutil.which("node", path=env.get("PATH"))
    if node is None:
        return Sent(
            hook, session_id, 0.0, failure="node is not on PATH: the plugin cannot be loaded to check it (opencode brings its own runtime)"
        )
    args = json.dumps(registry.shell_input(registry.agent(hook.agent)))
    try:
        done = subprocess.run(
            [node, "--input-type=module", "-e", _DRIVER, hook.target, session_id, cwd, args],
            capture_output=True,
            env=dict(env),
            cwd=cwd,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return Sent(hook, session_id, 0.0, failure=f"the plugin did not answer within {TIMEOUT:g} s")
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip()[-400:]
        return Sent(hook, session_id, 0.0, status=done.returncode, failure=f"the plugin did not load under Node: {err}")
    try:
        result = json.loads(done.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return Sent(hook, session_id, 0.0, failure=f"the plugin's driver printed no result: {done.stdout[:200]!r}")
    thrown = result.get("thrown")
    warned = done.stderr.decode("utf-8", "replace").strip()
    sent = Sent(hook, session_id, 0.0, answer=result, blocked=blocked(hook.agent, result))
    if not thrown and "opencode proceeds" in warned:
        return sent._replace(failure=warned.splitlines()[-1])
    return sent
