"""Which hooks exist, and in what order a call runs them.

Plain, synchronous data handling: the registry never runs a hook. A hook lives
in a *layer* (the global layer, one per project, one per session); a call on a
point gathers the layers that apply (session > project > global) and orders
each layer's hooks by priority (higher first), then registration order.
Mutations swap whole tuples and drop the chain cache, so a call that already
took its chain keeps a consistent snapshot.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from hookd_client.messages import ChainEntry, HookRef, NotRunReason, Scope

from hookd.core import points
from hookd.core.hooks import ALWAYS, CallContext, Group, Hook, NotRunEntry, Plan, Runner, Session, ShadowSkip, TrustGate, Verdict

__all__ = ["CallContext", "Group", "Hook", "NotRunEntry", "Plan", "Registry", "Runner", "Session", "TrustGate"]

# The organisation's guards (hookd/team/managed.py) wrap the user's scopes: "managed" runs first,
# "managed_after" last.
SCOPE_ORDER: dict[Scope, int] = {"managed": 0, "session": 1, "project": 2, "global": 3, "managed_after": 4}
_CACHED_KEY_CHARS = 1024  # the most characters a cached plan's key holds (point, session id and project)


def _order(hook: Hook) -> tuple[int, int, int, int]:
    # Ties within a priority go by registration order: first by when the hook's file first
    # registered (so a reloaded file keeps its place among the files of its scope), then by
    # position. A session's hooks have no rank: they run in the order they were attached.
    return (SCOPE_ORDER[hook.scope], -hook.priority, hook.rank, hook.seq)


def _gathered(hooks: list[Hook]) -> list[Hook]:
    """``hooks`` with each group's members brought together at the place of its first member.

    A group is one step of the chain: it runs where its best-placed member would (scope order,
    then priority, then file order), and its members keep their own order inside it."""
    if not any(h.group is not None for h in hooks):
        return hooks
    members: dict[object, list[Hook]] = {}
    for hook in hooks:
        if hook.group is not None:
            members.setdefault(hook.group, []).append(hook)
    out: list[Hook] = []
    for hook in hooks:
        if hook.group is None:
            out.append(hook)
        elif hook is members[hook.group][0]:
            out.extend(members[hook.group])
    return out


class Registry:
    """All hooks in force, by layer, plus enable/disable toggles.

    Planning reads and never loads: a project's files are loaded by the daemon,
    explicitly, before a call on it is planned (see hookd/daemon/handlers/files.py).
    """

    def __init__(self, trust: TrustGate | None = None, notify: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self._layers: dict[tuple[Scope, str], tuple[Hook, ...]] = {}
        self._handles: dict[str, Hook] = {}
        self._toggles: dict[tuple[str | None, str], bool] = {}
        self._sessions: dict[str, Session] = {}
        self._loaded_projects: set[str] = set()
        self._seq = itertools.count(1)
        # Handles are unique across daemon lifetimes: a handle kept by a client from an earlier
        # daemon names no hook of this one, so it can never remove another client's hook.
        self._handle_prefix = f"h{secrets.token_hex(4)}."
        self._ranks: dict[str, int] = {}
        self._next_rank = itertools.count(1)
        # Files none of whose hooks are in force though they should be (rejected with no
        # earlier accepted version): named in every decide of their layer.
        self._missing: dict[tuple[Scope, str], dict[str, tuple[NotRunReason, str]]] = {}
        self._cache: dict[tuple[str, str | None, str | None], Plan] = {}
        self.generation = 0
        self.trust = trust
        self._trust_seen = trust.generation if trust is not None else 0
        # Where the untrusted hooks a call would have run are told (hookd.hooks.untrusted_skipped),
        # once per file and version while the daemon runs (a plan is built once while it stays cached).
        self.notify = notify
        self._skips_told: set[tuple[str, str]] = set()

    def _tell_untrusted(self, point: str, hooks: list[Hook], notify: Callable[[str, dict[str, Any]], None]) -> None:
        by_file: dict[str, list[Hook]] = {}
        for hook in hooks:
            if (hook.source, hook.sha) not in self._skips_told:
                by_file.setdefault(hook.source, []).append(hook)
        if len(self._skips_told) > 10_000:
            self._skips_told.clear()
        for source, skipped in by_file.items():
            self._skips_told.add((source, skipped[0].sha))
            payload = {
                "file": source,
                "project": skipped[0].owner,
                "point": point,
                "hooks": [h.name for h in skipped],
                "reason": self.verdict(skipped[0]).reason,
            }
            notify("hookd.hooks.untrusted_skipped", payload)

    # ------------------------------------------------------------------ queries

    @property
    def sessions(self) -> dict[str, Session]:
        return self._sessions

    def hook_count(self) -> int:
        return sum(len(hooks) for hooks in self._layers.values())

    def all_hooks(self) -> Iterable[Hook]:
        for hooks in self._layers.values():
            yield from hooks

    def by_handle(self, handle: str) -> Hook | None:
        return self._handles.get(handle)

    def project_for(self, session: str | None, project: str | None) -> str | None:
        if project is None and session is not None:
            known = self._sessions.get(session)
            if known is not None:
                return known.project
        return project

    def verdict(self, hook: Hook) -> Verdict:
        """Whether ``hook`` may run, by the trust record as it is now."""
        if not hook.trust_key or self.trust is None:
            return ALWAYS
        return self.trust.file_verdict(hook.trust_key, hook.sha, hook.source, hook.owner)

    def is_enabled(self, hook: Hook, project: str | None) -> bool:
        toggles = self._toggles
        if not toggles:
            return hook.enabled
        if hook.scope == "global":
            if project is not None and (project, hook.name) in toggles:
                return toggles[(project, hook.name)]
            return toggles.get((None, hook.name), hook.enabled)
        if hook.scope == "project":
            return toggles.get((hook.owner, hook.name), hook.enabled)
        return hook.enabled

    def _keys(self, session: str | None, project: str | None) -> list[tuple[Scope, str]]:
        layers: list[tuple[Scope, str]] = [("managed", "")]
        if session is not None:
            layers.append(("session", session))
        if project is not None:
            layers.append(("project", project))
        layers.append(("global", ""))
        layers.append(("managed_after", ""))
        return layers

    def ordered(self, point: str, session: str | None, project: str | None) -> list[Hook]:
        """Every hook that applies to a call (enabled or not), in run order."""
        project = self.project_for(session, project)
        hooks: list[Hook] = []
        for key in self._keys(session, project):
            for hook in self._layers.get(key, ()):
                if hook.point == point or (hook.point == points.CATCH_ALL and hook.type == "observer"):
                    hooks.append(hook)
        hooks.sort(key=_order)
        return _gathered(hooks)

    def plan(self, point: str, session: str | None, project: str | None) -> Plan:
        """The enabled hooks of a call, split by kind. Cached until the registry or the trust record changes."""
        trust = self.trust
        if trust is not None and trust.generation != self._trust_seen:
            self._trust_seen = trust.generation
            self._cache.clear()
        key = (point, session, project)
        plan = self._cache.get(key)
        if plan is not None:
            return plan
        resolved = self.project_for(session, project)
        decisions: list[Hook] = []
        observers: list[Hook] = []
        skipped: list[Hook] = []
        untrusted: list[Hook] = []
        not_run: list[NotRunEntry] = []
        shadows: list[Hook] = []
        shadow_skips: list[ShadowSkip] = []
        for hook in self.ordered(point, session, resolved):
            if not self.is_enabled(hook, resolved):
                skipped.append(hook)
                continue
            verdict = self.verdict(hook)
            shadow = hook.type == "decision" and hook.shadow
            if not verdict.trusted:
                skipped.append(hook)
                untrusted.append(hook)
                if shadow:  # never a guard: named in its results, not among the guards that did not run
                    shadow_skips.append((hook, "untrusted", verdict.reason))
                elif hook.type == "decision":
                    not_run.append((hook, "untrusted", verdict.reason))
            elif shadow:
                shadows.append(hook)
            elif hook.type == "decision":
                decisions.append(hook)
            else:
                observers.append(hook)
        if self._missing:
            for layer in self._keys(session, resolved):
                for source, (reason, message) in self._missing.get(layer, {}).items():
                    not_run.append((HookRef("*", layer[0], source), reason, message))
        plan = Plan(tuple(decisions), tuple(observers), tuple(skipped), tuple(not_run), tuple(shadows), tuple(shadow_skips))
        if untrusted and self.notify is not None:
            self._tell_untrusted(point, untrusted, self.notify)
        # Kept under its key's own strings: a call whose point, session id or project is too long to
        # be worth keeping (a client's bug, or hostile) gets its plan made afresh, so the cache stays small.
        if len(point) + len(session or "") + len(project or "") <= _CACHED_KEY_CHARS:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[key] = plan
        return plan

    def explain(self, point: str, session: str | None, project: str | None) -> tuple[list[ChainEntry], list[ChainEntry]]:
        resolved = self.project_for(session, project)
        decisions: list[ChainEntry] = []
        observers: list[ChainEntry] = []
        for hook in self.ordered(point, session, resolved):
            entry = hook.entry(self.is_enabled(hook, resolved), self.verdict(hook).trusted)
            (decisions if hook.type == "decision" else observers).append(entry)
        return decisions, observers

    def missing(self, scope: Scope, owner: str) -> dict[str, tuple[NotRunReason, str]]:
        return self._missing.get((scope, owner), {})

    @property
    def has_missing(self) -> bool:
        """Whether some file's hooks should be in force and are not (their points are then unknown)."""
        return bool(self._missing)

    # ---------------------------------------------------------------- mutations

    def _changed(self) -> None:
        self.generation += 1
        self._cache.clear()

    def mark_project_loaded(self, project: str) -> None:
        self._loaded_projects.add(project)

    def is_loaded(self, project: str) -> bool:
        return project in self._loaded_projects

    @property
    def loaded_projects(self) -> frozenset[str]:
        return frozenset(self._loaded_projects)

    def set_missing(self, scope: Scope, owner: str, source: str, why: tuple[NotRunReason, str] | None) -> None:
        """Name ``source`` in every decide of its layer as hooks that should be there and are not (None: no more)."""
        layer = self._missing.get((scope, owner))
        if why is None:
            if layer is None or source not in layer:
                return
            del layer[source]
            if not layer:
                del self._missing[(scope, owner)]
        else:
            if layer is not None and layer.get(source) == why:
                return
            self._missing.setdefault((scope, owner), {})[source] = why
        self._changed()

    def order_files(self, sources: list[str]) -> None:
        """Rank these files in this order (a hooks.yaml, then its drop-ins by name), whenever each first loaded.

        The files reuse the ranks they already hold, redistributed; a file never seen gets a new one.
        """
        held = sorted(self._ranks[s] for s in sources if s in self._ranks)
        ranks = held + [next(self._next_rank) for s in sources if s not in self._ranks]
        wanted = dict(zip(sources, ranks, strict=True))
        if all(self._ranks.get(s) == r for s, r in wanted.items()):
            return
        self._ranks.update(wanted)
        for layer in self._layers.values():
            for hook in layer:
                if hook.source in wanted:
                    hook.rank = wanted[hook.source]
        self._changed()

    def _rank(self, hook: Hook) -> int:
        if hook.scope == "session":
            return 0  # a session's hooks run in the order they were attached
        rank = self._ranks.get(hook.source)
        if rank is None:
            rank = self._ranks[hook.source] = next(self._next_rank)
        return rank

    def reserve_ranks(self, sources: Iterable[str]) -> None:
        """Give these sources their places now, in this order, whenever their hooks come (a plugin
        directory that installs for a minute still runs before the one after it)."""
        for source in sources:
            if source not in self._ranks:
                self._ranks[source] = next(self._next_rank)

    def _forget_ranks(self, hooks: Iterable[Hook]) -> None:
        """A client's registrations keep no rank once its last hook is gone (files keep theirs: a
        reloaded file must keep its place)."""
        sources = {h.source for h in hooks if h.scope != "session" and h.source.startswith("client:")}
        if sources:
            sources -= {h.source for h in self.all_hooks()}
            for source in sources:
                self._ranks.pop(source, None)

    def _enter(self, hook: Hook) -> None:
        hook.seq = next(self._seq)
        hook.rank = self._rank(hook)
        if not hook.handle:
            hook.handle = f"{self._handle_prefix}{hook.seq}"
        self._handles[hook.handle] = hook

    def add(self, hooks: Iterable[Hook]) -> list[Hook]:
        """Add hooks to their layers, in the given order; returns them with handles set."""
        added = list(hooks)
        by_layer: dict[tuple[Scope, str], list[Hook]] = {}
        for hook in added:
            self._enter(hook)
            by_layer.setdefault((hook.scope, hook.owner), []).append(hook)
        for key, new in by_layer.items():
            self._layers[key] = self._layers.get(key, ()) + tuple(new)
        self._changed()
        return added

    def remove(self, hooks: Iterable[Hook]) -> int:
        hooks = list(hooks)
        gone = {id(h) for h in hooks}
        if not gone:
            return 0
        removed = 0
        for key, layer in list(self._layers.items()):
            kept = tuple(h for h in layer if id(h) not in gone)
            if len(kept) != len(layer):
                removed += len(layer) - len(kept)
                for h in layer:
                    if id(h) in gone:
                        self._handles.pop(h.handle, None)
                if kept:
                    self._layers[key] = kept
                else:
                    del self._layers[key]
        self._forget_ranks(hooks)
        self._changed()
        return removed

    def replace_source(self, scope: Scope, owner: str, source: str, hooks: Iterable[Hook]) -> tuple[list[Hook], list[Hook]]:
        """Swap every hook that came from ``source`` for ``hooks`` in one step.

        Returns (removed, added). A call planned before the swap keeps the old
        hooks; one planned after sees only the new ones.
        """
        layer = self._layers.get((scope, owner), ())
        old = [h for h in layer if h.source == source]
        new = list(hooks)
        for h in old:
            self._handles.pop(h.handle, None)
        kept = tuple(h for h in layer if h.source != source)
        for hook in new:
            self._enter(hook)
        merged = kept + tuple(new)
        if merged:
            self._layers[(scope, owner)] = merged
        else:
            self._layers.pop((scope, owner), None)
        self._changed()
        return old, new

    def layer(self, scope: Scope, owner: str) -> tuple[Hook, ...]:
        return self._layers.get((scope, owner), ())

    def drop_layer(self, scope: Scope, owner: str) -> list[Hook]:
        hooks = list(self._layers.pop((scope, owner), ()))
        for h in hooks:
            self._handles.pop(h.handle, None)
        self._forget_ranks(hooks)
        self._changed()
        return hooks

    def attach_session(self, session_id: str, project: str | None, owner: object | None) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            session = self._sessions[session_id] = Session(session_id, project, owner)
        else:
            if project is not None:
                session.project = project
            if owner is not None:
                session.owner = owner
        self._changed()
        return session

    def dispose_session(self, session_id: str) -> tuple[Session | None, list[Hook]]:
        session = self._sessions.pop(session_id, None)
        hooks = self.drop_layer("session", session_id)
        return session, hooks

    def dispose_project(self, project: str) -> list[Hook]:
        self._loaded_projects.discard(project)
        self._missing.pop(("project", project), None)
        return self.drop_layer("project", project)

    def set_toggle(self, project: str | None, name: str, enabled: bool) -> int:
        """Enable or disable hooks named ``name`` for ``project`` (None: global). Returns matches.

        The project's files must have been loaded first (the daemon does that)."""
        matches = [h for h in self.all_hooks() if h.name == name and (h.scope == "global" or (h.scope == "project" and h.owner == project))]
        if project is None:
            matches = [h for h in matches if h.scope == "global"]
        if matches:
            # Toggling back to what the hooks would be without this override drops it, so that
            # later edits of `enabled` in the file apply again.
            key = (project, name)
            previous = self._toggles.pop(key, None)
            if any(self.is_enabled(h, project if h.scope == "global" else h.owner) != enabled for h in matches):
                self._toggles[key] = enabled
            if previous != self._toggles.get(key):
                self._changed()
        return len(matches)

    def load_toggles(self, toggles: dict[tuple[str | None, str], bool]) -> None:
        """Toggles recorded by an earlier run; they apply to hooks by name, loaded now or later."""
        self._toggles.update(toggles)
        self._changed()

    @property
    def toggles(self) -> dict[tuple[str | None, str], bool]:
        return self._toggles
