"""One tool call through the packs: the first rule that fires and the policy does not allow."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from hookd.guards.catalogue import PACK_TABLE, too_deep
from hookd.guards.model import Context, Finding, Hit
from hookd.guards.pack import Env, Pack
from hookd.guards.policy import Policy
from hookd.guards.shell import MAX_COMMANDS, MAX_DEPTH, parse

SHELL_TOOL = "execute_command"


def _finding(pack: str, hit: Hit, command: str, policy: Policy) -> Finding:
    return Finding(pack, hit.rule, policy.decision(hit.rule), hit.reason, command)


def check(packs: Sequence[str], tool: str, args: Mapping[str, Any], ctx: Context, policy: Policy) -> Finding | None:
    """The first finding of ``packs`` (in their order) on a tool call, or None. Never raises for what an agent sends."""
    if not isinstance(args, Mapping):
        return None
    if not (
        isinstance(ctx.home, str)
        and (ctx.cwd is None or isinstance(ctx.cwd, str))
        and (ctx.project is None or isinstance(ctx.project, str))
    ):
        ctx = Context(_text_or_none(ctx.cwd), _text_or_none(ctx.project), ctx.home if isinstance(ctx.home, str) else "")
    chosen = [PACK_TABLE[p] for p in packs if isinstance(p, str) and p in PACK_TABLE]
    if tool == SHELL_TOOL:
        command = args.get("command")
        if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
            command = shlex.join(command)  # an argv (["bash", "-lc", "..."]): the same words, quoted
        if not isinstance(command, str) or not command.strip():
            return None
        return _shell(chosen, command, ctx, policy)
    for pack in chosen:
        rule = pack.tools.get(tool)
        if rule is None:
            continue
        hit = rule(tool, args, ctx, policy)
        if hit is not None and not policy.allowed(hit.rule):
            path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), None)
            return _finding(pack.name, hit, f"{tool} {path}" if path else tool, policy)
    return None


_PATH_KEYS = ("path", "file_path", "filePath", "absolute_path", "notebook_path")


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _asks_for_help(argv: tuple[str, ...]) -> bool:
    """``docker push --help``: the tool prints its usage and does nothing else."""
    for a in argv[1:]:
        if a == "--":
            return False
        if a == "--help":
            return True
    return False


def _shell(chosen: list[Pack], command: str, ctx: Context, policy: Policy) -> Finding | None:
    script = parse(command)
    env = Env(ctx, policy, script)
    for pack in chosen:
        commands = pack.commands
        every = pack.every
        for cmd in script.cmds:
            if not cmd.argv or _asks_for_help(cmd.argv):
                continue
            for rule in commands.get(cmd.argv[0], ()):
                hit = rule(cmd, env)
                if hit is not None and not policy.allowed(hit.rule):
                    return _finding(pack.name, hit, cmd.text, policy)
            for rule in every:
                hit = rule(cmd, env)
                if hit is not None and not policy.allowed(hit.rule):
                    return _finding(pack.name, hit, cmd.text, policy)
    if not script.complete:
        for pack in chosen:
            name = too_deep(pack.name)
            if policy.allowed(name):
                continue
            why = (
                f"the command nests bash -c, eval or piped scripts more than {MAX_DEPTH} levels deep"
                if script.too_deep
                else f"the command runs more than {MAX_COMMANDS} commands"
            )
            reason = f"{why}, so the {pack.name} pack cannot see what the innermost part would do; run the inner command directly instead"
            return Finding(pack.name, name, policy.decision(name), reason, command[:200])
    return None
