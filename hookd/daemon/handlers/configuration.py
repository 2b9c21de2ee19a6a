"""Configuration and trust requests: reload, enable/disable, list, explain, trust, untrust."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import structlog
from hookd_client import messages as m

from hookd.config import toggles, trust, userconfig
from hookd.core.registry import SCOPE_ORDER, Hook
from hookd.daemon.handlers.common import Handler, Peer, Publishes, RequestError, Result, path_arg, point_arg, project_arg

if TYPE_CHECKING:
    from hookd.config.trust import TrustStore
    from hookd.core.registry import Registry
    from hookd.daemon.handlers.files import HookFiles
    from hookd.daemon.sessions import Ownership
    from hookd.plugins.manager import PluginManager
    from hookd.runners.persistent import PersistentRunner
    from hookd.team import Team

log = structlog.get_logger("hookd.daemon")


class ConfigurationParts(Publishes, Protocol):
    """What reload, toggles, listing, explain and trust use."""

    registry: Registry
    files: HookFiles
    persistent: PersistentRunner
    plugins: PluginManager
    team: Team
    trust: TrustStore
    toggles_path: str
    ownership: Ownership


class Configuration:
    def __init__(self, daemon: ConfigurationParts) -> None:
        self.d = daemon

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {
            m.ReloadUserHooks: self.reload_user_hooks,
            m.EnableHook: self.enable_hook,
            m.DisableHook: self.disable_hook,
            m.Explain: self.explain,
            m.ListHooks: self.list_hooks,
            m.Trust: self.trust_files,
            m.Untrust: self.untrust_files,
        }

    def reload_user_hooks(self, conn: Peer, req: m.ReloadUserHooks) -> Result:
        return self._reload(req.id, project_arg(req.project))

    async def _reload(self, rid: int, project: str | None) -> m.Reply:
        d = self.d
        problems = await (d.files.load_project(project) if project is not None else d.files.load_global())
        if problems:
            raise RequestError(
                m.ErrorCode.CONFIG_INVALID,
                "some files were rejected and keep their previous hooks: " + "; ".join(str(p) for p in problems),
            )
        plugins = d.plugins.scopes.get(("project", project) if project else ("global", ""))
        if plugins is not None and plugins.task is not None and not plugins.task.done():
            # A reload answers once the scope's plugin hosts are loaded (installs included).
            await asyncio.shield(plugins.task)
        return m.Done(rid, len(d.registry.layer("project", project) if project else d.registry.layer("global", "")))

    def _toggle(self, req: m.EnableHook | m.DisableHook, enabled: bool) -> Result:
        project = project_arg(req.project)
        return self._when_settled(project, lambda: self._toggled(req, project, enabled))

    def _toggled(self, req: m.EnableHook | m.DisableHook, project: str | None, enabled: bool) -> m.Reply:
        d = self.d
        count = d.registry.set_toggle(project, req.name, enabled)
        if not count and req.name in d.team.managed_names():
            # Toggles never apply to the managed scopes; say so rather than "no such hook".
            raise RequestError(m.ErrorCode.CONFLICT, f"hook {req.name!r} is one of your organisation's guards: it cannot be disabled")
        if not count:
            where = f"project {project}" if project else "the global hooks"
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no hook named {req.name!r} in {where}")
        try:
            toggles.save(d.toggles_path, d.registry.toggles)
        except OSError as exc:
            log.error("could not record the toggle; it holds until the daemon stops", error=str(exc))
        d.publish_internal("hookd.hook.toggled", {"name": req.name, "project": project, "enabled": enabled, "hooks": count})
        return m.Done(req.id, count)

    def enable_hook(self, conn: Peer, req: m.EnableHook) -> Result:
        return self._toggle(req, True)

    def disable_hook(self, conn: Peer, req: m.DisableHook) -> Result:
        return self._toggle(req, False)

    def explain(self, conn: Peer, req: m.Explain) -> Result:
        d = self.d
        point_arg(req.point)
        project = d.registry.project_for(req.session, project_arg(req.project))

        def chain() -> m.Reply:
            decisions, observers = d.registry.explain(req.point, req.session, project)
            return m.Chain(req.id, req.point, decisions, observers)

        return self._when_settled(project, chain)

    def _when_settled(self, project: str | None, reply: Callable[[], m.Reply]) -> Result:
        """``reply()`` now, or once the project's files and the first plugin loads of its scopes are
        loaded (bounded), so a listing made right after a project is first seen shows its hooks."""
        if self.d.files.settled(project):
            return reply()
        return self._reply_after(project, reply)

    async def _reply_after(self, project: str | None, reply: Callable[[], m.Reply]) -> m.Reply:
        await self.d.files.settle(project)
        return reply()

    # ---------------------------------------------------------------- listing

    def _info(self, hook: Hook, project: str | None) -> m.HookInfo:
        registry = self.d.registry
        context = hook.owner if hook.scope == "project" else project
        toggles_ = registry.toggles
        toggled = (context, hook.name) in toggles_ or (hook.scope == "global" and (None, hook.name) in toggles_)
        spec = hook.spec
        verdict = registry.verdict(hook)
        owner_gone, expires_in = False, None
        if hook.scope == "session":
            session = registry.sessions.get(hook.owner)
            if session is not None and session.owner is None:  # its owner's connection closed: it waits out the grace
                owner_gone, expires_in = True, self.d.ownership.expires_in(hook.owner)
        return m.HookInfo(
            name=hook.name,
            point=hook.point,
            type=hook.type,
            scope=hook.scope,
            owner=hook.owner,
            source=hook.source,
            priority=hook.priority,
            enabled=registry.is_enabled(hook, context),
            default_enabled=hook.enabled,
            toggled=toggled,
            trusted=verdict.trusted,
            trust=verdict.reason if hook.trust_key or _from_file(hook) else "",
            description=spec.description if spec is not None else "",
            match=dict(spec.match) if spec is not None else {},
            worker=self.d.persistent.state_of(hook) or "",
            shadow=hook.type == "decision" and hook.shadow,
            owner_gone=owner_gone,
            expires_in=None if expires_in is None else round(expires_in, 1),
            builtin=list(spec.builtin) if spec is not None else [],
            options=dict(spec.options) if spec is not None else {},
        )

    def list_hooks(self, conn: Peer, req: m.ListHooks) -> Result:
        project = project_arg(req.project)
        return self._when_settled(project, lambda: self._hook_list(req, project))

    def _hook_list(self, req: m.ListHooks, project: str | None) -> m.Reply:
        registry = self.d.registry
        rejected_files = self.d.files.rejected
        if project is not None:
            hooks = [*registry.layer("managed", ""), *registry.layer("project", project), *registry.layer("global", "")]
            hooks += registry.layer("managed_after", "")
            files = set(userconfig.project_files(project)) | set(userconfig.global_files())
        else:
            hooks = list(registry.all_hooks())
            files = set(rejected_files)
        hooks.sort(key=lambda h: (SCOPE_ORDER[h.scope], h.owner, h.point, -h.priority, h.seq))
        rejected = [m.FileProblem(f, self.d.files.problems_of(f)) for f in sorted(rejected_files) if f in files]
        return m.HookList(req.id, [self._info(h, project) for h in hooks], rejected)

    # ------------------------------------------------------------------ trust

    def trust_files(self, conn: Peer, req: m.Trust) -> Result:
        d = self.d
        path = path_arg(req.path, "trust")
        try:
            files = trust.targets(path)
        except trust.NothingToTrust as exc:
            raise RequestError(m.ErrorCode.NOT_FOUND, str(exc)) from None
        for f in files:
            if userconfig.scope_of(f)[0] == "global":
                raise RequestError(m.ErrorCode.BAD_REQUEST, f"{f} is a global hook file: those are always trusted")
        try:
            done = d.trust.trust(files)
        except OSError as exc:
            raise RequestError(m.ErrorCode.INTERNAL, f"could not record trust: {exc}") from None
        d.files.reload_files(files)
        d.plugins.trust_changed()
        d.publish_internal("hookd.trust.granted", {"files": {f: sha[:12] for f, sha in done.items()}})
        return m.TrustResult(req.id, [m.TrustedFile(f, sha) for f, sha in done.items()])

    def untrust_files(self, conn: Peer, req: m.Untrust) -> Result:
        d = self.d
        path = path_arg(req.path, "untrust")
        try:
            gone = d.trust.untrust(path)
        except OSError as exc:
            raise RequestError(m.ErrorCode.INTERNAL, f"could not record trust: {exc}") from None
        if not gone:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"nothing is trusted at {path}")
        d.files.reload_files(gone)
        d.plugins.trust_changed()
        d.publish_internal("hookd.trust.revoked", {"files": gone})
        return m.TrustResult(req.id, [m.TrustedFile(f) for f in gone])


def _from_file(hook: Hook) -> bool:
    return hook.spec is not None and not hook.source.startswith(("client:", "session:"))
