"""A shell command as the simple commands it runs, read with tree-sitter-bash, cached by its text.

Every simple command the string would run comes out flat, wherever it sits: in a chain, a pipeline,
a subshell, a function body, a loop, a ``$(…)`` or backticks, or the string of ``bash -c``, ``eval``,
``watch``, ``su -c`` or a script piped into a shell (read again, one level deeper). Its words are
the words bash would pass, quotes removed; a word with an expansion the parser cannot know is marked
dynamic. ``$HOME``/``${HOME}`` read as ``~`` and ``$TMPDIR`` as ``/tmp``, the values every call shares,
and a variable set earlier in the same command (``X=build; rm -rf $X``, ``for d in a b``) reads as its
value. Wrappers that run the next word as a command (``sudo``, ``env``, ``command``, ``exec``,
``nice``, ``timeout``, ``xargs``, ...) and absolute binary paths are peeled off into ``argv``.

The walk is bounded: nesting deeper than :data:`MAX_DEPTH` and more than :data:`MAX_COMMANDS`
commands mark the script as not fully seen, and the packs answer that as a finding rather than an
allow. Nothing here raises for any input.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from hookd.guards.interpreters import inline_code, shell_of

MAX_DEPTH = 6  # levels of bash -c / eval / piped scripts read
MAX_COMMANDS = 400  # simple commands read from one string
MAX_LOOP_VALUES = 16  # a for loop's words tried one by one
CACHE_SIZE = 4096

_PARSER = Parser(Language(tree_sitter_bash.language()))

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "busybox", "fish"})

# Wrappers that run the rest of their arguments as a command: name -> options that take a value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R", "--user", "--group", "--chdir", "--prompt"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir", "-P"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t", "--class", "--classdata"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "unbuffer": frozenset(),
    "caffeinate": frozenset(),
    "strace": frozenset({"-e", "-o", "-p", "-s", "-u"}),
    "ltrace": frozenset({"-e", "-o", "-p", "-s", "-u"}),
    "torsocks": frozenset(),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "fakeroot": frozenset(),
    "runuser": frozenset({"-u", "-g", "-G"}),
    "setsid": frozenset(),
    "flock": frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset(
        {
            "-I",
            "-L",
            "-n",
            "-P",
            "-d",
            "-E",
            "-s",
            "-a",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--replace",
            "--max-lines",
            "--eof",
            "-i",
        }
    ),
    "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin"}),
    "npx": frozenset({"-p", "--package", "--cache"}),
    "bunx": frozenset({"-p", "--package"}),
    "pnpx": frozenset(),
    "dotenv": frozenset({"-e", "-v"}),
}
# Package managers' ways of running a tool: `pnpm dlx x`, `npm exec x`, `yarn dlx x`.
_RUNNERS = {"pnpm": ("dlx", "exec"), "npm": ("exec", "x"), "yarn": ("dlx", "exec"), "uv": ("run",), "poetry": ("run",), "pipenv": ("run",)}
_PYTHON = re.compile(r"^python[0-9.]*$")
# Wrappers whose first operand is not the command (the timeout's duration, the lock's file, the cpu list).
_LEADING_OPERANDS = {"timeout": 1, "flock": 1, "taskset": 1, "chrt": 1}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_KNOWN_VARS = {"HOME": "~", "TMPDIR": "/tmp", "TMP": "/tmp", "TEMP": "/tmp", "PWD": "."}
_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "e": "\x1b", "0": "\0"}
_ARGUMENT_NODES = frozenset(
    {"word", "string", "raw_string", "concatenation", "simple_expansion", "expansion", "command_substitution",
     "number", "ansi_c_string", "process_substitution", "translated_string", "arithmetic_expansion"}
)  # fmt: skip


class Cmd(NamedTuple):
    """One simple command the string runs."""

    argv: tuple[str, ...]  # the command's words after its wrappers, the name without its directory
    dyn: tuple[bool, ...]  # per word of argv: holds an expansion whose value is unknown
    text: str  # the command as written
    redirects: tuple[tuple[str, str, bool], ...]  # (operator, target, target is dynamic)
    stdin: str | None  # a here-doc's or here-string's text fed to it
    group: int  # its pipeline (-1: none); commands of one pipeline share it
    stage: int  # its place in the pipeline
    cds: tuple[str, ...]  # the directories `cd` moved to before it in its scope, in order
    feeds: tuple[int, ...]  # the commands of the substitutions in its words (indices in the script)
    depth: int  # how many levels of bash -c / eval it sits in
    wrappers: tuple[str, ...]  # the wrappers peeled off (sudo, xargs, ...)


class Script(NamedTuple):
    """A command string as its simple commands; ``complete`` is False when a bound cut the walk short."""

    cmds: tuple[Cmd, ...]
    complete: bool
    too_deep: bool


class _Walk:
    def __init__(self) -> None:
        self.cmds: list[Cmd] = []
        self.groups = 0
        self.complete = True
        self.too_deep = False

    def new_group(self) -> int:
        self.groups += 1
        return self.groups


class _Scope:
    """What a stretch of script knows as it runs: where `cd` went and the variables it set."""

    __slots__ = ("cds", "vars")

    def __init__(self, cds: list[str] | None = None, vars: dict[str, tuple[str, bool]] | None = None) -> None:
        self.cds: list[str] = cds if cds is not None else []
        self.vars: dict[str, tuple[str, bool]] = vars if vars is not None else {}

    def copy(self) -> _Scope:
        return _Scope(list(self.cds), dict(self.vars))


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


_IN_DOUBLE = '"\\$`\n'  # what a backslash escapes inside double quotes; before anything else it stays


def _unescape(s: str, escapable: str | None = None) -> str:
    """``s`` with its backslashes undone: one escapes the character after it (unquoted: any; in
    double quotes: one of ``escapable``), and one before a newline joins the two lines."""
    if "\\" not in s:
        return s
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and (escapable is None or s[i + 1] in escapable):
            if s[i + 1] != "\n":
                out.append(s[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _ansi(s: str) -> str:
    body = s[2:-1] if s.startswith("$'") and s.endswith("'") and len(s) >= 3 else s
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "x" and i + 3 < len(body) + 1:
                digits = body[i + 2 : i + 4]
                try:
                    out.append(chr(int(digits, 16)))
                    i += 2 + len(digits)
                    continue
                except ValueError:
                    pass
            out.append(_ANSI_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


class _Reader:
    """Walks one parse tree into the script's commands."""

    def __init__(self, walk: _Walk, depth: int, origin: str | None = None) -> None:
        self.walk = walk
        self.depth = depth
        self.origin = origin  # the interpreter command these commands were read from, shown as theirs

    # -- words -------------------------------------------------------------------------------

    def expansion(self, node: Node, scope: _Scope) -> tuple[str, bool]:
        name_node = next((c for c in node.children if c.type in ("variable_name", "special_variable_name")), None)
        simple = node.type == "simple_expansion" or len(node.children) == 3
        if name_node is not None and simple:
            name = _text(name_node)
            if name in scope.vars:
                return scope.vars[name]
            if name in _KNOWN_VARS:
                return _KNOWN_VARS[name], False
        self.substitutions(node, scope)
        return _text(node), True

    def substitutions(self, node: Node, scope: _Scope) -> None:
        """The commands of every substitution below ``node``: they run too."""
        for child in node.children:
            if child.type in ("command_substitution", "process_substitution"):
                self.statements(child, scope.copy(), -1, 0)
            elif child.children:
                self.substitutions(child, scope)

    def word(self, node: Node, scope: _Scope, feeds: list[int]) -> tuple[str, bool]:
        kind = node.type
        if kind == "word":
            return _unescape(_text(node)), False
        if kind == "number":
            return _text(node), False
        if kind == "raw_string":
            t = _text(node)
            return t[1:-1] if len(t) >= 2 else t, False
        if kind == "ansi_c_string":
            return _ansi(_text(node)), False
        if kind in ("string", "translated_string"):
            return self.string(node, scope, feeds)
        if kind == "concatenation":
            parts = [self.word(c, scope, feeds) for c in node.children]
            return "".join(p for p, _ in parts), any(d for _, d in parts)
        if kind in ("simple_expansion", "expansion"):
            return self.expansion(node, scope)
        if kind in ("command_substitution", "process_substitution"):
            start = len(self.walk.cmds)
            self.statements(node, scope.copy(), -1, 0)
            feeds.extend(range(start, len(self.walk.cmds)))
            made = self.walk.cmds[start:]
            if kind == "command_substitution" and len(made) == 1 and made[0].argv[:1] in (("echo",), ("printf",)):
                # `$(echo rm)`: the output is known, and the shell runs it as the word it is.
                words = [a for a in made[0].argv[1:] if a not in ("-n", "-e", "-E")]
                if not any(made[0].dyn) and not made[0].redirects and words and "%" not in "".join(words):
                    return " ".join(words), False
            return _text(node), True
        self.substitutions(node, scope)
        return _text(node), True

    def string(self, node: Node, scope: _Scope, feeds: list[int]) -> tuple[str, bool]:
        raw = node.text or b""
        base = node.start_byte
        out: list[str] = []
        dynamic = False
        pos = base + (2 if node.type == "translated_string" else 1)
        end = node.end_byte - 1
        for child in node.children:
            if child.type in ('"', "$"):
                continue
            if child.start_byte > pos:
                out.append(_unescape(raw[pos - base : child.start_byte - base].decode("utf-8", "replace"), _IN_DOUBLE))
            if child.type == "string_content":
                out.append(_unescape(_text(child), _IN_DOUBLE))
            else:
                value, dyn = self.word(child, scope, feeds)
                out.append(value)
                dynamic = dynamic or dyn
            pos = child.end_byte
        if end > pos:
            out.append(_unescape(raw[pos - base : end - base].decode("utf-8", "replace"), _IN_DOUBLE))
        return "".join(out), dynamic

    # -- statements ------------------------------------------------------------------------

    def statements(self, node: Node, scope: _Scope, group: int, stage: int) -> None:
        for child in node.children:
            self.statement(child, scope, group, stage)

    def statement(self, node: Node, scope: _Scope, group: int, stage: int) -> None:
        if len(self.walk.cmds) >= MAX_COMMANDS:
            self.walk.complete = False
            return
        kind = node.type
        if kind == "command":
            self.command(node, scope, group, stage, (), None)
        elif kind == "pipeline":
            g = self.walk.new_group()
            parts = [c for c in node.children if c.type not in ("|", "|&")]
            for i, part in enumerate(parts):
                self.statement(part, scope.copy() if len(parts) > 1 else scope, g, i)
        elif kind == "subshell":
            self.statements(node, scope.copy(), group, stage)
        elif kind == "redirected_statement":
            self.redirected(node, scope, group, stage)
        elif kind == "variable_assignment":
            self.assignment(node, scope)
        elif kind == "for_statement":
            self.for_loop(node, scope, group, stage)
        elif kind in ("comment", "heredoc_body", "heredoc_start", "heredoc_end"):
            return
        elif kind in ("command_substitution", "process_substitution"):
            self.statements(node, scope.copy(), -1, 0)
        elif node.children:
            self.statements(node, scope, group, stage)

    def assignment(self, node: Node, scope: _Scope) -> None:
        name = next((c for c in node.children if c.type == "variable_name"), None)
        values = [c for c in node.children if c.type in _ARGUMENT_NODES]
        feeds: list[int] = []
        value, dyn = self.word(values[0], scope, feeds) if values else ("", False)
        if name is not None:
            scope.vars[_text(name)] = (value, dyn)

    def for_loop(self, node: Node, scope: _Scope, group: int, stage: int) -> None:
        var = next((c for c in node.children if c.type == "variable_name"), None)
        body = [c for c in node.children if c.type in ("do_group", "compound_statement")]
        words = [c for c in node.children if c.type in _ARGUMENT_NODES]
        feeds: list[int] = []
        values = [self.word(w, scope, feeds) for w in words[:MAX_LOOP_VALUES]]
        if var is None or not body:
            self.statements(node, scope, group, stage)
            return
        name = _text(var)
        tries: list[tuple[str, bool]] = values if values and len(words) <= MAX_LOOP_VALUES else [("$" + name, True)]
        expanded: list[tuple[str, bool]] = []
        for value, dyn in tries:
            # `for f in $(ls)` or `for f in *`: one unknown value; a list of words: each in turn.
            if dyn or any(ch in value for ch in "*?["):
                expanded.append(("$" + name, True))
            else:
                expanded.append((value, False))
        for pair in dict.fromkeys(expanded):
            inner = scope.copy()
            inner.vars[name] = pair
            for b in body:
                self.statements(b, inner, group, stage)

    def redirected(self, node: Node, scope: _Scope, group: int, stage: int) -> None:
        body = node.child_by_field_name("body")
        redirects: list[tuple[str, str, bool]] = []
        stdin: str | None = None
        trailing: list[Node] = []
        for child in node.children:
            if child is body or child == body:
                continue
            if child.type == "file_redirect":
                redirects.append(self.redirect(child, scope))
            elif child.type == "heredoc_redirect":
                for part in child.children:
                    if part.type == "heredoc_body":
                        stdin = (stdin or "") + _text(part)
                    elif part.type == "file_redirect":
                        redirects.append(self.redirect(part, scope))
                    elif part.type not in ("<<", "<<-", "heredoc_start", "heredoc_end"):
                        trailing.append(part)
            elif child.type == "herestring_redirect":
                stdin = self.herestring(child, scope)
        if body is None:
            # `> file` alone truncates it, as `: > file` does.
            self.add((":",), (False,), _text(node), tuple(redirects), stdin, group, stage, scope, ())
            return
        if trailing and group < 0 and any(t.type == "pipeline" for t in trailing):
            group, stage = self.walk.new_group(), 0
        start = len(self.walk.cmds)
        if body.type == "command":
            self.command(body, scope, group, stage, tuple(redirects), stdin)
        else:
            self.statement(body, scope, group, stage)
            if len(self.walk.cmds) > start and (redirects or stdin is not None):
                last = self.walk.cmds[-1]
                self.walk.cmds[-1] = last._replace(
                    redirects=last.redirects + tuple(redirects), stdin=stdin if stdin is not None else last.stdin
                )
        for part in trailing:
            if part.type == "pipeline":
                # `cat <<EOF | psql`: the pipeline after the here-doc continues the here-doc's command.
                parts = [c for c in part.children if c.type not in ("|", "|&")]
                for i, p in enumerate(parts):
                    self.statement(p, scope.copy(), group, stage + 1 + i)
            else:
                self.statement(part, scope, -1, 0)

    def redirect(self, node: Node, scope: _Scope) -> tuple[str, str, bool]:
        op = ""
        target = ""
        dyn = False
        feeds: list[int] = []
        for child in node.children:
            if child.type == "file_descriptor":
                continue
            if child.type in _ARGUMENT_NODES:
                target, dyn = self.word(child, scope, feeds)
            elif not child.children:
                op = _text(child)
        return op, target, dyn

    def herestring(self, node: Node, scope: _Scope) -> str:
        feeds: list[int] = []
        parts = [self.word(c, scope, feeds)[0] for c in node.children if c.type in _ARGUMENT_NODES]
        return " ".join(parts) + "\n"

    def command(
        self, node: Node, scope: _Scope, group: int, stage: int, redirects: tuple[tuple[str, str, bool], ...], stdin: str | None
    ) -> None:
        words: list[str] = []
        dyn: list[bool] = []
        feeds: list[int] = []
        reds = list(redirects)
        assigns: list[Node] = []
        for child in node.children:
            kind = child.type
            if kind == "command_name":
                for c in child.children:
                    w, d = self.word(c, scope, feeds)
                    words.append(w)
                    dyn.append(d)
            elif kind in _ARGUMENT_NODES:
                w, d = self.word(child, scope, feeds)
                words.append(w)
                dyn.append(d)
            elif kind == "file_redirect":
                reds.append(self.redirect(child, scope))
            elif kind == "herestring_redirect":
                stdin = self.herestring(child, scope)
            elif kind == "variable_assignment":
                assigns.append(child)
        if not words:
            for a in assigns:
                self.assignment(a, scope)
            return
        for a in assigns:  # `FOO=1 cmd`: only the command sees it, but its substitutions run
            self.substitutions(a, scope)
        self.add(tuple(words), tuple(dyn), _text(node), tuple(reds), stdin, group, stage, scope, tuple(feeds))

    def add(
        self,
        words: tuple[str, ...],
        dyn: tuple[bool, ...],
        text: str,
        redirects: tuple[tuple[str, str, bool], ...],
        stdin: str | None,
        group: int,
        stage: int,
        scope: _Scope,
        feeds: tuple[int, ...],
    ) -> None:
        argv, adyn, wrappers = unwrap(words, dyn)
        shown = self.origin if self.origin is not None else text
        cmd = Cmd(argv, adyn, shown, redirects, stdin, group, stage, tuple(scope.cds), feeds, self.depth, wrappers)
        self.walk.cmds.append(cmd)
        if not argv:
            return
        name = argv[0]
        if name in ("cd", "pushd") and "xargs" not in wrappers:
            target = next((a for a, d in zip(argv[1:], adyn[1:], strict=False) if not a.startswith("-") or a == "-"), "~")
            known = not any(d for d in adyn[1:])
            scope.cds.append(target if known and target != "-" else "$?")
        nested = nested_code(argv, adyn, stdin)
        if nested is not None:
            self.nested(nested, scope)
            return
        inline = inline_code(argv, stdin)
        if inline is not None:
            equivalent = shell_of(*inline)
            if equivalent:
                self.nested("\n".join(equivalent), scope, self.origin or text)

    def nested(self, code: str, scope: _Scope, origin: str | None = None) -> None:
        if self.depth + 1 > MAX_DEPTH:
            self.walk.too_deep = True
            self.walk.complete = False
            return
        read(code, self.walk, self.depth + 1, scope.copy(), origin or self.origin)


def unwrap(words: tuple[str, ...], dyn: tuple[bool, ...]) -> tuple[tuple[str, ...], tuple[bool, ...], tuple[str, ...]]:
    """The command under its wrappers (``sudo -u x env A=1 nice -n 5 /bin/rm`` is ``rm``), its name without a directory."""
    i = 0
    n = len(words)
    wrappers: list[str] = []
    while i < n:
        while i < n and _ASSIGNMENT.match(words[i]):
            i += 1  # `FOO=1 cmd`, and env's NAME=VALUE
        if i >= n:
            break
        name = words[i].rsplit("/", 1)[-1]
        takes = _WRAPPERS.get(name)
        if takes is None:
            if name in _RUNNERS and i + 1 < n and words[i + 1] in _RUNNERS[name]:
                wrappers.append(name)
                i += 2
                while i < n and words[i].startswith("-") and words[i] != "--":
                    i += 1
                if i < n and words[i] == "--":
                    i += 1
                continue
            if _PYTHON.match(name) and i + 2 < n and words[i + 1] == "-m":
                wrappers.append(name)
                i += 2  # `python -m twine upload`: the module runs as its own command
                continue
            break
        if name == "command" and any(w in ("-v", "-V") for w in words[i + 1 : i + 2]):
            break  # `command -v rm` looks rm up, it runs nothing
        if name == "env" and any(w in ("-S", "--split-string") for w in words[i + 1 : i + 2]) and i + 2 < n:
            # `env -S 'rm -rf x'`: the string is the command's words.
            split = tuple(words[i + 2].split()) + words[i + 3 :]
            sub_argv, sub_dyn, sub_wrap = unwrap(split, (dyn[i + 2],) * len(split) + dyn[i + 3 :])
            return sub_argv, sub_dyn, (*wrappers, "env", *sub_wrap)
        wrappers.append(name)
        i += 1
        operands = _LEADING_OPERANDS.get(name, 0)
        while i < n:
            w = words[i]
            if w == "--":
                i += 1
                break
            if w.startswith("-") and len(w) > 1:
                i += 1
                if w in takes or (len(w) == 2 and w in takes):
                    i += 1
                elif name == "nice" and w[1:].isdigit():
                    pass
                continue
            if name == "env" and _ASSIGNMENT.match(w):
                i += 1
                continue
            if operands:
                operands -= 1
                i += 1
                continue
            break
    if i >= n and wrappers:
        # `env`, `sudo -l`, `time` alone: the wrapper is the command.
        start = max(k for k, w in enumerate(words) if w.rsplit("/", 1)[-1] == wrappers[-1])
        return (wrappers[-1], *words[start + 1 :]), dyn[start:], tuple(wrappers[:-1])
    argv = words[i:]
    adyn = dyn[i:]
    if argv and "/" in argv[0] and not adyn[0]:
        argv = (argv[0].rsplit("/", 1)[-1], *argv[1:])
    if "xargs" in wrappers:
        # xargs adds the words it reads to the command's own: their value is unknown here.
        argv = (*argv, "$(xargs)")
        adyn = (*adyn, True)
    return argv, adyn, tuple(wrappers)


def shell_string(argv: tuple[str, ...]) -> str | None:
    """The command string of ``bash -c STRING`` (options in any order: ``-lc``, ``-e -c``)."""
    args = argv[1:]
    for i, a in enumerate(args):
        if a == "--":
            return None
        if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
            rest = [x for x in args[i + 1 :] if not (x.startswith("-") and len(x) > 1 and x[1:].isalpha() and x != "-")]
            return rest[0] if rest else None
        if not a.startswith("-") and not a.startswith("+"):
            return None
    return None


def nested_code(argv: tuple[str, ...], dyn: tuple[bool, ...], stdin: str | None) -> str | None:
    """The shell code a command runs from its arguments or its stdin, to read one level deeper."""
    name = argv[0]
    if name in SHELLS:
        code = shell_string(argv)
        if code is not None:
            return code
        script_given = any(not a.startswith("-") for a in argv[1:])
        if stdin is not None and not script_given:
            return stdin
        return None
    if name == "eval":
        return " ".join(argv[1:]) or None
    if name == "watch":
        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if argv[i] in ("-n", "--interval", "-q", "--equexit") else 1
        return " ".join(argv[i:]) or None
    if name in ("su", "runuser") and len(argv) > 1:
        for i, a in enumerate(argv[1:-1], start=1):
            if a in ("-c", "--command"):
                return argv[i + 1]
    if name == "ssh":
        return ssh_command(argv)
    return None


def ssh_command(argv: tuple[str, ...]) -> str | None:
    """The remote command of ``ssh [options] host command…``: it runs, on that host."""
    takes = set("BbcDEeFIiJLlmOopQRSWw")
    i = 1
    while i < len(argv):
        a = argv[i]
        if a.startswith("-") and len(a) > 1:
            i += 2 if (a[-1] in takes and len(a) == 2) else 1
            continue
        break
    rest = argv[i + 1 :]
    return " ".join(rest) if rest else None


# tree-sitter-bash 0.25 reads past its tables on `{` followed by a character outside the Basic
# Multilingual Plane (four UTF-8 bytes) and can crash the process on Linux. Such characters are
# only ever data in a command (an emoji in a message, a rare ideograph in a name), so each is read
# as U+FFFD: the command's structure and every rule's reading of it stay the same.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def read(code: str, walk: _Walk, depth: int, scope: _Scope | None = None, origin: str | None = None) -> None:
    if not code.isascii():
        code = _ASTRAL.sub("\ufffd", code)
    tree = _PARSER.parse(code.encode("utf-8", "surrogatepass"))
    reader = _Reader(walk, depth, origin)
    start = len(walk.cmds)
    reader.statements(tree.root_node, scope or _Scope(), -1, 0)
    _piped_scripts(reader, start)


def _piped_scripts(reader: _Reader, start: int) -> None:
    """`echo 'rm -rf x' | sh`, `curl … | bash`: what a shell reads from its pipe is code."""
    cmds = reader.walk.cmds
    for i in range(start, len(cmds)):
        c = cmds[i]
        if c.group < 0 or c.stage == 0 or not c.argv or c.argv[0] not in SHELLS or c.depth != reader.depth:
            continue
        if shell_string(c.argv) is not None or any(not a.startswith("-") for a in c.argv[1:]):
            continue
        for up in cmds[start:i]:
            if up.group == c.group and up.stage == c.stage - 1 and up.argv:
                code = None
                if up.argv[0] in ("echo", "printf"):
                    code = " ".join(a for a in up.argv[1:] if not (a.startswith("-") and len(a) == 2))
                elif up.argv[0] == "cat" and up.stdin is not None:
                    code = up.stdin
                if code:
                    reader.nested(code, _Scope())


@functools.lru_cache(maxsize=CACHE_SIZE)
def parse(command: str) -> Script:
    """The simple commands ``command`` runs (cached: agents send the same commands again and again)."""
    walk = _Walk()
    try:
        read(command, walk, 0)
    except RecursionError:
        walk.complete = False
        walk.too_deep = True
    return Script(tuple(walk.cmds), walk.complete, walk.too_deep)
