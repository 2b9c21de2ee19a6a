"""The files pack: recursive deletes outside build and temporary dirs, deletes of /, the home or the
project, ``find -delete``, ``shred``, truncation of files that look tracked, and the policy's
protected paths."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from hookd.guards.model import Context, Hit
from hookd.guards.pack import TOO_DEEP, Env, Pack, flags
from hookd.guards.paths import (
    CRITICAL,
    DYNAMIC,
    OUTSIDE,
    PROJECT,
    SAFE,
    Where,
    braces,
    classify,
    display,
    file_looking,
    protected,
    resolve,
)
from hookd.guards.policy import Policy
from hookd.guards.shell import Cmd

ROOT_OR_HOME = "files.delete-root-or-home"
RECURSIVE = "files.recursive-delete"
FIND_DELETE = "files.find-delete"
SHRED = "files.shred"
TRUNCATE = "files.truncate"
PROTECTED = "files.protected-path"
RSYNC_DELETE = "files.rsync-delete"

RULES = {
    ROOT_OR_HOME: "deletes /, a system directory, the home directory or the project root (or a parent of one)",
    RECURSIVE: "deletes a directory tree that is not a build or temporary directory, or whose path is unknown",
    FIND_DELETE: "find -delete or find -exec rm over files that are not build artefacts, or xargs rm over a list of files",
    SHRED: "shred, wipe or srm: overwrites files so that nothing can bring them back",
    TRUNCATE: "empties a file that looks tracked (: > file, truncate -s 0, cp /dev/null)",
    PROTECTED: "deletes, moves or overwrites a path the policy protects",
    RSYNC_DELETE: "rsync --delete into a directory that is not a build or temporary directory",
    "files.too-deep": TOO_DEEP,
}

# The safer command for each rule, as docs/guards-rules.md lists it.
SAFER = {
    "files.delete-root-or-home": "delete the one subdirectory you mean (rm -rf ./dist), or move the tree aside with mv",
    "files.recursive-delete": "spell the path out and delete build output only (rm -rf ./build); move a source tree aside (mv src src.bak)",
    "files.find-delete": "run the find without -delete to see the list, then narrow it with -name to build artefacts",
    "files.shred": "rm (or move the file to the trash) when you only want it gone",
    "files.truncate": "check git status first, or move the file aside (mv f f.bak)",
    "files.protected-path": "leave the path alone, or change the policy's protected_paths",
    "files.rsync-delete": "rsync --dry-run first, or sync into a new directory",
    "files.too-deep": "run the inner command directly, without the nesting",
}

# find's name tests that only ever match build artefacts: deleting what they find loses nothing.
_ARTEFACTS = (".pyc", ".pyo", ".o", ".obj", ".class", ".tmp", ".log", ".orig", ".rej", ".swp", ".swo", "~", ".DS_Store", ".map")
_ARTEFACT_NAMES = frozenset(
    {".DS_Store", "Thumbs.db", "*~", "*.pyc", "*.pyo", "*.o", "*.class", "*.tmp", "*.log", "*.orig", "*.rej", "*.swp"}
)
_LOGLIKE = (".log", ".out", ".tmp", ".lock", ".pid", ".sock", ".err")


def _rm_hit(where: Where, env: Env, how: str, cwd: str | None) -> Hit | None:
    ctx = env.ctx
    if where.kind != DYNAMIC and where.kind != CRITICAL and env.policy.protected_paths:
        p = protected(where.path, ctx, env.policy.protected_paths, cwd)
        if p is not None:
            return Hit(
                PROTECTED, f"{how} {display(where, ctx)} would delete {p}, a path the policy protects; leave it, or delete a narrower path"
            )
    if where.kind == SAFE:
        return None
    shown = display(where, ctx)
    if where.kind == CRITICAL:
        what = _critical_name(where.path, ctx)
        return Hit(
            ROOT_OR_HOME,
            f"{how} {shown} would delete {what} and everything under it; nothing brings it back. "
            "Delete the one subdirectory you mean (e.g. rm -rf ./dist), or move it aside with mv",
        )
    if where.kind == DYNAMIC:
        return Hit(
            RECURSIVE,
            f"{how} {shown}: the target is unknown until the shell expands it, and an empty or wrong value deletes "
            'the wrong tree. Spell the path out (rm -rf ./build), or check it first: [ -n "$X" ] && rm -rf -- "/tmp/$X"',
        )
    where_word = "in the project" if where.kind == PROJECT else "outside the project"
    return Hit(
        RECURSIVE,
        f"{how} {shown} would delete a directory tree {where_word} that is not a build or temporary directory; "
        "it may hold work that exists nowhere else. Delete single files, or move the tree aside (mv x x.bak) and remove it later",
    )


def _critical_name(path: str, ctx: Context) -> str:
    home = posixpath.normpath(ctx.home)
    if path == "/":
        return "the whole filesystem"
    if path == home:
        return "your home directory"
    if ctx.project and path == posixpath.normpath(ctx.project):
        return "the project root"
    if ctx.project and posixpath.normpath(ctx.project).startswith(path.rstrip("/") + "/"):
        return f"{path}, a parent of the project,"
    if home.startswith(path.rstrip("/") + "/"):
        return f"{path}, a parent of your home directory,"
    return f"{path}, a system directory,"


def _targets(cmd: Cmd, operands: list[str]) -> list[tuple[str, bool]]:
    dyn = dict.fromkeys((a for a, d in zip(cmd.argv, cmd.dyn, strict=False) if d), True)
    out = []
    for word in operands:
        for w in braces(word):
            out.append((w, word in dyn))
    return out


def _from_find(cmd: Cmd, env: Env) -> Cmd | None:
    """The find that feeds ``… | xargs rm``, if that is where its words come from."""
    ups = env.upstream(cmd)
    for up in ups:
        if up.argv and up.argv[0] in ("find", "fd", "fdfind"):
            return up
        if up.argv and up.argv[0] not in ("grep", "sort", "uniq", "head", "tail", "tr", "cut", "sed", "awk"):
            return None
    return None


def rm(cmd: Cmd, env: Env) -> Hit | None:
    short, long, operands = flags(cmd.argv, frozenset({"--interactive"}))
    recursive = "r" in short or "R" in short or "--recursive" in long
    cwd = env.cwd(cmd)
    targets = _targets(cmd, operands)
    if "xargs" in cmd.wrappers:
        find = _from_find(cmd, env)
        targets = [t for t in targets if t[0] != "$(xargs)"]
        if find is not None:
            hit = _find_hit(find, env, "rm" + (" -r" if recursive else "") + " on what find lists")
        else:
            hit = Hit(
                FIND_DELETE,
                "xargs rm deletes every file the pipeline before it lists, a list nobody has looked at. "
                "Print the list first, and delete the files you mean by name",
            )
        if hit is not None or not targets:
            return hit
    for word, dynamic in targets:
        where = classify(word, dynamic, env.ctx, cwd)
        # `rm -rf package-lock.json`: one file, as a plain rm would delete it.
        one_file = not dynamic and file_looking(word) and where.kind in (PROJECT, OUTSIDE)
        recursive_here = recursive and not one_file
        if not recursive_here:
            # A plain rm of a file only troubles a path the policy protects, or / and the home themselves.
            if where.kind != DYNAMIC and env.policy.protected_paths:
                p = protected(where.path, env.ctx, env.policy.protected_paths, cwd)
                if p is not None:
                    return Hit(PROTECTED, f"rm {display(where, env.ctx)} would delete {p}, a path the policy protects; leave it")
            continue
        hit = _rm_hit(where, env, "rm -r", cwd)
        if hit is not None:
            return hit
    return None


def _find_hit(cmd: Cmd, env: Env, how: str) -> Hit | None:
    argv = cmd.argv
    roots: list[tuple[str, bool]] = []
    i = 1
    while i < len(argv) and argv[i] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"):
        i += 1
    while i < len(argv) and not argv[i].startswith("-") and argv[i] not in ("(", "!", ")"):
        roots.append((argv[i], cmd.dyn[i]))
        i += 1
    if not roots:
        roots = [(".", False)]
    names: list[str] = []
    for j in range(i, len(argv) - 1):
        if argv[j] in ("-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex"):
            names.append(argv[j + 1])
    cwd = env.cwd(cmd)
    wheres = [classify(r, d, env.ctx, cwd) for r, d in roots]
    if all(w.kind == SAFE for w in wheres):
        return None
    project = posixpath.normpath(env.ctx.project) if env.ctx.project else None
    in_project = all(w.kind in (SAFE, PROJECT) or (project is not None and w.path == project) for w in wheres)
    if names and all(_artefact(n) for n in names) and in_project:
        return None  # build artefacts by name, inside the project
    worst = next((w for w in wheres if w.kind == CRITICAL), None) or next((w for w in wheres if w.kind != SAFE), wheres[0])
    shown = display(worst, env.ctx)
    matched = f" matching {' '.join(names)}" if names else ""
    return Hit(
        FIND_DELETE,
        f"{how} under {shown} deletes every file{matched} it finds there, work included, with no undo. "
        "Run the find without -delete first to see the list, and narrow it with -name to build artefacts",
    )


def _artefact(pattern: str) -> bool:
    p = pattern.strip("'\"")
    if p in _ARTEFACT_NAMES:
        return True
    core = p.strip("*").strip("/")
    if core in {"node_modules", "__pycache__", ".pytest_cache", ".mypy_cache", "dist", "build", ".cache", "target", ".DS_Store"}:
        return True
    return p.startswith("*") and p.endswith(_ARTEFACTS) and "/" not in p


def find(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    deleting = "-delete" in argv
    for j, a in enumerate(argv):
        if a in ("-exec", "-execdir", "-ok", "-okdir") and j + 1 < len(argv):
            tool = argv[j + 1].rsplit("/", 1)[-1]
            if tool in ("rm", "shred", "unlink", "srm"):
                deleting = True
            if tool == "rm" and any(x.startswith("-") and ("r" in x or "R" in x) for x in argv[j + 2 : j + 5]):
                deleting = True
    if not deleting:
        return None
    return _find_hit(cmd, env, "find -delete")


def shred(cmd: Cmd, env: Env) -> Hit | None:
    _, _, operands = flags(cmd.argv, frozenset({"-n", "-s", "--iterations", "--size", "--random-source"}))
    cwd = env.cwd(cmd)
    for word, dynamic in _targets(cmd, operands):
        where = classify(word, dynamic, env.ctx, cwd)
        if where.kind == SAFE and not word.startswith("/dev/"):
            continue
        return Hit(
            SHRED,
            f"{cmd.argv[0]} {display(where, env.ctx)} overwrites the file's bytes before deleting it: "
            "not even a backup tool can bring it back. Use rm (or move it to the trash) if you only want it gone",
        )
    return None


def _tracked_looking(where: Where) -> bool:
    if where.kind not in (PROJECT, OUTSIDE, CRITICAL):
        return False
    path = where.path
    return not (path.startswith(("/dev/", "/proc/")) or path.endswith(_LOGLIKE))


def _truncate_hit(word: str, dynamic: bool, env: Env, cmd: Cmd, how: str) -> Hit | None:
    cwd = env.cwd(cmd)
    where = classify(word, dynamic, env.ctx, cwd)
    if where.kind != DYNAMIC and env.policy.protected_paths:
        p = protected(where.path, env.ctx, env.policy.protected_paths, cwd)
        if p is not None:
            return Hit(PROTECTED, f"{how} {display(where, env.ctx)} would overwrite {p}, a path the policy protects; leave it")
    if not _tracked_looking(where):
        return None
    return Hit(
        TRUNCATE,
        f"{how} {display(where, env.ctx)} empties the file; if it holds uncommitted work, that work is gone. "
        "Check with git status first, or move it aside (mv f f.bak)",
    )


_EMPTY_WRITERS = frozenset({":", "true", "false"})


def _writes_nothing(cmd: Cmd) -> bool:
    argv = cmd.argv
    name = argv[0]
    if name in _EMPTY_WRITERS:
        return True
    if name == "echo" and all(a.startswith("-") and set(a[1:]) <= {"n", "e", "E"} for a in argv[1:]):
        return "-n" in argv[1:] or (len(argv) == 1 and False)
    if name == "printf" and (len(argv) == 1 or argv[1:] == ("",)):
        return True
    return name == "cat" and argv[1:] == ("/dev/null",)


def redirects(cmd: Cmd, env: Env) -> Hit | None:
    if not cmd.redirects:
        return None
    for op, target, dynamic in cmd.redirects:
        if op not in (">", ">|", "&>"):
            continue
        if _writes_nothing(cmd):
            hit = _truncate_hit(target, dynamic, env, cmd, "truncating")
            if hit is not None:
                return hit
        elif env.policy.protected_paths and not dynamic:
            cwd = env.cwd(cmd)
            path = resolve(target, False, env.ctx, cwd)
            if path:
                p = protected(path, env.ctx, env.policy.protected_paths, cwd)
                if p is not None:
                    return Hit(PROTECTED, f"writing over {target} would replace {p}, a path the policy protects; leave it")
    return None


def truncate(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    zero = False
    operands: list[str] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-s", "--size") and i + 1 < len(argv):
            zero = argv[i + 1] in ("0", "0K", "0M")
            i += 2
            continue
        if a.startswith("-s") or a.startswith("--size="):
            zero = a.split("=", 1)[-1].lstrip("-s") in ("0", "0K", "0M")
        elif not a.startswith("-"):
            operands.append(a)
        i += 1
    if not zero:
        return None
    dyn = dict.fromkeys((a for a, d in zip(argv, cmd.dyn, strict=False) if d), True)
    for word in operands:
        hit = _truncate_hit(word, word in dyn, env, cmd, "truncate -s 0")
        if hit is not None:
            return hit
    return None


def cp(cmd: Cmd, env: Env) -> Hit | None:
    _, _, operands = flags(cmd.argv, frozenset({"-t", "--target-directory", "-S", "--suffix"}))
    if len(operands) == 2 and operands[0] == "/dev/null":
        dyn = dict.fromkeys((a for a, d in zip(cmd.argv, cmd.dyn, strict=False) if d), True)
        return _truncate_hit(operands[1], operands[1] in dyn, env, cmd, "cp /dev/null over")
    return None


def mv(cmd: Cmd, env: Env) -> Hit | None:
    _, _, operands = flags(cmd.argv, frozenset({"-t", "--target-directory", "-S", "--suffix"}))
    if len(operands) < 2:
        return None
    cwd = env.cwd(cmd)
    dyn = dict.fromkeys((a for a, d in zip(cmd.argv, cmd.dyn, strict=False) if d), True)
    sources = operands[:-1]
    dest = operands[-1]
    for word in sources:
        where = classify(word, word in dyn, env.ctx, cwd)
        if where.kind == CRITICAL and where.path in ("/", posixpath.normpath(env.ctx.home)):
            return _rm_hit(where, env, "mv", cwd)
        if where.kind != DYNAMIC and env.policy.protected_paths:
            p = protected(where.path, env.ctx, env.policy.protected_paths, cwd)
            if p is not None:
                return Hit(PROTECTED, f"mv {display(where, env.ctx)} would move away {p}, a path the policy protects; copy it instead")
    if dest == "/dev/null":
        return Hit(RECURSIVE, f"mv {' '.join(sources)} /dev/null destroys what it moves; use rm on the exact files you mean")
    return None


def rsync(cmd: Cmd, env: Env) -> Hit | None:
    _, long, operands = flags(cmd.argv, frozenset({"-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--files-from"}))
    if not any(x.startswith("--delete") or x == "--remove-source-files" for x in long):
        return None
    if len(operands) < 2:
        return None
    dest = operands[-1]
    if ":" in dest.split("/", 1)[0]:
        return None  # a remote side: not this machine's files
    dyn = dict.fromkeys((a for a, d in zip(cmd.argv, cmd.dyn, strict=False) if d), True)
    where = classify(dest, dest in dyn, env.ctx, env.cwd(cmd))
    if where.kind == SAFE:
        return None
    return Hit(
        RSYNC_DELETE,
        f"rsync --delete into {display(where, env.ctx)} deletes every file there that the source lacks; a wrong or empty source "
        "wipes the directory. Run it with --dry-run first, or sync into a new directory",
    )


def write_protected(tool: str, args: Mapping[str, Any], ctx: Context, policy: Policy) -> Hit | None:
    """write_file onto a protected path."""
    path = args.get("path")
    if not isinstance(path, str) or not policy.protected_paths:
        return None
    resolved = resolve(path, False, ctx, ctx.cwd or ctx.project)
    if resolved is None:
        return None
    p = protected(resolved, ctx, policy.protected_paths, ctx.cwd or ctx.project)
    if p is None:
        return None
    return Hit(PROTECTED, f"{tool} {path} would change {p}, a path the policy protects; leave it, or ask for the policy to change")


PACK = Pack(
    "files",
    RULES,
    {
        "rm": (rm,),
        "find": (find,),
        "shred": (shred,),
        "wipe": (shred,),
        "srm": (shred,),
        "truncate": (truncate,),
        "cp": (cp,),
        "mv": (mv,),
        "rsync": (rsync,),
    },
    (redirects,),
    {"write_file": write_protected, "edit_file": write_protected},
    safer=SAFER,
)
