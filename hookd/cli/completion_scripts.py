"""The completion scripts of `hookd completion`, generated from the parser's structure.

``structure`` maps each command, and each subcommand as "command sub" (``bridge install``), to its
help line, its options (option -> its choices, [] for a free value, None for a flag), the choices
of its first positional argument and its subcommands. Dynamic values come from
`hookd completion --list KIND` at tab time.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from functools import partial
from typing import Any

Structure = dict[str, dict[str, Any]]
# What the positional arguments of a command take, by `--list` kind ("files": file names).
# `decide` asks the decision chain, which an observer point does not have, so it is offered the
# decision points only; `emit` runs the observers of any point (a decision point has observers too).
POSITIONAL = {
    "emit": "points",
    "decide": "decision-points",
    "explain": "points",
    "enable": "hooks",
    "disable": "hooks",
    "help": "help",
    "completion": "shells",
    "check": "files",
    "edit": "files",
    "trust": "files",
    "untrust": "files",
    "bridge install": "agents",
    "bridge uninstall": "agents",
}


OPTION_VALUES = {"--point": "points", "--example": "points"}


PATH_OPTIONS = ("--socket", "--journal", "--log-file", "--project", "-p", "--settings", "--unit-dir", "--client", "--agent-cli")

_LIST = "hookd completion --list {} 2>/dev/null"


def _value(opt: str, choices: list[str] | None) -> tuple[str, Any] | None:
    """What an option's value completes to: ("list", kind), ("files", None), ("words", choices), ("none", None);
    None for a flag."""
    if choices is None:
        return None
    if opt in OPTION_VALUES:
        return "list", OPTION_VALUES[opt]
    if opt in PATH_OPTIONS:
        return "files", None
    if choices:
        return "words", choices
    return "none", None


def _positional(key: str, info: dict[str, Any]) -> tuple[str, Any] | None:
    kind = POSITIONAL.get(key)
    if kind == "files":
        return "files", None
    if kind is not None:
        return "list", kind
    if info.get("choices"):
        return "words", info["choices"]
    return None


def _parents(structure: Structure) -> dict[str, dict[str, str]]:
    """The commands that have subcommands -> {subcommand: help}."""
    return {key: info["subcommands"] for key, info in structure.items() if info.get("subcommands")}


def _value_cases(structure: Structure, offer: Callable[[tuple[str, Any]], str]) -> list[str]:
    """The arms of the `case "$key $prev"` that offers an option's value, in bash or in zsh (the
    same syntax); ``offer`` is the shell's statement for what the value completes to."""
    cases = []
    for key, info in structure.items():
        for opt, choices in info["options"].items():
            what = _value(opt, choices)
            if what is not None:
                cases.append(f"        {shlex.quote(f'{key} {opt}')}) {offer(what)}; return ;;")
    return cases


# How each shell offers a value, by its kind ("list": the daemon's words of that list, "files", "words":
# these words), as a statement made from what the value names; anything else offers nothing.
_BASH_OFFERS: dict[str, Callable[[Any], str]] = {
    "list": lambda name: f'COMPREPLY=($(compgen -W "$({_LIST.format(name)})" -- "$cur"))',
    "files": lambda _: 'COMPREPLY=($(compgen -f -- "$cur"))',
    "words": lambda words: f'COMPREPLY=($(compgen -W {shlex.quote(" ".join(words))} -- "$cur"))',
}
_ZSH_OFFERS: dict[str, Callable[[Any], str]] = {
    "list": lambda name: f'compadd -- ${{(f)"$({_LIST.format(name)})"}}',
    "files": lambda _: "_files",
    "words": lambda words: f"compadd -- {' '.join(shlex.quote(c) for c in words)}",
}


def _offer(offers: dict[str, Callable[[Any], str]], nothing: str, what: tuple[str, Any]) -> str:
    """The statement of a shell (its ``offers``) that offers ``what``; ``nothing`` for a kind it has no statement for."""
    kind, arg = what
    make = offers.get(kind)
    return make(arg) if make is not None else nothing


_bash_reply = partial(_offer, _BASH_OFFERS, "COMPREPLY=()")
_zsh_offer = partial(_offer, _ZSH_OFFERS, ":")


def bash(structure: Structure) -> str:
    commands = " ".join(k for k in structure if " " not in k)
    parents = _parents(structure)
    value_cases = _value_cases(structure, _bash_reply)
    option_cases = []
    positional = []
    for key, info in structure.items():
        option_cases.append(f"            {shlex.quote(key)}) words={shlex.quote(' '.join(info['options']))} ;;")
        what = ("words", list(parents[key])) if key in parents else _positional(key, info)
        if what is not None:
            positional.append(f"        {shlex.quote(key)}) {_bash_reply(what)}; return ;;")
    nested = " ".join(parents)
    nl = "\n"
    return f"""# bash completion for hookd. Install: hookd completion bash > ~/.local/share/bash-completion/completions/hookd
_hookd_complete() {{
    local cur prev key words i
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    # The command (and, for a command with subcommands, the subcommand): its first words that are not options.
    key=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            -*) ;;
            *)
                if [[ -z "$key" ]]; then
                    key="${{COMP_WORDS[i]}}"
                    [[ " {nested} " == *" $key "* ]] || break
                else
                    key="$key ${{COMP_WORDS[i]}}"
                    break
                fi
                ;;
        esac
    done
    if [[ -z "$key" ]]; then
        COMPREPLY=($(compgen -W "{commands} --help --version" -- "$cur"))
        return
    fi
    case "$key $prev" in
{nl.join(value_cases)}
    esac
    if [[ "$cur" == -* ]]; then
        words=""
        case "$key" in
{nl.join(option_cases)}
        esac
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return
    fi
    case "$key" in
{nl.join(positional)}
    esac
    COMPREPLY=()
}}
complete -F _hookd_complete hookd
"""


def _zq(name: str, about: str) -> str:
    """A zsh single-quoted ``name:about`` for _describe (a ':' inside either escaped)."""
    text = name.replace(":", "\\:") + ":" + about.replace(":", "\\:")
    return "'" + text.replace("'", "'\\''") + "'"


def zsh(structure: Structure) -> str:
    described = "\n".join("        " + _zq(cmd, info["help"]) for cmd, info in structure.items() if " " not in cmd)
    parents = _parents(structure)
    value_cases = _value_cases(structure, _zsh_offer)
    option_cases = []
    positional = []
    for key, info in structure.items():
        option_cases.append(f"        {shlex.quote(key)}) compadd -- {' '.join(info['options'])} ;;")
        if key in parents:
            subs = " ".join(_zq(name, about) for name, about in parents[key].items())
            described_subs = f"local -a subs; subs=({subs}); _describe -t commands {shlex.quote(f'hookd {key} command')} subs"
            positional.append(f"        {shlex.quote(key)}) {described_subs} ;;")
            continue
        what = _positional(key, info)
        if what is not None:
            positional.append(f"        {shlex.quote(key)}) {_zsh_offer(what)} ;;")
    nested = " ".join(parents)
    nl = "\n"
    return f"""#compdef hookd
# zsh completion for hookd. Install: hookd completion zsh > "${{fpath[1]}}/_hookd" (then restart zsh)
_hookd() {{
    local -a commands
    commands=(
{described}
    )
    if (( CURRENT == 2 )); then
        _describe -t commands 'hookd command' commands
        return
    fi
    # The command (and, for a command with subcommands, the subcommand): its first words that are not options.
    local key="" prev=${{words[CURRENT-1]}} i
    for ((i = 2; i < CURRENT; i++)); do
        [[ ${{words[i]}} == -* ]] && continue
        if [[ -z $key ]]; then
            key=${{words[i]}}
            [[ " {nested} " == *" $key "* ]] || break
        else
            key="$key ${{words[i]}}"
            break
        fi
    done
    case "$key $prev" in
{nl.join(value_cases)}
    esac
    if [[ $PREFIX == -* ]]; then
        case $key in
{nl.join(option_cases)}
        esac
        return
    fi
    case $key in
{nl.join(positional)}
    esac
}}
if [[ "${{funcstack[1]}}" == "_hookd" ]]; then
    _hookd "$@"
else
    compdef _hookd hookd
fi
"""


def _fq(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(structure: Structure) -> str:
    parents = _parents(structure)
    lines = [
        "# fish completion for hookd. Install: hookd completion fish > ~/.config/fish/completions/hookd.fish",
        "complete -c hookd -f",
        # The command (and, for a command with subcommands, the subcommand): the first words before the
        # cursor that are not options. `__hookd_at bridge install` is true while completing its arguments.
        "function __hookd_key",
        "    set -l key",
        "    set -l words (commandline -opc)",
        "    set -e words[1]",
        "    for w in $words",
        "        string match -q -- '-*' $w; and continue",
        "        set -a key $w",
        f"        if not contains -- $key[1] {' '.join(parents) or '-'}; or test (count $key) -ge 2",
        "            break",
        "        end",
        "    end",
        '    string join " " -- $key',
        "end",
        "function __hookd_at",
        "    set -l key (__hookd_key)",
        '    test "$key" = "$argv"',
        "end",
    ]
    for cmd, info in structure.items():
        if " " not in cmd:
            lines.append(f"complete -c hookd -n __fish_use_subcommand -a {cmd} -d {_fq(info['help'])}")
    for key, subs in parents.items():
        for name, about in subs.items():
            lines.append(f"complete -c hookd -n {_fq('__hookd_at ' + key)} -a {name} -d {_fq(about)}")
    for key, info in structure.items():
        at = f"-n {_fq('__hookd_at ' + key)}"
        for opt, choices in info["options"].items():
            flag = f"-l {opt[2:]}" if opt.startswith("--") else f"-s {opt[1:]}"
            what = _value(opt, choices)
            if what is None:
                value = ""
            elif what[0] == "list":
                value = f"-x -a '({_LIST.format(what[1])})'"
            elif what[0] == "files":
                value = "-r -F"
            elif what[0] == "words":
                value = f"-x -a {_fq(' '.join(what[1]))}"
            else:
                value = "-x"
            lines.append(f"complete -c hookd {at} {flag} {value}".rstrip())
        if key in parents:
            continue
        what = _positional(key, info)
        if what is None:
            continue
        if what[0] == "files":
            lines.append(f"complete -c hookd {at} -F")
        elif what[0] == "list":
            lines.append(f"complete -c hookd {at} -a '({_LIST.format(what[1])})'")
        else:
            lines.append(f"complete -c hookd {at} -a {_fq(' '.join(what[1]))}")
    return "\n".join(lines) + "\n"
