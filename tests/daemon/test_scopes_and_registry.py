"""What users and agents do with the daemon's registry, in process: the order of scopes, toggles,
unregistering and disposing, the registry's errors, and project files loading on first use and on
reload. The socket, the CLI, signals and the daemon's log: tests/integration/test_daemon.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hookd_client import HookdError

from ..integration.test_daemon import decider, spec
from .conftest import InProcess


def test_order_is_session_then_project_then_global_then_priority(in_process: Any, home: Path, trust_all: None) -> None:
    tmp_path = home
    project = tmp_path / "repo"
    (project / ".hookd").mkdir(parents=True)
    note = lambda n: decider(tmp_path, n, {"injection": n})  # noqa: E731
    (project / ".hookd" / "hooks.yaml").write_text(
        f"hooks:\n  - {json.dumps(spec('proj-low', note('proj-low'), 1))}\n  - {json.dumps(spec('proj-high', note('proj-high'), 9))}\n"
    )
    (project / ".codingcode").mkdir()
    (project / ".codingcode" / "hooks.yaml").write_text(f"hooks:\n  - {json.dumps(spec('cc', note('cc'), 5))}\n")

    async def scenario(d: InProcess) -> None:
        d.global_hooks(f"hooks:\n  - {json.dumps(spec('glob', note('glob'), 1000))}\n")
        c = d.client()
        await c.attach_session("s1", [spec("sess", note("sess"), -1)], project=str(project))
        out = await c.decide("tool.approval.pre", {}, session="s1")
        assert out.injection.split("\n\n") == ["sess", "proj-high", "cc", "proj-low", "glob"]
        chain = await c.explain("tool.approval.pre", session="s1")
        assert [(e.scope, e.name) for e in chain.decision_hooks] == [
            ("session", "sess"),
            ("project", "proj-high"),
            ("project", "cc"),
            ("project", "proj-low"),
            ("global", "glob"),
        ]
        # the same project without the session: no session hooks
        out = await c.decide("tool.approval.pre", {}, project=str(project))
        assert out.injection.split("\n\n") == ["proj-high", "cc", "proj-low", "glob"]

    in_process(scenario)


def test_disable_enable_unregister_dispose(in_process: Any, home: Path) -> None:
    deny = decider(home, "deny", {"decision": "deny", "reason": "r"})

    async def scenario(d: InProcess) -> None:
        d.global_hooks("hooks: []\n")
        c = d.client()
        handle = await c.register(spec("g", deny))
        assert (await c.decide("tool.approval.pre")).decision == "deny"
        assert await c.disable_hook("g") == 1
        assert (await c.decide("tool.approval.pre")).decision is None
        assert [e.enabled for e in (await c.explain("tool.approval.pre")).decision_hooks] == [False]
        assert await c.enable_hook("g") == 1
        assert (await c.decide("tool.approval.pre")).decision == "deny"
        with pytest.raises(HookdError) as info:
            await c.disable_hook("nope")
        assert info.value.code == "not_found" and "nope" in info.value.message
        assert await c.unregister(handle) == 1
        assert (await c.decide("tool.approval.pre")).decision is None

        await c.attach_session("s9", [spec("s", deny)])
        assert (await c.decide("tool.approval.pre", session="s9")).decision == "deny"
        assert await c.dispose_session("s9") == 1
        assert (await c.decide("tool.approval.pre", session="s9")).decision is None
        with pytest.raises(HookdError) as info:
            await c.dispose_session("s9")
        assert info.value.code == "not_found"

    in_process(scenario)


def test_registry_errors_are_clear(in_process: Any) -> None:
    async def scenario(d: InProcess) -> None:
        c = d.client()
        with pytest.raises(HookdError) as info:
            await c.decide("tool.approvl.pre")
        assert info.value.code == "unknown_point" and "tool.approval.pre" in info.value.message
        with pytest.raises(HookdError) as info:
            await c.decide("llm.request.before")
        assert info.value.code == "wrong_kind"
        with pytest.raises(HookdError) as info:
            await c.attach_session("s", [spec("x", "/bin/true", point="agent.turn.end")])
        assert info.value.code == "wrong_kind" and "'x'" in info.value.message
        with pytest.raises(msgspec.ValidationError):
            await c.attach_session("s", [{"name": "x", "point": "tool.approval.pre", "type": "decison", "command": "true"}])
        assert (await c.status()).sessions == 0

    in_process(scenario)


def test_project_files_load_on_first_use_and_reload(in_process: Any, home: Path, trust_all: None) -> None:
    tmp_path = home
    project = tmp_path / "repo"
    (project / ".hookd").mkdir(parents=True)
    hooks = project / ".hookd" / "hooks.yaml"
    hooks.write_text(f"hooks:\n  - {json.dumps(spec('a', decider(tmp_path, 'a', {'decision': 'ask'})))}\n")

    async def scenario(d: InProcess) -> None:
        c = d.client()
        assert (await c.decide("tool.approval.pre", project=str(project))).decision == "ask"
        hooks.write_text(f"hooks:\n  - {json.dumps(spec('b', decider(tmp_path, 'b', {'decision': 'allow'})))}\n")
        assert (await c.decide("tool.approval.pre", project=str(project))).decision == "ask"  # not reloaded yet
        assert await c.reload_user_hooks(str(project)) == 1
        assert (await c.decide("tool.approval.pre", project=str(project))).decision == "allow"
        # a broken edit is reported and keeps the previous hooks
        hooks.write_text("hooks:\n  - name: [unclosed\n")
        with pytest.raises(HookdError) as info:
            await c.reload_user_hooks(str(project))
        assert info.value.code == "config_invalid" and str(hooks) in info.value.message
        assert (await c.decide("tool.approval.pre", project=str(project))).decision == "allow"
        assert await c.dispose_project(str(project)) == 1

    in_process(scenario)
