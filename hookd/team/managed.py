"""The organisation's guards: hook configuration from the team's key-value bucket.

Each key of the bucket holds one document in the hooks.yaml format. Its name
chooses the tier: ``before.<name>`` hooks run before every hook of the user
(scope ``managed``), ``after.<name>`` hooks after them (scope ``managed_after``).
A new value of a key is accepted or refused as a whole: one invalid hook in it
and the value is refused, reported on the bus (``hookd.managed.rejected``),
and the key's previous value stays in force. A key deleted from the bucket
withdraws its hooks.

What is in force is kept in ``<state dir>/team/managed.json`` after every
change and loaded at start, before any client is served: the guards hold
while the server is away and from the first call on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from hookd_client import messages as m

from hookd.config import userconfig
from hookd.config.statefiles import StateFileError, read_json, write_json

if TYPE_CHECKING:
    from hookd.team.host import TeamHost

log = structlog.get_logger("hookd.team")

TIERS: dict[str, m.Scope] = {"before": "managed", "after": "managed_after"}
MANAGED_SCOPES: frozenset[str] = frozenset(TIERS.values())
MAX_VALUE = 1 << 20


@dataclass(frozen=True, slots=True)
class Accepted:
    revision: int
    text: str
    specs: tuple[m.HookSpec, ...]


def check(key: str, value: bytes) -> tuple[tuple[m.HookSpec, ...], list[str]]:
    """The hooks of one value of ``key``, or the problems that refuse it (then no hook of it applies)."""
    tier, _, name = key.partition(".")
    if tier not in TIERS or not name:
        return (), [f"key {key!r}: a managed key is named before.<name> or after.<name> (the tier its hooks run in)"]
    if len(value) > MAX_VALUE:
        return (), [f"key {key!r}: {len(value)} bytes, more than {MAX_VALUE}"]
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (), [f"key {key!r}: not UTF-8 text: {exc}"]
    try:
        specs = userconfig.validate(text, f"managed:{key}")
    except userconfig.ConfigInvalid as exc:
        return (), [str(p) for p in exc.problems]
    names = [s.name for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        return (), [f"key {key!r}: duplicate hook name(s) {', '.join(dupes)}"]
    return tuple(specs), []


def source_of(key: str, revision: int) -> str:
    return f"managed:{key}@{revision}"


class ManagedGuards:
    """The managed hooks in force, what was refused, and the record on disk."""

    def __init__(self, daemon: TeamHost, path: str, bucket: str | None) -> None:
        self.d = daemon
        self.path = path
        self.bucket = bucket
        self.accepted: dict[str, Accepted] = {}
        self.rejected: dict[str, tuple[int, list[str]]] = {}  # key -> (revision, problems) of its refused value
        self.revision = 0  # the newest bucket revision taken into account
        self.error = ""  # the record could not be read or written
        self.on_change: Callable[[], None] | None = None

    # ---------------------------------------------------------------- record

    def load(self) -> None:
        """The guards last in force, from the record (at start, before any client is served)."""
        try:
            data = read_json(self.path) or {}
        except StateFileError as exc:
            # Unreadable: no guard can be trusted from it. Say so loudly; the bucket brings them back.
            self.error = str(exc)
            log.error("managed guards record unreadable; none apply until the bucket is reached", error=str(exc))
            return
        if self.bucket is None:
            self.bucket = data.get("bucket") if isinstance(data.get("bucket"), str) else None
        elif data.get("bucket") not in (None, self.bucket):
            return  # the record of another bucket
        keys = data.get("keys") or {}
        for key, entry in sorted(keys.items()) if isinstance(keys, dict) else ():
            if not isinstance(entry, dict) or not isinstance(entry.get("text"), str) or not isinstance(entry.get("revision"), int):
                continue
            specs, problems = check(key, entry["text"].encode("utf-8"))
            if problems:
                log.error("a recorded managed value no longer validates; skipped", key=key, problems=problems)
                continue
            self._install(key, Accepted(entry["revision"], entry["text"], specs))
        revision = data.get("revision")
        self.revision = revision if isinstance(revision, int) else 0

    def _save(self) -> None:
        data: dict[str, Any] = {
            "version": 1,
            "bucket": self.bucket,
            "revision": self.revision,
            "keys": {k: {"revision": a.revision, "text": a.text} for k, a in sorted(self.accepted.items())},
        }
        try:
            write_json(self.path, data)
            self.error = ""
        except OSError as exc:
            self.error = f"cannot record the managed guards in {self.path}: {exc}"
            log.error("managed guards not recorded; they hold until the daemon stops", error=str(exc))

    # --------------------------------------------------------------- updates

    def update(self, key: str, revision: int, value: bytes | None) -> bool:
        """One change of the bucket (None: the key was deleted or purged). True when the hooks changed."""
        changed = self._apply(key, revision, value)
        self.revision = max(self.revision, revision)
        self._changed(changed)
        return changed

    def sync(self, entries: Mapping[str, tuple[int, bytes]], revision: int) -> bool:
        """The bucket as a whole (after connecting): keys it no longer holds are withdrawn."""
        changed = False
        for key in sorted(set(self.accepted) - set(entries)):
            changed |= self._apply(key, revision, None)
        for key in sorted(set(self.rejected) - set(entries)):
            self.rejected.pop(key, None)
        for key, (rev, value) in sorted(entries.items()):
            if key in self.accepted and self.accepted[key].revision == rev:
                continue
            changed |= self._apply(key, rev, value)
        self.revision = max([revision, *(rev for rev, _ in entries.values())]) if entries else revision
        self._changed(changed)
        return changed

    def _changed(self, changed: bool) -> None:
        self._save()
        if changed and self.on_change is not None:
            self.on_change()

    def _apply(self, key: str, revision: int, value: bytes | None) -> bool:
        if value is None:
            self.rejected.pop(key, None)
            old = self.accepted.pop(key, None)
            if old is None:
                return False
            self._uninstall(key, old)
            self.d.publish_internal("hookd.managed.withdrawn", {"key": key, "revision": revision, "bucket": self.bucket})
            return True
        specs, problems = check(key, value)
        if problems:
            self.rejected[key] = (revision, problems)
            previous = self.accepted.get(key)
            self.d.publish_internal(
                "hookd.managed.rejected",
                {
                    "key": key,
                    "revision": revision,
                    "bucket": self.bucket,
                    "problems": problems,
                    "in_force": previous.revision if previous else None,
                },
            )
            return False
        self.rejected.pop(key, None)
        entry = Accepted(revision, value.decode("utf-8"), specs)
        self._install(key, entry)
        self.d.publish_internal(
            "hookd.managed.applied",
            {"key": key, "revision": revision, "bucket": self.bucket, "hooks": len(specs), "tier": key.partition(".")[0]},
        )
        return True

    # ------------------------------------------------------------- registry

    def _install(self, key: str, entry: Accepted) -> None:
        d = self.d
        scope = TIERS[key.partition(".")[0]]
        old = self.accepted.get(key)
        source = source_of(key, entry.revision)
        hooks = [d.command_hook(spec, scope, "", source) for spec in entry.specs]
        removed, added = d.registry.replace_source(scope, "", source, hooks)
        if old is not None and old.revision != entry.revision:
            gone, _ = d.registry.replace_source(scope, "", source_of(key, old.revision), [])
            removed = [*removed, *gone]
        self.accepted[key] = entry
        d.hooks_removed(removed, reloaded=added)

    def _uninstall(self, key: str, old: Accepted) -> None:
        d = self.d
        scope = TIERS[key.partition(".")[0]]
        removed, _ = d.registry.replace_source(scope, "", source_of(key, old.revision), [])
        d.hooks_removed(removed)

    # ---------------------------------------------------------------- status

    def hook_count(self) -> int:
        return sum(len(a.specs) for a in self.accepted.values())

    def names(self) -> set[str]:
        return {s.name for a in self.accepted.values() for s in a.specs}


def record_path(state_dir: str) -> str:
    return os.path.join(state_dir, "team", "managed.json")
