"""Hooks written for Claude Code, run by the daemon itself with Claude Code's rules (``format: claude-code``).

No wrapper process: the daemon starts the hook's own command, as Claude Code would, through the
same process slots, containment and output caps as every command hook (hookd/runners/command.py):

- stdin: Claude Code's hook input, rebuilt from the payload (hookd/agents/claude_code/hooks.py);
- environment: the agent's, as the bridge forwarded it (the payload's ``agentEnv``, over hookd's
  own, which stands alone when a call carries none), plus ``CLAUDE_PROJECT_DIR``, the hook's ``env`` (an imported plugin's
  ``CLAUDE_PLUGIN_ROOT``) and the ``HOOKD_*`` variables;
- working directory: the agent's (the input's ``cwd``), else the project directory;
- the answer: exit codes and JSON read as Claude Code's hooks reference says
  (``claude_hooks.answer``); what Claude Code reports as a non-blocking error is a hook error here,
  so the hook's on_error applies (``continue`` for imported hooks, as in Claude Code).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from hookd_client.messages import Decision

from hookd.agents.claude_code import hooks as claude_hooks
from hookd.agents.dialect import AGENT_ENV, agent_env
from hookd.core import intake, trace
from hookd.core.chain import HookNotRun
from hookd.core.hooks import HookFailure
from hookd.runners.output import output_tail
from hookd.runners.slots import Shed

if TYPE_CHECKING:
    from hookd.core.registry import CallContext, Hook

_json = msgspec.json.Encoder()


class Spawner(Protocol):
    """What a hook written for Claude Code is run with: the command runner's spawn, its environment
    and its count of shed observer calls (hookd/runners/command.py)."""

    base_env: dict[str, str]

    def environment(self, hook: Hook, ctx: CallContext, env: dict[str, str] | None = None) -> dict[str, str]: ...

    async def run(
        self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: str, *, decision: bool = True
    ) -> tuple[bytes, bytes, int]: ...

    def shed(self, hook: Hook, ctx: CallContext) -> None: ...


def environment(runner: Spawner, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> dict[str, str]:
    # The agent's variables over hookd's own: a bridge may forward only the variables hooks read
    # (PATH, HOME, CLAUDE_*...), and the rest (locale, terminal) is the same user's session anyway.
    env = dict(runner.base_env)
    forwarded = payload.get(AGENT_ENV)
    if not isinstance(forwarded, dict):
        # The daemon's HTTP endpoint keeps the agent's environment by session, out of the payload.
        forwarded = agent_env(ctx.session)
    if isinstance(forwarded, dict):
        env.update((k, v) for k, v in forwarded.items() if isinstance(k, str) and isinstance(v, str))
    if ctx.project:
        env.setdefault("CLAUDE_PROJECT_DIR", ctx.project)
    return runner.environment(hook, ctx, env)


def working_dir(hook: Hook, data: dict[str, Any], ctx: CallContext) -> str:
    """Where Claude Code would run the hook: its session's working directory, else the project's."""
    cwd = data.get("cwd")
    if isinstance(cwd, str) and cwd.startswith("/") and os.path.isdir(cwd):
        base = cwd
    elif ctx.project and os.path.isdir(ctx.project):
        base = ctx.project
    elif hook.scope == "project":
        base = hook.owner
    else:
        base = os.path.expanduser("~")
    own = hook.spec.cwd if hook.spec is not None else None
    return os.path.normpath(os.path.join(base, os.path.expanduser(own))) if own else base


async def call(runner: Spawner, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
    spec = hook.spec
    assert spec is not None, "a command hook always has a spec"
    decision = hook.type == "decision"
    data = claude_hooks.hook_input(payload, ctx.point, ctx.session or "", ctx.project or "", os.path.expanduser("~"))
    event = str(data.get("hook_event_name", ""))
    env = environment(runner, hook, payload, ctx)
    try:
        stdout, stderr, code = await runner.run(
            [spec.command, *spec.args], _json.encode(data), env, working_dir(hook, data, ctx), decision=decision
        )
    except Shed as exc:
        runner.shed(hook, ctx)
        raise HookNotRun("shed", f"observer shed: {exc}") from None
    trace.output(stdout, stderr)
    out, err = stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace")
    try:
        answer = claude_hooks.answer(event, code, out, err)
    except claude_hooks.NotADecision as exc:
        detail = f"; stderr: {output_tail(stderr)}" if stderr.strip() and code != 0 else ""
        raise HookFailure("error", f"{exc}{detail}") from None
    if not decision or answer is None:
        return None
    try:
        intake.check(answer, "the answer")
        return msgspec.convert(answer, Decision)
    except (intake.Unfit, msgspec.ValidationError) as exc:
        raise HookFailure("error", f"the answer cannot be carried: {exc}: {output_tail(stdout, 300)}") from None
