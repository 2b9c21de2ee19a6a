"""The last accepted version of every hook file, kept in the state directory.

When a hook file is loaded and accepted (valid as a whole), its text is kept
in ``$XDG_STATE_HOME/hookd/accepted/<sha256 of the path>.json`` with the path
it came from, its SHA-256 and when it was accepted. When the daemon starts (or
first loads a project) and finds a file invalid, the kept version is what stays
in force, exactly as a file rejected while the daemon runs keeps its previous
version: an edit that breaks a guard file never disarms the guard, not even
across a restart. A file that is deleted has its kept version forgotten (its
hooks are gone on purpose).

The kept versions also say which file holds which hook name: on a name clash
between two files of a scope, the file whose last accepted version defines the
name keeps it (hookd/config/hooknames.py), so a restart, which loads the files in
load order whatever order they were created in, leaves the same guards in
force. Each record carries its hook names for that; a record written before
they were kept has its text validated once to find them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from dataclasses import dataclass

from hookd.config import hookfile
from hookd.config.statefiles import StateFileError, read_json, state_home, write_json
from hookd.core.lazylog import LazyLogger

log = LazyLogger("hookd.accepted")  # the daemon logs here; `hookd check` reads the kept versions without it


@dataclass(frozen=True, slots=True)
class Kept:
    path: str  # the hook file it is a version of
    sha256: str
    accepted_at: str
    text: str
    stored: str  # where it is kept


class AcceptedStore:
    def __init__(self, directory: str | None = None) -> None:
        self.directory = directory or os.path.join(state_home(), "accepted")
        self._known: dict[str, str] = {}  # path -> sha256 kept (what this daemon wrote or read)
        self._names: dict[str, frozenset[str]] = {}  # path -> hook names of its kept version (none kept: empty)

    def _where(self, path: str) -> str:
        return os.path.join(self.directory, hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json")

    def keep(self, path: str, data: bytes, names: list[str]) -> None:
        """Record ``data`` (an accepted file's bytes, UTF-8, defining hooks ``names``) as ``path``'s accepted version.

        The same bytes kept already keep their record (and so the time they were first accepted)."""
        sha = hashlib.sha256(data).hexdigest()
        if self._known.get(path) == sha and path in self._names:
            return
        same = self._known.get(path) != sha and (old := self.kept(path)) is not None and old.sha256 == sha
        self._names[path] = frozenset(names)
        if same:
            return
        record = {
            "path": path,
            "sha256": sha,
            "accepted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "text": data.decode("utf-8"),
            "names": list(names),
        }
        try:
            write_json(self._where(path), record)
        except OSError as exc:
            log.error("could not keep the accepted version of a hook file", file=path, error=str(exc))
            return
        self._known[path] = sha

    def claimed(self, path: str) -> frozenset[str]:
        """The hook names of ``path``'s last accepted version (none kept: no name)."""
        names = self._names.get(path)
        if names is None:
            kept = self.kept(path)
            names = self._names.get(path, frozenset()) if kept is not None else frozenset()
            self._names[path] = names
        return names

    def kept(self, path: str) -> Kept | None:
        """The accepted version kept for ``path``, if there is a readable one."""
        where = self._where(path)
        try:
            st = os.stat(where)
            if st.st_size > 8 * hookfile.MAX_BYTES:
                raise StateFileError(f"{where} is too large")
            record = read_json(where)
        except FileNotFoundError:
            return None
        except (OSError, StateFileError) as exc:
            log.error("the kept accepted version of a hook file is unreadable", file=path, error=str(exc))
            return None
        if not record or record.get("path") != path or not isinstance(record.get("text"), str):
            return None
        text = record["text"]
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self._known[path] = sha
        names = record.get("names")
        if isinstance(names, list) and all(isinstance(n, str) for n in names) and record.get("sha256") == sha:
            self._names[path] = frozenset(names)
        else:
            self._names[path] = _names_of(text, path)
        return Kept(path, sha, str(record.get("accepted_at", "")), text, where)

    def forget(self, path: str) -> None:
        self._known.pop(path, None)
        self._names[path] = frozenset()
        with contextlib.suppress(OSError):
            os.unlink(self._where(path))


def _names_of(text: str, path: str) -> frozenset[str]:
    """The hook names of a kept text (a record written before names were kept); none if it no longer validates."""
    from hookd.config.validator import ConfigInvalid, validate

    try:
        return frozenset(spec.name for spec in validate(text, path))
    except ConfigInvalid:
        return frozenset()
