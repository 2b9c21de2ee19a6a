"""A hook spec made into a hook of the registry, with the runner its mode takes (a built-in hook's
packs, run in the daemon; a spawned command; a warm worker); and the warm workers of hooks that
went away, stopped."""

from __future__ import annotations

from hookd_client import messages as m

from hookd.core.hooks import Runner
from hookd.core.matcher import compile_match
from hookd.core.registry import Hook, Registry
from hookd.core.settings import Settings
from hookd.runners.command import CommandRunner
from hookd.runners.persistent import PersistentRunner


class HookMaker:
    def __init__(self, settings: Settings, registry: Registry, commands: CommandRunner, persistent: PersistentRunner) -> None:
        self.settings = settings
        self.registry = registry
        self.commands = commands
        self.persistent = persistent

    def command_hook(self, spec: m.HookSpec, scope: m.Scope, owner: str, source: str, trust_key: str = "", sha: str = "") -> Hook:
        """The hook ``spec`` makes. A built-in hook's options are read here, once: an invalid one
        raises hookd.guards.model.OptionsError naming it (a file's were checked when it was read)."""
        runner: Runner
        if spec.builtin:
            # Imported here: the packs and their shell parser load only in a daemon that has a built-in hook.
            from hookd.runners.builtin import BuiltinRunner

            runner = BuiltinRunner(spec.builtin, spec.options)
        else:
            runner = self.persistent if spec.mode == "persistent" else self.commands
        return Hook(
            name=spec.name,
            point=spec.point,
            type=spec.type,
            scope=scope,
            owner=owner,
            source=source,
            runner=runner,
            priority=spec.priority,
            enabled=spec.enabled,
            timeout=spec.timeout or self.settings.hook_timeout,
            on_error=spec.on_error,
            spec=spec,
            trust_key=trust_key,
            sha=sha,
            matcher=compile_match(spec.match),
        )

    def hooks_removed(self, removed: list[Hook], reloaded: list[Hook] | None = None) -> None:
        """Stop the warm workers of removed (or changed) hooks; a reload gives failed ones a fresh start."""
        if self.persistent.owns_any(removed) or (reloaded and self.persistent.owns_any(reloaded)):
            self.persistent.prune(self.registry.all_hooks(), reset=reloaded or ())
