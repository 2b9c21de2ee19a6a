"""`hookd help [TOPIC]`: the YAML format, the points, match, files and exit codes, and every page of
the documentation, in the terminal.

As `git help`: with a command's name it shows that command's --help; with a
topic, a page; with nothing, the list of them all. The topics are built from the
same tables the validator and the points catalog use, so they cannot drift from
what hookd accepts. The documentation's pages (docs/*.md and README.md) ship
inside the package (copied there when the wheel is built, setup.py), so an
install without the source tree (pipx, pip) has them; a checkout reads its own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "help",
        help="show a help topic (hooks, points, match, files, exit-codes), a page of the documentation, or a command's help",
        description="Show a help page: " + ", ".join(f"`{t}` ({d})" for t, (d, _) in TOPICS.items()) + "; or a page "
        "of the documentation, by its name (`hookd help observe`, also as `docs/observe.md`: the name other help texts "
        "give it). `hookd help COMMAND` is `hookd COMMAND --help` (a page of the same name comes first, and names "
        "the command's --help). Without TOPIC: the topics, the pages and the commands.",
    )
    p.add_argument("topic", nargs="?", metavar="TOPIC", help="a topic, a page of the documentation, or a command")
    p.add_argument("--json", action="store_true", help="print JSON: {topic, text} (without TOPIC: {topics, documents, commands})")
    p.set_defaults(run=run)


def _hooks() -> str:
    from hookd.config.hookchecks import HOOK_TYPES, MAX_TIMEOUT, ON_ERROR
    from hookd.config.validator import KNOWN_KEYS, REQUIRED

    rules = {
        "name": "a unique name in its scope (global, or one project)",
        "description": "what the hook is for (shown by `hookd hooks`)",
        "point": "where it runs: a point of `hookd help points`, or custom.ANYTHING",
        "type": f"{' or '.join(HOOK_TYPES)}: an observer is told, a decision hook may allow, deny, ask or rewrite",
        "command": "the program to run (a path, or a name on the daemon's PATH); the payload is its stdin, as JSON",
        "args": "its arguments, a list of strings",
        "env": "extra environment variables, a mapping of strings",
        "priority": "a whole number; higher runs first (default 0)",
        "enabled": "true or false (`hookd enable/disable NAME` overrides it)",
        "timeout": f"seconds, more than 0 and at most {MAX_TIMEOUT:g}",
        "on_error": f"{', '.join(ON_ERROR)}: what a failing decision hook means (default continue)",
        "match": "field or dotted path -> regular expression: run only when every entry matches (`hookd help match`)",
        "cwd": "working directory, relative to the project (default: the project, or the home directory)",
        "mode": "spawn (a process per call, default) or persistent (one warm worker; `hookd help warm-hooks`)",
        "concurrency": "persistent only: calls one worker handles at once (default 1)",
        "group": "a name: hooks of one group combine as one step (`hookd help user-config`)",
        "combine": "first (the first final answer wins, default) or strictest (all run at once; deny > ask > allow)",
        "format": "hookd (default) or claude-code: exit codes and JSON as Claude Code reads them",
        "shadow": "true: a decision hook tried out, run on every call, its answer recorded, never applied (`hookd help observe`)",
        "builtin": "instead of command: hookd's own guard packs, run in the daemon (`hookd help guards`)",
        "options": "a builtin hook's policy: allow, ask, protected_branches, protected_paths, force_with_lease",
    }
    rows = "\n".join(f"  {k:<12}{'required  ' if k in REQUIRED else '          '}{rules.get(k, '')}" for k in KNOWN_KEYS)
    return f"""A hook file is YAML: a list of hooks under `hooks:`.

hooks:
  - name: no-rm-root
    description: refuse rm -rf / from any agent
    point: tool.approval.pre
    type: decision
    command: /bin/sh
    args: ["-c", "echo '{{\\"decision\\": \\"deny\\", \\"reason\\": \\"not /\\"}}'"]
    match:
      args.command: '(^|[;&|]\\s*)rm\\s+-(rf|fr)\\s+/(\\s|$)'
    enabled: true

Fields:
{rows}

A decision hook answers on stdout with JSON: {{"decision": "allow" | "deny" | "ask", "reason": "..."}}
(or nothing, to abstain); it may also return "args" or "output" to rewrite them. Exit 0 always:
a non-zero exit is a hook error, handled by on_error (Claude Code's "exit 2 blocks" does not apply;
give such scripts `format: claude-code`, and hookd reads their exit codes and JSON as Claude Code does).

`hookd init` writes a commented file to start from; `hookd check` validates; `hookd edit` edits
safely. Where files live: `hookd help files`."""


def _points() -> str:
    from hookd.core.points import POINTS

    lines = [f"  {p.name:<38} {p.kind:<9} {p.meaning}" for p in POINTS.values()]
    return (
        "Hook points: where hooks run. A decision point lets decision hooks allow, deny, ask or rewrite; observers\n"
        "may be put on any point. custom.ANYTHING is yours (both kinds); `event` sees every event.\n\n"
        + "\n".join(lines)
        + "\n\n`hookd points --example POINT` prints a sample payload; "
        "`hookd explain POINT --payload JSON` shows which hooks would run."
    )


def _match() -> str:
    from hookd.core import matcher

    doc = (matcher.__doc__ or "").split("\n\n", 1)[-1].strip()
    return f"""match: run a hook only for the payloads it cares about, decided before any process starts.

{doc}

  match:
    toolName: '^(execute_command|Bash)$'
    args.command: '\\bgit\\s+push\\b'

Test it (-p DIR: with that project's hooks too):
  hookd explain tool.approval.pre -p . --payload '{{"toolName": "Bash", "args": {{"command": "git push"}}}}'"""


def _files() -> str:
    from hookd.config import userconfig

    glob_files = "\n".join(f"  {f}" for f in userconfig.global_main_files())
    proj = "\n".join(f"  <project>/{f}" for f in userconfig.PROJECT_FILES)
    return f"""Hook files.

Global (yours, always trusted):
{glob_files}
Project (run once trusted with `hookd trust DIR`; an edit untrusts the file until trusted again):
{proj}

Beside each hooks.yaml, a drop-in directory hooks.d/ may hold more files, *.yaml (hidden files are
skipped): they load after that hooks.yaml, in name order (10-git.yaml before 20-net.yaml), each checked,
trusted and reloaded on its own. Hook names are unique across all the files of a scope. A file that
does not validate never half-loads: its last accepted version stays in force. `hookd hooks` and
`hookd check` name the file each hook comes from."""


def _exit_codes() -> str:
    return """Exit codes, the same for every command:

  0  ok (for `decide`, whatever the decision is)
  1  an error: the call failed, a file is invalid (`check`), a check failed (`doctor`)
     (`replay`: a replayed call's decision differs, as `diff`; a replay that cannot run exits 2)
  2  usage: a bad argument or option (a negative timeout, a payload that is not a JSON object,
     a --project that is not a directory)
  3  the daemon is not reachable: nothing listens on the socket, the socket path cannot be one
     (too long, a directory, a regular file), it belongs to another user, or the connection was lost
  4  not found: an unknown point, hook, session, help topic, or nothing to trust"""


TOPICS: dict[str, tuple[str, Callable[[], str]]] = {
    "hooks": ("the YAML format of hook files", _hooks),
    "points": ("every hook point", _points),
    "match": ("run a hook only for some payloads", _match),
    "files": ("where hook files live, drop-ins, trust", _files),
    "exit-codes": ("what each exit status means", _exit_codes),
}
ALIASES = {"yaml": "hooks", "format": "hooks", "hooks.yaml": "hooks", "config": "hooks", "exit": "exit-codes", "hooks.d": "files"}


def documents() -> dict[str, Path]:
    """The pages of the documentation by topic name (docs/observe.md is ``observe``, README.md ``readme``)."""
    where = docs_dir()
    if where is None:
        return {}
    pages = {p.stem.lower(): p for p in sorted(where.glob("*.md"))}
    readme = pages.pop("readme", None) or (where.parent / "README.md" if (where.parent / "pyproject.toml").is_file() else None)
    if readme is not None and readme.is_file():
        pages["readme"] = readme
    return pages


def docs_dir() -> Path | None:
    """Where the pages are: inside the installed package (hookd/docs, put there at build time), else the
    docs/ of the checkout this hookd runs from (an editable install); None when neither is there."""
    import hookd

    package = Path(hookd.__file__).resolve().parent
    shipped = package / "docs"
    if shipped.is_dir():
        return shipped
    checkout = package.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "docs").is_dir():
        return checkout / "docs"
    return None


def title(page: Path) -> str:
    """A page's first heading, as its one-line description."""
    if page.name == "README.md":
        return "the README: what hookd is, installing it, a first guard"
    try:
        with page.open(encoding="utf-8") as f:
            for line in f:
                if line.startswith("# "):
                    return line[2:].strip().replace("`", "")
    except OSError:
        pass
    return ""


def document_name(topic: str) -> str:
    """The page a topic names: ``observe``, ``observe.md``, ``docs/observe.md`` and ``README.md`` as given elsewhere."""
    name = topic.strip().lower()
    name = name.removeprefix("docs/").removesuffix(".md")
    return name


def topic_names() -> list[str]:
    """Every name `hookd help` takes besides commands: the topics, then the pages."""
    return [*TOPICS, *(d for d in documents() if d not in TOPICS)]


def run(args: argparse.Namespace) -> int:
    from hookd.cli import build_parser
    from hookd.cli.common import NOT_FOUND, fail, print_json

    parser = build_parser()
    commands = subcommand_helps(parser)
    pages = documents()
    topic = ALIASES.get(args.topic or "", args.topic)
    if topic is None:
        if args.json:
            topics = {t: d for t, (d, _) in TOPICS.items()}
            print_json({"topics": topics, "documents": {d: title(p) for d, p in pages.items()}, "commands": commands})
            return 0
        out = ["Topics (hookd help TOPIC):"] + [f"  {t:<16} {d}" for t, (d, _) in TOPICS.items()]
        out += ["", "Documentation (hookd help PAGE):"] + [f"  {d:<16} {title(p)}" for d, p in pages.items()]
        if not pages:
            out.append("  (not found: this install has no docs directory)")
        out += ["", "Commands (hookd help COMMAND, or hookd COMMAND --help):"] + [f"  {c:<16} {h}" for c, h in commands.items()]
        sys.stdout.write("\n".join(out) + "\n")
        return 0
    page = document_name(topic)
    if topic in TOPICS:
        text = TOPICS[topic][1]()
    elif page in pages:
        topic = page
        try:
            text = pages[page].read_text(encoding="utf-8").rstrip()
        except OSError as exc:
            return fail(f"cannot read the page {page!r} ({pages[page]}): {exc.strerror or exc}")
        if page in commands:
            text = f"(The page {page}; the command's options: hookd {page} --help.)\n\n{text}"
    elif topic in commands:
        text = subparser(parser, topic).format_help().rstrip()
    else:
        import difflib

        near = difflib.get_close_matches(topic, [*TOPICS, *pages, *commands], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        return fail(f"no help topic, page or command {topic!r}{hint} (topics: {', '.join(TOPICS)}; `hookd help` lists all)", NOT_FOUND)
    if args.json:
        print_json({"topic": topic, "text": text})
    else:
        sys.stdout.write(text + "\n")
    return 0


def _sub_action(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def subcommand_helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    return {c.dest: c.help or "" for c in _sub_action(parser)._choices_actions}


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    return _sub_action(parser).choices[name]
