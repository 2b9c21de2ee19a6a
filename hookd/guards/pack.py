"""What a pack is: its rules by name, the commands each rule looks at, the tools it reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from hookd.guards.model import Context, Hit
from hookd.guards.paths import cwd_of
from hookd.guards.policy import Policy
from hookd.guards.shell import Cmd, Script


class Env(NamedTuple):
    """What a rule sees beside its command: the call's context, the policy, the whole script."""

    ctx: Context
    policy: Policy
    script: Script

    def cwd(self, cmd: Cmd) -> str | None:
        return cwd_of(self.ctx, cmd.cds)

    def upstream(self, cmd: Cmd) -> list[Cmd]:
        """The commands whose output flows into ``cmd``: earlier stages of its pipeline, nearest first."""
        if cmd.group < 0 or cmd.stage == 0:
            return []
        ups = [c for c in self.script.cmds if c.group == cmd.group and c.stage < cmd.stage]
        return sorted(ups, key=lambda c: -c.stage)

    def downstream(self, cmd: Cmd) -> list[Cmd]:
        if cmd.group < 0:
            return []
        return [c for c in self.script.cmds if c.group == cmd.group and c.stage > cmd.stage]

    def fed(self, cmd: Cmd) -> list[Cmd]:
        """The commands of the substitutions in ``cmd``'s words."""
        cmds = self.script.cmds
        return [cmds[i] for i in cmd.feeds if i < len(cmds)]


CommandRule = Callable[[Cmd, Env], Hit | None]
ToolRule = Callable[[str, Mapping[str, Any], Context, Policy], Hit | None]


class Pack(NamedTuple):
    name: str
    rules: dict[str, str]  # full rule name -> one-line summary
    commands: dict[str, tuple[CommandRule, ...]]  # command name -> the rules that read it
    every: tuple[CommandRule, ...] = ()  # rules that read every command (redirects, pipelines)
    tools: dict[str, ToolRule] = {}  # canonical tool name -> the rule that reads its arguments
    safer: dict[str, str] = {}  # rule name -> the safer command, for docs/guards-rules.md


def flags(argv: tuple[str, ...], with_value: frozenset[str] = frozenset()) -> tuple[set[str], set[str], list[str]]:
    """(short option letters, long options, operands) of a command's arguments, ``--`` ending options.

    ``-rf`` gives {"r", "f"}; ``--force=x`` gives "--force"; an option in ``with_value`` takes the next word.
    """
    short: set[str] = set()
    long: set[str] = set()
    operands: list[str] = []
    i = 1
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            operands.extend(argv[i + 1 :])
            break
        if a.startswith("--"):
            name = a.split("=", 1)[0]
            long.add(name)
            if name in with_value and "=" not in a:
                i += 1
        elif a.startswith("-") and len(a) > 1:
            if a in with_value:
                short.add(a[1])
                i += 1
            else:
                short.update(a[1:])
        else:
            operands.append(a)
        i += 1
    return short, long, operands


TOO_DEEP = "a command nested too deep (bash -c, eval, piped scripts) or too long to be read through: blocked, not guessed"
