"""Tab completion in real shells: what bash, zsh and fish offer after `hookd decide`, `hookd emit` and
`hookd bridge install`, from the scripts `hookd completion SHELL` prints.

bash runs its completion function on the words as it would split them; zsh completes a line typed
into an interactive zsh on a pseudo-terminal (zpty), with its completion system loaded, and reports
every match it offers; fish answers `complete -C` for a command line as it would at a tab.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from hookd.cli import build_parser
from hookd.cli.bridge import INSTALLABLE
from hookd.cli.helptopics import subparser
from hookd.core.points import POINTS, decision_points

from ..conftest import Env, write_script

# Typed line (the word being completed last, possibly empty) -> what the shell must offer.
CASES = {
    "hookd decide ": {*decision_points(), "custom."},
    "hookd decide tool.approval.p": {"tool.approval.pre"},
    "hookd emit tool.approval.p": {"tool.approval.pre", "tool.approval.post"},
    "hookd emit ": {*POINTS, "custom."},
    "hookd bridge install ": set(INSTALLABLE),
    "hookd bridge install --project ": set(INSTALLABLE),  # a flag there, not a path
    "hookd bridge uninstall q": {"qwen"},
    "hookd bridge install --fail-c": {"--fail-closed"},
    "hookd bridge in": {"install"},
}


def _bridge_subcommands() -> set[str]:
    bridge = subparser(build_parser(), "bridge")
    action = next(a for a in bridge._actions if isinstance(a, argparse._SubParsersAction))
    return set(action.choices)


def _check_the_cases() -> None:
    """The table asks what the daemon and the parser accept: decide decides on decision points only
    (an observer point is refused), and the agents are bridge install's own choices."""
    observers = {name for name, p in POINTS.items() if p.kind == "observer"}
    assert observers and not observers & CASES["hookd decide "]
    install = subparser(subparser(build_parser(), "bridge"), "install")
    (agent,) = [a for a in install._actions if a.dest == "agent"]
    assert set(agent.choices) == CASES["hookd bridge install "]
    assert "install" in _bridge_subcommands()


@pytest.fixture
def shell_env(env: Env, tmp_path: Path) -> dict[str, str]:
    """The environment with `hookd` on PATH, as a user who installed it has."""
    bindir = tmp_path / "bin"
    write_script(bindir / "hookd", "import sys\nfrom hookd.cli import main\nsys.exit(main())\n")
    return {**env.env, "PATH": f"{bindir}{os.pathsep}{env.env['PATH']}"}


def _offered(out: str) -> list[set[str]]:
    return [set(line.split()) for line in out.splitlines()]


def _script(env: dict[str, str], shell: str, where: Path) -> Path:
    r = subprocess.run(["hookd", "completion", shell], env=env, capture_output=True, text=True, timeout=60, check=True)
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(r.stdout)
    return where


def bash(env: dict[str, str], tmp_path: Path, typed: list[str]) -> list[set[str]]:
    script = _script(env, "bash", tmp_path / "hookd.bash")
    driver = textwrap.dedent(
        f"""\
        source {script}
        t() {{ COMP_WORDS=("$@"); COMP_CWORD=$((${{#COMP_WORDS[@]}}-1)); COMPREPLY=(); _hookd_complete; echo "${{COMPREPLY[*]}}"; }}
        """
    )
    # The words as bash splits the line; the word being completed is the last, "" after a space.
    words = [line.split() + ([""] if line.endswith(" ") else []) for line in typed]
    calls = "\n".join("t " + " ".join(shlex.quote(w) for w in line) for line in words)
    r = subprocess.run(["bash", "-c", driver + calls], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return _offered(r.stdout)


ZSH_SETUP = """\
PS1='' PROMPT='' RPS1='' RPROMPT=''
bindkey -e
unsetopt AUTO_LIST LIST_AMBIGUOUS BEEP
fpath=({comp} $fpath)
autoload -Uz compinit && compinit -u -D
# Each match a completion offers, printed as <<match>> as it is added: what the shell would list.
compadd() {{
    if (( ${{@[(I)-[OAD]]}} )); then
        builtin compadd "$@"
        return
    fi
    local -a __hookd_offered
    builtin compadd -O __hookd_offered "$@"
    local m
    for m in $__hookd_offered; do print -r -- "<<$m>>"; done
    builtin compadd "$@"
}}
# Tab completes as usual, then says it is done.
_hookd_test_complete() {{ zle complete-word; print -r -- "<<END>>"; }}
zle -N _hookd_test_complete
bindkey '^I' _hookd_test_complete
print -r -- "<<READY>>"
"""

ZSH_DRIVER = """\
zmodload zsh/zpty
zpty hz zsh -f -i
zpty -w hz "source {setup}"
local line
while zpty -r hz line; do [[ $line == *'<<READY>>'* ]] && break; done
for typed in "$@"; do
    zpty -w -n hz "$typed"$'\\t'
    local -a got=()
    while zpty -r hz line; do
        [[ $line == *'<<END>>'* ]] && break
        [[ $line == *'<<'*'>>'* ]] && got+=("${{${{line#*<<}}%%>>*}}")
    done
    print -r -- "${{(j: :)got}}"
    zpty -w -n hz $'\\C-u'
done
zpty -d hz
"""


def zsh(env: dict[str, str], tmp_path: Path, typed: list[str]) -> list[set[str]]:
    _script(env, "zsh", tmp_path / "comp" / "_hookd")
    setup = tmp_path / "setup.zsh"
    setup.write_text(ZSH_SETUP.format(comp=tmp_path / "comp"))
    driver = tmp_path / "drive.zsh"
    driver.write_text(ZSH_DRIVER.format(setup=setup))
    r = subprocess.run(["zsh", "-f", str(driver), *typed], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return _offered(r.stdout)


def fish(env: dict[str, str], tmp_path: Path, typed: list[str]) -> list[set[str]]:
    script = _script(env, "fish", tmp_path / "hookd.fish")
    # complete -C prints "match<TAB>description" per match; an empty line ends each case.
    calls = "\n".join(f"complete -C {_fish_quote(line)} | string replace -r '\\t.*' ''; echo" for line in typed)
    r = subprocess.run(["fish", "--no-config", "-c", f"source {script}\n{calls}"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    cases = r.stdout.split("\n\n")
    return [set(case.split()) for case in cases[: len(typed)]]


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


SHELLS = {"bash": bash, "zsh": zsh, "fish": fish}


@pytest.mark.parametrize("shell", list(SHELLS))
def test_decide_offers_decision_points_and_bridge_install_offers_the_agents(shell: str, shell_env: dict[str, str], tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    _check_the_cases()
    typed = list(CASES)
    offered = SHELLS[shell](shell_env, tmp_path, typed)
    assert len(offered) == len(typed), offered
    wrong = {line: (got, CASES[line]) for line, got in zip(typed, offered, strict=True) if got != CASES[line]}
    assert not wrong, wrong


@pytest.mark.parametrize("shell", list(SHELLS))
def test_bridge_offers_its_subcommands(shell: str, shell_env: dict[str, str], tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    (offered,) = SHELLS[shell](shell_env, tmp_path, ["hookd bridge "])
    assert offered == _bridge_subcommands()
