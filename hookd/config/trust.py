"""Project trust, like `direnv allow`: a project's hook files run only once the user trusted them.

Trust is recorded per file as the SHA-256 of its bytes, so an edited file is
untrusted again until re-trusted. Global files are the user's own and always
trusted; ``HOOKD_TRUST_ALL=1`` trusts every file (CI, throwaway containers).
The record lives in ``$XDG_STATE_HOME/hookd/trust.json``.
"""

from __future__ import annotations

import hashlib
import os
import time

from hookd.config import projects, userconfig
from hookd.config.statefiles import StateFileError, read_json, state_home, write_json
from hookd.core.hooks import ALWAYS, Verdict

TRUST_ALL_ENV = "HOOKD_TRUST_ALL"


def trust_all_from_env(environ: dict[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get(TRUST_ALL_ENV, "").strip().lower() in {"1", "true", "yes"}


def file_key(path: str) -> str:
    """The name a file is trusted under: its project's identity and its path inside the project
    (see hookd/config/projects.py), so a symlink never lends one project's trust to another."""
    return projects.file_key(os.path.abspath(path))


def digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class NothingToTrust(Exception):
    pass


def plugin_files(path: str) -> list[str]:
    """A project's plugin files (every *.py and requirements.txt of .hookd/plugin[s]/), or a plugin directory's own."""
    from hookd.config import plugin_dirs as discovery

    dirs = [path] if os.path.basename(path) in discovery.DIR_NAMES else discovery.project_dirs(path)
    return [str(p) for d in dirs for p in discovery.relevant_files(d)]


def plugin_dir_prefixes(path: str) -> tuple[str, ...]:
    from hookd.config import plugin_dirs as discovery

    dirs = [path] if os.path.basename(path) in discovery.DIR_NAMES else discovery.project_dirs(path)
    return tuple(file_key(d) + os.sep for d in dirs)


def targets(path: str) -> list[str]:
    """The files ``path`` names: the file itself, or a project directory's existing hook files and plugin files."""
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(path):
        path = projects.canonical(path)
        found = [f for f in userconfig.project_files(path) if os.path.isfile(f)] + plugin_files(path)
        if not found:
            wanted = " or ".join(userconfig.PROJECT_FILES)
            raise NothingToTrust(f"{path} has no project hook file ({wanted}) and no plugin (.hookd/plugins/*.py)")
        return found
    if os.path.isfile(path):
        return [path]
    raise NothingToTrust(f"{path} does not exist")


class TrustStore:
    """The trust record. ``generation`` moves on every change, so what was decided from the
    record (a call's plan, a cached verdict) is known to be stale by one integer compare."""

    def __init__(self, path: str | None = None, trust_all: bool = False) -> None:
        self.path = path or os.path.join(state_home(), "trust.json")
        self.trust_all = trust_all
        self.files: dict[str, str] = {}
        self.generation = 0
        self._verdicts: dict[tuple[str, str], Verdict] = {}  # (file key, sha256) -> verdict, this generation

    def _moved(self) -> None:
        self.generation += 1
        self._verdicts.clear()

    def file_verdict(self, key: str, sha256: str, file: str, project: str) -> Verdict:
        """The verdict on a project file loaded with content ``sha256``, known by its trust ``key``
        (:func:`file_key`); cached until the record changes."""
        cached = self._verdicts.get((key, sha256))
        if cached is None:
            cached = self._verdicts[(key, sha256)] = self._verdict(key, sha256, file, project)
        return cached

    def load(self) -> str | None:
        """Read the record; returns an error text when it is unreadable (then nothing is trusted)."""
        try:
            data = read_json(self.path) or {}
        except StateFileError as exc:
            self.files = {}
            self._moved()
            return str(exc)
        files = data.get("files", {})
        self.files = {k: v["sha256"] for k, v in files.items() if isinstance(v, dict) and isinstance(v.get("sha256"), str)}
        self._moved()
        return None

    def save(self) -> None:
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        old = (read_json_quiet(self.path) or {}).get("files", {})
        files = {}
        for key, sha in sorted(self.files.items()):
            prior = old.get(key) if isinstance(old.get(key), dict) else None
            when = prior.get("trusted_at", now) if prior and prior.get("sha256") == sha else now
            files[key] = {"sha256": sha, "trusted_at": when}
        write_json(self.path, {"version": 1, "files": files})

    def verdict(self, scope: str, file: str, sha256: str, project: str = "") -> Verdict:
        if scope != "project":
            return ALWAYS
        return self._verdict(file_key(file), sha256, file, project)

    def _verdict(self, key: str, sha256: str, file: str, project: str) -> Verdict:
        if self.trust_all:
            return Verdict(True, f"{TRUST_ALL_ENV}=1")
        recorded = self.files.get(key)
        where = project or os.path.dirname(file)
        if recorded == sha256:
            return Verdict(True, f"trusted (sha256 {sha256[:12]})")
        if recorded is None:
            return Verdict(False, f"not trusted: review {file}, then run `hookd trust {where}`")
        return Verdict(False, f"changed since it was trusted: review {file}, then run `hookd trust {where}`")

    def trust(self, files: list[str]) -> dict[str, str]:
        """Record each file's current content; returns file -> sha256."""
        done = {}
        for f in files:
            sha = digest(f)
            self.files[file_key(f)] = sha
            done[f] = sha
        self._moved()
        self.save()
        return done

    def untrust(self, path: str) -> list[str]:
        """Forget one file, or a project directory's hook files and plugin files; returns the forgotten keys."""
        path = os.path.abspath(os.path.expanduser(path))
        if os.path.isdir(path):
            path = projects.canonical(path)
        names = userconfig.project_files(path) if os.path.isdir(path) else [path]
        gone = [key for key in (file_key(n) for n in names) if key in self.files]
        if os.path.isdir(path):  # plugin files, deleted ones included
            prefixes = plugin_dir_prefixes(path)
            gone += [key for key in self.files if key.startswith(prefixes) and key not in gone]
        for key in gone:
            del self.files[key]
        if gone:
            self._moved()
            self.save()
        return gone


def read_json_quiet(path: str) -> dict[str, object] | None:
    try:
        return read_json(path)
    except StateFileError:
        return None
