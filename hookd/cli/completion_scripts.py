"""The completion scripts of `hookd completion`, generated from the parser's structure.

``structure`` maps each command to its help line and options (option -> its
choices, [] for a free value, None for a flag). Dynamic values come from
`hookd completion --list KIND` at tab time.
"""

from __future__ import annotations

import shlex
from typing import Any

Structure = dict[str, dict[str, Any]]
POSITIONAL = {
    "emit": "points",
    "decide": "points",
    "explain": "points",
    "enable": "hooks",
    "disable": "hooks",
    "help": "help",
    "completion": "shells",
    "check": "files",
    "edit": "files",
    "trust": "files",
    "untrust": "files",
}


OPTION_VALUES = {"--point": "points", "--example": "points"}


PATH_OPTIONS = ("--socket", "--journal", "--log-file", "--project", "-p")

_LIST = "hookd completion --list {} 2>/dev/null"


def _kinds(kind: str) -> list[str]:
    return [kind]


def bash(structure: Structure) -> str:
    commands = " ".join(structure)
    value_cases = []
    option_cases = []
    for cmd, info in structure.items():
        opts: dict[str, Any] = info["options"]
        option_cases.append(f"            {cmd}) words={shlex.quote(' '.join(opts))} ;;")
        for opt, choices in opts.items():
            if opt in OPTION_VALUES or opt in PATH_OPTIONS:
                continue
            if choices:
                words = shlex.quote(" ".join(choices))
                value_cases.append(f'        "{cmd} {opt}") COMPREPLY=($(compgen -W {words} -- "$cur")); return ;;')
            elif choices == []:
                value_cases.append(f'        "{cmd} {opt}") COMPREPLY=(); return ;;')
    positional = []
    for cmd, kind in POSITIONAL.items():
        if kind == "files":
            positional.append(f'        {cmd}) COMPREPLY=($(compgen -f -- "$cur")); return ;;')
        else:
            lists = "; ".join(_LIST.format(k) for k in _kinds(kind))
            positional.append(f'        {cmd}) COMPREPLY=($(compgen -W "$({lists})" -- "$cur")); return ;;')
    nl = "\n"
    return f"""# bash completion for hookd. Install: hookd completion bash > ~/.local/share/bash-completion/completions/hookd
_hookd_complete() {{
    local cur prev cmd words i
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in -*) ;; *) cmd="${{COMP_WORDS[i]}}"; break ;; esac
    done
    if [[ -z "$cmd" ]]; then
        COMPREPLY=($(compgen -W "{commands} --help --version" -- "$cur"))
        return
    fi
    case "$prev" in
        {"|".join(OPTION_VALUES)}) COMPREPLY=($(compgen -W "$({_LIST.format("points")})" -- "$cur")); return ;;
        {"|".join(PATH_OPTIONS)}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    case "$cmd $prev" in
{nl.join(value_cases)}
    esac
    if [[ "$cur" == -* ]]; then
        words=""
        case "$cmd" in
{nl.join(option_cases)}
        esac
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return
    fi
    case "$cmd" in
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
    described = "\n".join("        " + _zq(cmd, info["help"]) for cmd, info in structure.items())
    value_cases = []
    option_cases = []
    for cmd, info in structure.items():
        opts: dict[str, Any] = info["options"]
        option_cases.append(f"        {cmd}) compadd -- {' '.join(opts)} ;;")
        for opt, choices in opts.items():
            if opt in OPTION_VALUES or opt in PATH_OPTIONS:
                continue
            if choices:
                value_cases.append(f'        "{cmd} {opt}") compadd -- {" ".join(shlex.quote(c) for c in choices)}; return ;;')
            elif choices == []:
                value_cases.append(f'        "{cmd} {opt}") return ;;')
    positional = []
    for cmd, kind in POSITIONAL.items():
        if kind == "files":
            positional.append(f"        {cmd}) _files ;;")
        else:
            adds = "; ".join(f'compadd -- ${{(f)"$({_LIST.format(k)})"}}' for k in _kinds(kind))
            positional.append(f"        {cmd}) {adds} ;;")
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
    local cmd=${{words[2]}} prev=${{words[CURRENT-1]}}
    case $prev in
        {"|".join(OPTION_VALUES)}) compadd -- ${{(f)"$({_LIST.format("points")})"}}; return ;;
        {"|".join(PATH_OPTIONS)}) _files; return ;;
    esac
    case "$cmd $prev" in
{nl.join(value_cases)}
    esac
    if [[ $PREFIX == -* ]]; then
        case $cmd in
{nl.join(option_cases)}
        esac
        return
    fi
    case $cmd in
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
    lines = [
        "# fish completion for hookd. Install: hookd completion fish > ~/.config/fish/completions/hookd.fish",
        "complete -c hookd -f",
    ]
    for cmd, info in structure.items():
        lines.append(f"complete -c hookd -n __fish_use_subcommand -a {cmd} -d {_fq(info['help'])}")
    for cmd, info in structure.items():
        seen = f"-n '__fish_seen_subcommand_from {cmd}'"
        for opt, choices in info["options"].items():
            flag = f"-l {opt[2:]}" if opt.startswith("--") else f"-s {opt[1:]}"
            if opt in OPTION_VALUES:
                value = f"-x -a '({_LIST.format('points')})'"
            elif opt in PATH_OPTIONS:
                value = "-r -F"
            elif choices:
                value = f"-x -a {_fq(' '.join(choices))}"
            elif choices == []:
                value = "-x"
            else:
                value = ""
            lines.append(f"complete -c hookd {seen} {flag} {value}".rstrip())
    for cmd, kind in POSITIONAL.items():
        seen = f"-n '__fish_seen_subcommand_from {cmd}'"
        if kind == "files":
            lines.append(f"complete -c hookd {seen} -F")
        else:
            for k in _kinds(kind):
                lines.append(f"complete -c hookd {seen} -a '({_LIST.format(k)})'")
    return "\n".join(lines) + "\n"
