"""Hook files: reading, validating and swapping in the hooks of the global and project files."""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from hookd_client import messages as m

from .. import changes, userconfig
from ..registry import Hook
from ..watcher import signature

if TYPE_CHECKING:
    from ..daemon import Daemon

CLASH = "duplicate hook name in this scope:"


class HookFiles:
    def __init__(self, daemon: Daemon) -> None:
        self.d = daemon
        self.rejected: dict[str, list[userconfig.Problem]] = {}  # file -> why its latest version was refused
        self._skips_reported: set[str] = set()  # files whose untrusted hooks were already reported skipped

    def _read(self, path: str) -> tuple[bytes | None, list[userconfig.Problem]]:
        watcher = self.d.watcher
        sig = signature(path)  # taken before reading: an edit racing the read shows on the next poll
        try:
            with open(path, "rb") as f:
                data: bytes | None = f.read()
        except (FileNotFoundError, NotADirectoryError):
            data = None
        except OSError as exc:
            watcher.loaded(path, sig, None)
            return None, [userconfig.Problem(path, f"cannot read: {exc.strerror or exc}")]
        watcher.loaded(path, sig, hashlib.sha256(data).hexdigest() if data is not None else None)
        return data, []

    def load_file(self, scope: m.Scope, owner: str, path: str) -> list[userconfig.Problem]:
        """(Re)load one hook file as a whole; an invalid file leaves its previous hooks in force.

        The swap is one registry step: a call sees the old hooks of the file or the new ones.
        """
        d = self.d
        data, problems = self._read(path)
        specs: list[m.HookSpec] = []
        if not problems and data is not None:
            try:
                specs = userconfig.validate(data.decode("utf-8"), path)
            except UnicodeDecodeError as exc:
                problems = [userconfig.Problem(path, f"not UTF-8 text: {exc}")]
            except userconfig.ConfigInvalid as exc:
                problems = exc.problems
            problems = problems or self._duplicates(scope, owner, path, specs)
        if problems:
            self.rejected[path] = problems
            d.publish_internal(
                "hookd.config.rejected",
                {"file": path, "scope": scope, "project": owner or None, "problems": [str(p) for p in problems]},
            )
            return problems
        self.rejected.pop(path, None)
        sha = hashlib.sha256(data).hexdigest() if data is not None else ""
        verdict = d.trust.verdict(scope, path, sha, owner)
        hooks = [d.command_hook(spec, scope, owner, path, verdict) for spec in specs]
        removed, added = d.registry.replace_source(scope, owner, path, hooks)
        d.hooks_removed(removed, reloaded=added)
        summary = changes.diff(removed, added)
        if summary or (removed and removed[0].trusted != verdict.trusted):
            self._skips_reported.discard(path)
        if summary:
            d.publish_internal(
                "hookd.config.reloaded",
                {
                    "file": path,
                    "scope": scope,
                    "project": owner or None,
                    "trusted": verdict.trusted,
                    "hooks": len(added),
                    **summary.as_dict(),
                },
            )
            # A sibling refused for a name clash may load now that this file's names changed.
            for sibling in self._siblings(scope, owner):
                if sibling != path and sibling in self.rejected and _clash(self.rejected[sibling]):
                    self.load_file(scope, owner, sibling)
        return []

    def _siblings(self, scope: m.Scope, owner: str) -> list[str]:
        return userconfig.global_files() if scope == "global" else userconfig.project_files(owner)

    def _duplicates(self, scope: m.Scope, owner: str, path: str, specs: list[m.HookSpec]) -> list[userconfig.Problem]:
        """Hook names must be unique in a scope: a name another file of the scope uses is refused here."""
        siblings = self._siblings(scope, owner)
        taken = {h.name: h.source for h in self.d.registry.layer(scope, owner) if h.source != path and h.source in siblings}
        return [
            userconfig.Problem(path, f"{CLASH} {s.name!r}: {taken[s.name]} already defines it", s.name, "name")
            for s in specs
            if s.name in taken
        ]

    def file_changed(self, path: str, tag: tuple[m.Scope, str]) -> None:
        scope, owner = tag
        self.load_file(scope, owner, path)

    def untrusted_skipped(self, point: str, hooks: list[Hook]) -> None:
        by_file: dict[str, list[Hook]] = {}
        for hook in hooks:
            if hook.source not in self._skips_reported:
                by_file.setdefault(hook.source, []).append(hook)
        for source, skipped in by_file.items():
            self._skips_reported.add(source)
            self.d.publish_internal(
                "hookd.hooks.untrusted_skipped",
                {
                    "file": source,
                    "project": skipped[0].owner,
                    "point": point,
                    "hooks": [h.name for h in skipped],
                    "reason": skipped[0].trust,
                },
            )

    def load_global(self) -> list[userconfig.Problem]:
        problems: list[userconfig.Problem] = []
        for path in userconfig.global_files():
            problems += self.load_file("global", "", path)
        self.d.plugins.load("global", "")
        return problems

    def load_project(self, project: str) -> list[userconfig.Problem]:
        d = self.d
        d.registry.mark_project_loaded(project)
        problems: list[userconfig.Problem] = []
        own = {os.path.realpath(p) for p in userconfig.global_files()}
        for path in userconfig.project_files(project):
            if os.path.realpath(path) in own:
                continue  # the home directory as a project: ~/.codingcode/hooks.yaml is the global file
            d.watcher.watch(path, ("project", project))
            problems += self.load_file("project", project, path)
        d.plugins.load("project", project)
        return problems

    def reload_all(self) -> list[userconfig.Problem]:
        """SIGHUP: every global file and every loaded project's files, read again."""
        problems = self.load_global() if self.d.settings.load_user_config else []
        for project in sorted(self.d.registry.loaded_projects):
            problems += self.load_project(project)
        return problems

    def reload_files(self, files: list[str]) -> None:
        loaded = self.d.registry.loaded_projects
        for path in files:
            scope, owner = userconfig.scope_of(path)
            if scope == "project" and owner in loaded:
                self.load_file("project", owner, path)


def _clash(problems: list[userconfig.Problem]) -> bool:
    return all(p.message.startswith(CLASH) for p in problems)
