"""One tool vocabulary for every agent: seed 000's names, so one guard is written once.

Seed 000 names the shell tool ``execute_command`` with the command in ``args.command``. Every
agent names its tools its own way (Claude Code's ``Bash``, Gemini CLI's ``run_shell_command``,
opencode's ``bash``) and its arguments too (``file_path``, ``filePath``, ``dir_path``). Each bridge
passes a tool call through :func:`canonical` before hookd sees it:

- ``toolName`` becomes the canonical name (a tool with no canonical name keeps the agent's own);
- ``agentToolName`` keeps the agent's own name, and ``agent`` names the agent;
- ``args`` keeps every argument the agent sent, under its own name, and gains the canonical name
  of each argument the table renames (``path`` beside Claude Code's ``file_path``). Only short
  values are renamed (paths, a URL, a query), so a call costs its size once against the frame limit.

A guard's rewrite (``modifiedInput``) may use either name; :func:`agent_args` turns it back into the
agent's own arguments, the canonical name winning where the guard changed it. (An agent that itself
sends an argument under hookd's name with the very value of the one renamed onto it cannot be told
from the alias: the two are read as one.) Pure data and
functions: the opencode plugin gets the same table as JSON (:func:`table`), so the rule exists once.
docs/bridges.md, "One tool vocabulary", is this table in prose.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

AGENT_KEY = "agent"
AGENT_TOOL_KEY = "agentToolName"
TOOL_KEY = "toolName"
ARGS_KEY = "args"


class Tool(NamedTuple):
    """An agent's tool: its canonical name and the arguments renamed (agent's name -> canonical name)."""

    name: str
    renames: tuple[tuple[str, str], ...] = ()
    # (the agent's list argument, the canonical one): the list's strings one per line, as the script they
    # make (Cline's `commands` as `command`). A rewrite of the canonical one runs as one item.
    joined: tuple[str, str] | None = None


# The canonical tools: name -> what it does and the arguments a guard can rely on.
CANONICAL: dict[str, tuple[str, tuple[str, ...]]] = {
    "execute_command": ("run a shell command", ("command",)),
    "read_file": ("read a file", ("path",)),
    "write_file": ("create or overwrite a file", ("path", "content")),
    "edit_file": ("change part of a file", ("path",)),
    "edit_notebook": ("change a notebook cell", ("path",)),
    "apply_patch": ("apply a patch that may touch several files", ()),
    "list_files": ("list a directory", ("path",)),
    "find_files": ("find files by name pattern", ("pattern",)),
    "search_files": ("search file contents", ("pattern",)),
    "web_fetch": ("fetch a web page", ()),
    "web_search": ("search the web", ("query",)),
    "spawn_agent": ("start a subagent", ("prompt",)),
    "todo_write": ("update the agent's todo list", ()),
}


def _t(name: str, **renames: str) -> Tool:
    return Tool(name, tuple(renames.items()))


def _joined(values: Any) -> str | None:
    """A list of strings as one per line; None for anything else."""
    if isinstance(values, list) and all(isinstance(v, str) for v in values):
        return "\n".join(values)
    return None


# Each agent's tools, by the name the agent gives them in its hook input.
_CLAUDE_CODE = {
    "Bash": _t("execute_command"),
    "Read": _t("read_file", file_path="path"),
    "Write": _t("write_file", file_path="path"),
    "Edit": _t("edit_file", file_path="path"),
    "MultiEdit": _t("edit_file", file_path="path"),
    "NotebookEdit": _t("edit_notebook", notebook_path="path"),
    "Glob": _t("find_files"),
    "Grep": _t("search_files"),
    "LS": _t("list_files"),
    "WebFetch": _t("web_fetch"),
    "WebSearch": _t("web_search"),
    "Task": _t("spawn_agent"),
    "Agent": _t("spawn_agent"),
    "TodoWrite": _t("todo_write"),
}
_CODEX = {
    "Bash": _t("execute_command"),
    "apply_patch": _t("apply_patch"),
}
# Gemini CLI and Qwen Code share their ancestor's tool names; their arguments differ.
_GEMINI = {
    "run_shell_command": _t("execute_command", dir_path="cwd"),
    "read_file": _t("read_file", file_path="path"),
    "read_many_files": _t("read_file"),
    "write_file": _t("write_file", file_path="path"),
    "replace": _t("edit_file", file_path="path"),
    "list_directory": _t("list_files", dir_path="path"),
    "glob": _t("find_files", dir_path="path"),
    "grep_search": _t("search_files", dir_path="path"),
    "web_fetch": _t("web_fetch"),
    "google_web_search": _t("web_search"),
    "invoke_agent": _t("spawn_agent"),
    "write_todos": _t("todo_write"),
}
_QWEN = {
    "run_shell_command": _t("execute_command", directory="cwd"),
    "read_file": _t("read_file", absolute_path="path", file_path="path"),
    "read_many_files": _t("read_file"),
    "write_file": _t("write_file", file_path="path"),
    "edit": _t("edit_file", file_path="path"),
    "notebook_edit": _t("edit_notebook", file_path="path"),
    "list_directory": _t("list_files"),
    "glob": _t("find_files"),
    "grep_search": _t("search_files"),
    "web_fetch": _t("web_fetch"),
    "web_search": _t("web_search"),
    "agent": _t("spawn_agent"),
    "task": _t("spawn_agent"),
    "todo_write": _t("todo_write"),
}
_OPENCODE = {
    "bash": _t("execute_command", workdir="cwd"),
    "read": _t("read_file", filePath="path"),
    "write": _t("write_file", filePath="path"),
    "edit": _t("edit_file", filePath="path"),
    "multiedit": _t("edit_file", filePath="path"),
    "patch": _t("apply_patch"),
    "apply_patch": _t("apply_patch"),
    "list": _t("list_files"),
    "glob": _t("find_files"),
    "grep": _t("search_files"),
    "webfetch": _t("web_fetch"),
    "websearch": _t("web_search"),
    "task": _t("spawn_agent"),
    "todowrite": _t("todo_write"),
}
# Factory Droid names its tools its own way; its file arguments are Claude Code's.
_DROID = {
    "Execute": _t("execute_command"),
    "Read": _t("read_file", file_path="path"),
    "Create": _t("write_file", file_path="path"),
    "Edit": _t("edit_file", file_path="path"),
    "MultiEdit": _t("edit_file", file_path="path"),
    "ApplyPatch": _t("apply_patch"),
    "LS": _t("list_files", directory_path="path"),
    "Glob": _t("find_files"),
    "Grep": _t("search_files"),
    "FetchUrl": _t("web_fetch"),
    "WebSearch": _t("web_search"),
    "Task": _t("spawn_agent"),
    "TodoWrite": _t("todo_write"),
}
# GitHub Copilot CLI's tools; `create` writes a file whole (its text in `file_text`).
_COPILOT = {
    "bash": _t("execute_command"),
    "view": _t("read_file"),
    "create": _t("write_file"),
    "edit": _t("edit_file"),
    "glob": _t("find_files"),
    "grep": _t("search_files"),
    "task": _t("spawn_agent"),
}
# Cline CLI's tools: its shell tool takes a list of `commands`, which its bridge also gives as one `command`.
_CLINE = {
    "run_commands": Tool("execute_command", joined=("commands", "command")),
    "read_files": _t("read_file"),
    "editor": _t("edit_file"),
    "search_codebase": _t("search_files"),
    "fetch_web_content": _t("web_fetch"),
    "spawn_agent": _t("spawn_agent"),
}
# pi's tools already name their arguments as hookd does (`command`, `path`, `pattern`).
_PI = {
    "bash": _t("execute_command"),
    "read": _t("read_file"),
    "write": _t("write_file"),
    "edit": _t("edit_file"),
    "ls": _t("list_files"),
    "find": _t("find_files"),
    "grep": _t("search_files"),
}
TOOLS: dict[str, dict[str, Tool]] = {
    "claude-code": _CLAUDE_CODE,
    "codex": _CODEX,
    "gemini": _GEMINI,
    "qwen": _QWEN,
    "opencode": _OPENCODE,
    "droid": _DROID,
    "copilot": _COPILOT,
    "cline": _CLINE,
    "pi": _PI,
}
AGENTS = tuple(TOOLS)


def tool(agent: str, agent_tool: str) -> Tool | None:
    return TOOLS.get(agent, {}).get(agent_tool)


def canonical_args(agent: str, agent_tool: str, args: Any) -> Any:
    """``args`` with the canonical name of each renamed argument beside the agent's own (a new dict;
    ``args`` as it is when nothing is renamed or it is not an object)."""
    known = tool(agent, agent_tool)
    if known is None or not (known.renames or known.joined) or not isinstance(args, dict):
        return args
    out = dict(args)
    for theirs, ours in known.renames:
        if theirs in args and ours not in out:
            out[ours] = args[theirs]
    if known.joined is not None and known.joined[1] not in out:
        script = _joined(args.get(known.joined[0]))
        if script is not None:
            out[known.joined[1]] = script
    return out


def canonical(payload: dict[str, Any], agent: str) -> dict[str, Any]:
    """Put a tool call's payload (``toolName``, ``args``) into the canonical vocabulary, in place,
    and name the agent. A payload without a tool (a prompt, a session start) only gains ``agent``."""
    payload[AGENT_KEY] = agent
    name = payload.get(TOOL_KEY)
    if not isinstance(name, str):
        return payload
    payload[AGENT_TOOL_KEY] = name
    known = tool(agent, name)
    if known is not None:
        payload[TOOL_KEY] = known.name
        if ARGS_KEY in payload:
            payload[ARGS_KEY] = canonical_args(agent, name, payload[ARGS_KEY])
    return payload


def agent_args(agent: str, agent_tool: str, modified: Any, sent: Any = None) -> Any:
    """A rewrite (``modifiedInput``) as the agent's own arguments: each canonical name folded back
    into the agent's. Where the two disagree, the one that differs from what was ``sent`` wins (a
    guard that rewrote ``args.path`` and left ``args.file_path`` as it was means the new path)."""
    known = tool(agent, agent_tool)
    if known is None or not (known.renames or known.joined) or not isinstance(modified, dict):
        return modified
    before = sent if isinstance(sent, dict) else {}
    out = dict(modified)
    if known.joined is not None and known.joined[1] in out:
        theirs, ours = known.joined
        sent_script = before.get(ours)
        # hookd's alias (or a hook's addition), unless the agent itself sent an argument of that name
        if ours not in before or (isinstance(sent_script, str) and sent_script == _joined(before.get(theirs))):
            script = out.pop(ours)
            if isinstance(script, str) and script != sent_script:
                out[theirs] = [script]  # the guard rewrote the script: it runs as one item
    # Several of the agent's names may stand for one of ours (Qwen Code's read_file: absolute_path and
    # file_path are both path): a rewrite of any of them reaches all that the call carries.
    groups: dict[str, list[str]] = {}
    for theirs, ours in known.renames:
        groups.setdefault(ours, []).append(theirs)
    for ours, names in groups.items():
        if ours not in out:
            continue
        source = next((t for t in names if t in before), None)  # the name hookd's alias was taken from
        if ours in before and (source is None or before[ours] != before[source]):
            continue  # not an alias of ours: the agent's own input has an argument of that name
        value = out.pop(ours)
        present = [t for t in names if t in out]
        if not present:
            out[names[0]] = value
            continue
        changed = [t for t in present if out[t] != before.get(t, out[t])]
        if changed:
            winner = out[changed[0]]  # the guard rewrote the agent's own name: the others follow it
        elif value != before.get(ours, before.get(present[0])):
            winner = value  # only the canonical name was rewritten
        else:
            continue
        for theirs in present:
            out[theirs] = winner
    return out


def agent_input(payload: Mapping[str, Any]) -> tuple[str | None, Any]:
    """(the agent's tool name, the agent's own arguments) of a canonical payload: what the agent sent."""
    agent = payload.get(AGENT_KEY)
    name = payload.get(AGENT_TOOL_KEY, payload.get(TOOL_KEY))
    args = payload.get(ARGS_KEY)
    if not isinstance(agent, str) or not isinstance(name, str):
        return (name if isinstance(name, str) else None), args
    return name, agent_args(agent, name, args, args)


def table() -> dict[str, Any]:
    """The vocabulary as JSON data, for the bridges that are not Python (the opencode plugin)."""
    return {
        "canonical": {name: {"what": what, "args": list(args)} for name, (what, args) in CANONICAL.items()},
        "agents": {
            agent: {name: [t.name, dict(t.renames), list(t.joined) if t.joined else None] for name, t in tools.items()}
            for agent, tools in TOOLS.items()
        },
    }


def rewritten_args(payload: Mapping[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    """A hook's rewrite as the next hook sees it: the agent's names and the canonical ones agreeing.

    A hook may rewrite either name (a guard written for hookd changes ``path``; one imported from the
    agent changes ``file_path``); the one it changed wins, and the other follows, so no later guard
    reads a value the agent will not act on. A call with no agent or no known tool is left as it is."""
    agent = payload.get(AGENT_KEY)
    name = payload.get(AGENT_TOOL_KEY)
    if not isinstance(agent, str) or not isinstance(name, str) or tool(agent, name) is None:
        return modified
    theirs = agent_args(agent, name, modified, payload.get(ARGS_KEY))
    out = canonical_args(agent, name, theirs)
    return out if isinstance(out, dict) else modified


AGENT_TITLES = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
    "qwen": "Qwen Code",
    "opencode": "opencode",
    "copilot": "Copilot CLI",
    "cline": "Cline",
    "droid": "Factory Droid",
    "pi": "pi",
}


def markdown_table() -> str:
    """The vocabulary as docs/bridges.md shows it (a test holds the doc to this)."""
    head = "| hookd's tool | a guard can rely on | " + " | ".join(AGENT_TITLES[a] for a in AGENTS) + " |"
    lines = [head, "|" + "---|" * (2 + len(AGENTS))]
    for canon, (what, args) in CANONICAL.items():
        cells = []
        for agent in AGENTS:
            names = []
            for name, t in TOOLS[agent].items():
                if t.name == canon:
                    renamed = ", ".join(f"`{theirs}`→`{ours}`" for theirs, ours in t.renames)
                    if t.joined is not None:
                        renamed = f"`{t.joined[0]}` joined→`{t.joined[1]}`"
                    names.append(f"`{name}`" + (f" ({renamed})" if renamed else ""))
            cells.append("<br>".join(names) or "-")
        relied = ", ".join(f"`args.{a}`" for a in args) or "-"
        lines.append(f"| `{canon}`: {what} | {relied} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
