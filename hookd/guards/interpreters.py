"""Interpreter one-liners read as the shell commands they amount to.

``python -c "shutil.rmtree('src')"`` deletes a tree as ``rm -rf src`` does; ``node -e
"execSync('git reset --hard')"`` runs a shell command; ``ruby -e 'puts File.read(".env")'`` prints a
file as ``cat`` does. The code of ``-c``/``-e``/``-r`` (or a here-doc fed to the interpreter) is
scanned for those operations and each becomes the shell command with the same effect, which the
packs then judge like any other. A path the code computes in a way not read here is unknown, and an
unknown target of a recursive delete is a finding.
"""

from __future__ import annotations

import re
import shlex

_PYTHON = re.compile(r"^(python[0-9.]*|pypy[0-9.]*)$")
_NODE = frozenset({"node", "nodejs", "bun", "deno"})
_CODE_FLAGS = {
    "python": ("-c",),
    "node": ("-e", "--eval", "-p", "--print"),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "php": ("-r",),
}
_STR = r"""(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\$]|\\.)*`)"""
_HOME_EXPR = re.compile(
    r"""^(?:os\.path\.expanduser\(\s*(['"])~\1\s*\)|Path\.home\(\)|pathlib\.Path\.home\(\)|os\.homedir\(\)|require\(['"]os['"]\)\.homedir\(\)"""
    r"""|process\.env\.HOME|os\.environ\[['"]HOME['"]\]|os\.getenv\(['"]HOME['"]\)|os\.environ\.get\(['"]HOME['"]\)|Dir\.home|ENV\[['"]HOME['"]\]"""
    r"""|\$ENV\{HOME\}|\$ENV\{'HOME'\})$"""
)
_WRAPPED = re.compile(
    r"""^(?:os\.path\.expanduser|os\.path\.abspath|os\.path\.realpath|Path|pathlib\.Path|path\.resolve|File\.expand_path|Pathname\.new|String)\((.*)\)(?:\.expanduser\(\)|\.resolve\(\))?$""",
    re.S,
)
_JOIN = re.compile(r"^(?:os\.path\.join|path\.join|File\.join|path\.resolve)\((.*)\)$", re.S)


def language(name: str) -> str | None:
    if _PYTHON.match(name):
        return "python"
    if name in _NODE:
        return "node"
    if name in ("perl", "ruby", "php"):
        return name
    return None


def inline_code(argv: tuple[str, ...], stdin: str | None) -> tuple[str, str] | None:
    """(language, code) an interpreter command runs from its arguments or a here-doc, if any."""
    lang = language(argv[0])
    if lang is None:
        return None
    flags = _CODE_FLAGS[lang]
    for i, a in enumerate(argv[1:], start=1):
        if a in flags and i + 1 < len(argv):
            return lang, argv[i + 1]
        clustered = lang != "node" and a.startswith("-") and not a.startswith("--") and a[1:].isalpha() and len(a) > 2
        if clustered and a[-1] in "".join(f[-1] for f in flags) and i + 1 < len(argv):
            return lang, argv[i + 1]  # python -Bc, perl -we
        if a.startswith("-M") or a.startswith("-I") or (a.startswith("-r") and lang == "ruby"):
            continue
        if not a.startswith("-") and a != "-":
            return None  # a script file: not seen here
    if stdin is not None:
        return lang, stdin
    return None


def _args(text: str) -> list[str]:
    """The top-level comma-separated arguments of a call's argument text."""
    out = []
    depth = 0
    cur: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
            cur.append(c)
        elif c in "([{":
            depth += 1
            cur.append(c)
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur and "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _literal(expr: str) -> str | None:
    expr = expr.strip()
    if len(expr) >= 2 and expr[0] == expr[-1] and expr[0] in "'\"`":
        body = expr[1:-1]
        if expr[0] == "`" and "${" in body:
            return None
        return re.sub(r"\\(.)", r"\1", body)
    for prefix in ("r", "b", "u"):
        if expr.startswith(prefix) and len(expr) > 2 and expr[1] in "'\"":
            return _literal(expr[1:])
    return None


def path_of(expr: str, depth: int = 0) -> str | None:
    """The path a code expression names, ``~`` for the home; None when not read here."""
    expr = expr.strip()
    if depth > 4 or not expr:
        return None
    lit = _literal(expr)
    if lit is not None:
        return lit
    if _HOME_EXPR.match(expr):
        return "~"
    m = _JOIN.match(expr)
    if m:
        parts = [path_of(a, depth + 1) for a in _args(m.group(1))]
        if parts and all(p is not None for p in parts):
            return "/".join(p.strip("/") if i else p.rstrip("/") for i, p in enumerate(parts) if p is not None)
        return None
    m = _WRAPPED.match(expr)
    if m:
        inner = _args(m.group(1))
        return path_of(inner[0], depth + 1) if inner else None
    if " / " in expr:  # pathlib: Path.home() / ".ssh" / "id_rsa"
        parts = [path_of(p, depth + 1) for p in expr.split(" / ")]
        if all(p is not None for p in parts):
            return "/".join(p for p in parts if p is not None)
    if " + " in expr:
        parts = [path_of(p, depth + 1) for p in expr.split(" + ")]
        if all(p is not None for p in parts):
            return "".join(p for p in parts if p is not None)
    return None


def _q(path: str | None) -> str:
    return shlex.quote(path) if path is not None else '"$UNKNOWN_PATH"'


def _list_command(expr: str) -> str | None:
    """``['rm', '-rf', 'x']`` as a shell command."""
    expr = expr.strip()
    if not (expr.startswith("[") and expr.endswith("]")) and not (expr.startswith("(") and expr.endswith(")")):
        return None
    words = []
    for a in _args(expr[1:-1] + ")"):
        lit = _literal(a)
        p = lit if lit is not None else path_of(a)
        words.append(shlex.quote(p) if p is not None else '"$UNKNOWN"')
    return " ".join(words) if words else None


# Calls whose first argument is deleted as a whole tree.
_RMTREE = re.compile(
    r"(?:shutil\.rmtree|\brmtree|remove_tree|FileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry_secure|remove_entry|rmtree)|"
    r"\brimraf(?:\.sync)?|fse?\.(?:removeSync|remove|emptyDirSync|emptyDir)|Deno\.removeSync|Deno\.remove)\s*\(?\s*"
)
_NODE_RM = re.compile(r"\b(?:fs|fsp|fs\.promises|require\(\s*['\"](?:node:)?fs['\"]\s*\)|promises)\.(?:rmSync|rm|rmdirSync|rmdir)\s*\(")
_SHELL = re.compile(
    r"(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|"
    r"\bexecSync|\bexec|\bspawnSync|\bspawn|\bexecFileSync|child_process\.\w+|\bsystem|\bshell_exec|\bpassthru|\bproc_open|"
    r"Open3\.\w+|IO\.popen|Kernel\.system|Deno\.Command)\s*\(?\s*"
)
_READ = re.compile(
    r"(?:\bopen|io\.open|readFileSync|readFile|File\.read|File\.open|IO\.read|file_get_contents|Deno\.readTextFileSync|"
    r"Path\((?P<p>[^()]*)\)\.read_(?:text|bytes))\s*\(\s*"
)
_BACKTICKS = re.compile(r"`([^`]+)`|%x\{([^}]+)\}|qx\{([^}]+)\}|qx\(([^)]+)\)")


def _call_args(code: str, end: int) -> list[str]:
    rest = code[end:]
    if code[end - 1 : end] != "(" and not rest.startswith("("):
        # Perl and Ruby call without parentheses: up to the end of the statement.
        stop = re.search(r"[;\n]", rest)
        return _args(rest[: stop.start()] if stop else rest)
    return _args(rest.lstrip("("))


_LITERALS = re.compile(_STR + r"|#[^\n]*" + r"|//[^\n]*")


def _in_literal(spans: list[tuple[int, int]], pos: int) -> bool:
    return any(a <= pos < b for a, b in spans)


def shell_of(lang: str, code: str, depth: int = 0) -> list[str]:
    """The shell commands with the same effect as ``code``'s deletes, reads and shell calls."""
    out: list[str] = []
    # A name inside a string or a comment is text the program prints, not a call it makes.
    spans = [m.span() for m in _LITERALS.finditer(code) if not (lang in ("perl", "ruby", "php") and m.group(0).startswith("`"))]
    for m in _RMTREE.finditer(code):
        if _in_literal(spans, m.start()):
            continue
        args = _call_args(code, m.end())
        out.append(f"rm -rf -- {_q(path_of(args[0]) if args else None)}")
    for m in _NODE_RM.finditer(code):
        if _in_literal(spans, m.start()):
            continue
        args = _call_args(code, m.end())
        if any(re.search(r"recursive\s*:\s*true", a) for a in args[1:]):
            out.append(f"rm -rf -- {_q(path_of(args[0]) if args else None)}")
    for m in _SHELL.finditer(code):
        if _in_literal(spans, m.start()):
            continue
        args = _call_args(code, m.end())
        if not args:
            continue
        first = args[0]
        lit = _literal(first)
        if lit is not None and m.group(0).startswith(("exec", "system", "eval")) and lang == "python":
            out.extend(shell_of(lang, lit, depth + 1) if depth < 3 else [])
            continue
        if lit is not None:
            rest = [x for x in (path_of(a) for a in args[1:2] if a.strip().startswith("[")) if x]
            listed = _list_command(args[1]) if len(args) > 1 and args[1].strip().startswith("[") else None
            out.append(f"{shlex.quote(lit)} {listed}" if listed and not rest else lit)
            continue
        listed = _list_command(first)
        if listed is not None:
            out.append(listed)
    for m in _READ.finditer(code):
        if _in_literal(spans, m.start()):
            continue
        inner = m.group("p")
        target = path_of(inner) if inner is not None else None
        if inner is None:
            args = _call_args(code, m.end())
            if not args:
                continue
            mode = _literal(args[1]) if len(args) > 1 else None
            if mode is not None and any(c in mode for c in "wax+"):
                continue
            target = path_of(args[0])
        if target is not None:
            out.append(f"cat -- {shlex.quote(target)}")
    if lang in ("perl", "ruby", "php"):
        for m in _BACKTICKS.finditer(code):
            text = next(g for g in m.groups() if g is not None)
            out.append(text)
    return out
