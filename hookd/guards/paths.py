"""Paths as the packs judge them: resolved against the call's cwd, project and home, then classified.

A word is resolved the way the shell would (``~``, ``$HOME``, a relative path against the cwd
after the command's own ``cd``s, ``..`` folded away); a word holding an expansion the command does
not give is unknown, and the packs treat unknown as dangerous unless it sits inside a directory that
is safe whatever the rest is (``/tmp/$X``, ``dist/$X``).
"""

from __future__ import annotations

import posixpath
import re
from typing import NamedTuple

from hookd.guards.model import Context

# Directories a build or a tool makes again: deleting them, or anything in them, loses nothing.
BUILD_DIRS = frozenset(
    {
        "node_modules", "dist", "build", "out", "target", ".cache", "cache", "__pycache__", ".pytest_cache", ".mypy_cache",
        ".ruff_cache", ".tox", ".nox", "coverage", "htmlcov", ".nyc_output", ".next", ".nuxt", ".turbo", ".parcel-cache",
        ".svelte-kit", ".angular", ".expo", ".gradle", ".eggs", ".venv", "venv", ".terraform", "tmp", "temp", ".tmp",
        "_build", "DerivedData", ".dart_tool", ".sass-cache", "storybook-static", ".docusaurus", ".serverless", "cdk.out",
        ".aws-sam", ".webpack", ".vite", ".hypothesis", "bower_components", ".pnpm-store", ".yarn-cache", "logs",
        ".benchmarks", "site", "public/build", ".output", ".vercel", "obj", "bin/Debug", "bin/Release", ".stack-work",
        "dist-newstyle", "zig-cache", "zig-out", ".zig-cache", "elm-stuff", ".bundle", ".cargo-target", "__snapshots__",
        "test-results", "playwright-report", "blob-report", ".jest-cache", ".eslintcache", ".stylelintcache", ".direnv",
    }
)  # fmt: skip
BUILD_SUFFIXES = (".egg-info", ".dist-info", ".pyc", ".o", ".class", ".log", ".tmp")
TEMP_ROOTS = ("/tmp/", "/var/tmp/", "/private/tmp/", "/private/var/folders/", "/var/folders/", "/dev/shm/")
# Package managers' download caches in the home: everything in them is fetched again on demand.
HOME_CACHES = (
    "~/.cache/", "~/Library/Caches/", "~/.npm/", "~/.yarn/cache/", "~/.pnpm-store/", "~/.gradle/caches/", "~/.m2/repository/",
    "~/.cargo/registry/", "~/go/pkg/mod/", "~/.nuget/packages/", "~/.bun/install/cache/", "~/.deno/", "~/.pub-cache/",
)  # fmt: skip
SYSTEM_DIRS = frozenset(
    {
        "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys",
        "/usr", "/var", "/home", "/Users", "/System", "/Library", "/Applications", "/private", "/mnt", "/media", "/snap",
        "/usr/bin", "/usr/lib", "/usr/local", "/usr/share", "/usr/sbin", "/var/lib", "/var/log", "/usr/local/bin", "/usr/local/lib",
        "/var/www", "/var/lib/docker", "/var/lib/postgresql", "/var/lib/mysql", "/etc/nginx", "/etc/ssh",
    }
)  # fmt: skip
UNKNOWN = "\0unknown"
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


class Where(NamedTuple):
    """A path's class for a delete: ``kind`` is one of the constants below, ``path`` the resolved path."""

    kind: str
    path: str


SAFE = "safe"  # a build or temporary directory, or inside one
CRITICAL = "critical"  # /, a system directory, the home, the project root, or a parent of one of them
PROJECT = "project"  # inside the project, not a build directory
OUTSIDE = "outside"  # anywhere else that is known
DYNAMIC = "unknown"  # a value the command does not give


def braces(word: str) -> list[str]:
    """``{a,b}`` expanded, one level, as bash would (bounded: a hostile word is not multiplied out)."""
    m = _BRACES.search(word)
    if m is None:
        return [word]
    parts = m.group(1).split(",")[:32]
    return [word[: m.start()] + p + word[m.end() :] for p in parts]


def cwd_of(ctx: Context, cds: tuple[str, ...]) -> str | None:
    """The directory a command runs in: the call's cwd (or the project), then each ``cd`` before it."""
    cwd = ctx.cwd or ctx.project
    for d in cds:
        if d == "$?":
            return None
        resolved = resolve(d, False, ctx, cwd)
        if resolved is None or resolved == UNKNOWN:
            return None
        cwd = resolved
    return cwd


def resolve(word: str, dynamic: bool, ctx: Context, cwd: str | None) -> str | None:
    """The absolute path ``word`` names, ``UNKNOWN`` when an expansion hides it, None when relative to an unknown cwd."""
    if dynamic:
        return UNKNOWN if not _known_prefix(word) else _normal(word, ctx, cwd)
    return _normal(word, ctx, cwd)


def _known_prefix(word: str) -> bool:
    dollar = min((i for i in (word.find("$"), word.find("`")) if i >= 0), default=-1)
    if dollar <= 0:
        return False
    head = word[:dollar]
    return "/" in head


def _normal(word: str, ctx: Context, cwd: str | None) -> str | None:
    if word == "~" or word.startswith("~/"):
        word = ctx.home + word[1:]
    elif word.startswith("~"):
        return UNKNOWN  # ~user: another user's home
    if not word.startswith("/"):
        if cwd is None:
            return None
        word = cwd.rstrip("/") + "/" + word
    norm = posixpath.normpath(word)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _safe_parts(parts: list[str]) -> bool:
    for i, part in enumerate(parts):
        if part in BUILD_DIRS or part.endswith(BUILD_SUFFIXES):
            return True
        if i + 1 < len(parts) and f"{part}/{parts[i + 1]}" in BUILD_DIRS:
            return True
    return False


def _has_glob(s: str) -> bool:
    return any(c in s for c in "*?[")


_MATCH_ALL = frozenset({"*", ".*", "*.*", "**", "?*", ".?*", "[!.]*", ".[!.]*", "..?*", "*/"})
_FILE_EXTENSIONS = re.compile(
    r"\.(json|lock|log|txt|md|rst|ya?ml|toml|ini|cfg|conf|csv|tsv|xml|html?|css|js|mjs|cjs|ts|tsx|jsx|py|pyc|rb|go|rs|java|c|h|cc|cpp|o|so"
    r"|a|dylib|dll|exe|bin|img|iso|zip|tar|gz|tgz|bz2|xz|zst|7z|whl|jar|war|pdf|png|jpe?g|gif|svg|sql|db|sqlite3?|bak|tmp|orig|rej|swp|pid|sock)$"
)


def file_looking(word: str) -> bool:
    """A name a recursive delete takes as a single file: a known file extension, or a build tool's data file."""
    base = posixpath.basename(word.rstrip("/"))
    if word.endswith("/") or base in BUILD_DIRS:
        return False
    return bool(_FILE_EXTENSIONS.search(base)) or base in (".coverage", ".eslintcache", ".DS_Store", "Thumbs.db")


def _dynamic(word: str) -> Where:
    """A path with an expansion: safe only when a build directory's name follows the unknown part."""
    if ".." not in word.split("/"):
        parts = word.split("/")
        for i, part in enumerate(parts[1:], start=1):
            if "$" in part or "`" in part:
                continue
            known_after = all("$" not in p and "`" not in p for p in parts[i:])
            if known_after and (part in BUILD_DIRS or part.endswith(BUILD_SUFFIXES)):
                return Where(SAFE, word)
    return Where(DYNAMIC, word)


def classify(word: str, dynamic: bool, ctx: Context, cwd: str | None) -> Where:
    """Where a delete of ``word`` lands."""
    path = resolve(word, dynamic, ctx, cwd)
    if path == UNKNOWN:
        return _dynamic(word)
    if path is None:
        # Relative to a cwd nobody gave: judge the words themselves.
        parts = [p for p in posixpath.normpath(word).split("/") if p not in ("", ".")]
        if not parts or parts[0] == ".." or (parts[-1] in _MATCH_ALL and len(parts) == 1):
            return Where(DYNAMIC, word)
        return Where(SAFE if _safe_parts(parts) else PROJECT, word)
    # `x/*` deletes everything in x: as bad as deleting x. `x/*.log` deletes only what the pattern names.
    probe = path
    while posixpath.basename(probe) in _MATCH_ALL and probe != "/":
        probe = posixpath.dirname(probe)
    filtered = _has_glob(posixpath.basename(probe))
    if filtered:
        pattern = posixpath.basename(probe).strip("*?")
        if _safe_parts([pattern]) or pattern.endswith(BUILD_SUFFIXES):
            return Where(SAFE, path)
    home = posixpath.normpath(ctx.home)
    project = posixpath.normpath(ctx.project) if ctx.project else None
    if not filtered:
        if probe == "/" or probe in SYSTEM_DIRS:
            return Where(CRITICAL, path)
        for root in (home, project):
            if root and _inside(root, probe):
                return Where(CRITICAL, path)  # the root itself, or one of its parents
    if any((probe + "/").startswith(t) and probe + "/" != t for t in TEMP_ROOTS):
        return Where(SAFE, path)
    for cache in HOME_CACHES:
        full = home + cache[1:]
        if (probe + "/").startswith(full):
            return Where(SAFE, path)  # a cache, or everything in it
    if project and _inside(probe, project) and probe != project:
        rel = probe[len(project) :].strip("/").split("/")
        return Where(SAFE if _safe_parts(rel) else PROJECT, path)
    if project and probe == project:
        return Where(PROJECT, path)
    base = home if _inside(probe, home) else "/"
    rel = probe[len(base) :].strip("/").split("/")
    return Where(SAFE if _safe_parts(rel) else OUTSIDE, path)


def protected(path: str, ctx: Context, protected_paths: tuple[str, ...], cwd: str | None) -> str | None:
    """The protected path ``path`` is, or lies inside or above, if any."""
    for p in protected_paths:
        root = _normal(p.replace("$HOME", "~").replace("${HOME}", "~"), ctx, ctx.project or cwd)
        if root is None:
            continue
        if _inside(path, root) or _inside(root, path):
            return p
    return None


def display(where: Where, ctx: Context) -> str:
    """A path as a person reads it: ``~`` for the home."""
    path = where.path
    home = ctx.home.rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path
