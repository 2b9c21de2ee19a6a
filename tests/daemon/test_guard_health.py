"""Guards that hold, in process: a configured decision hook that does not run is named in the outcome
(untrusted, or in a global file invalid from the start), and internal events load no project. A file
invalid across a restart and hostile files under the watcher: tests/integration/test_guard_health.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..integration.test_guard_health import GUARD
from ..integration.test_user_config import POINT, write_project
from .conftest import InProcess


def test_an_untrusted_guard_is_named_in_not_run(in_process: Any, home: Path) -> None:
    project = home / "proj"  # HOOKD_TRUST_ALL is unset: the project's file is not trusted
    path = write_project(project, GUARD)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        out = await c.decide(POINT, {}, project=str(project))
        assert out.decision is None
        (skipped,) = out.not_run
        assert (skipped.hook.name, skipped.hook.source, skipped.reason) == ("guard", str(path), "untrusted")
        assert f"hookd trust {project}" in skipped.message
        assert await c.trust(str(project))
        out = await c.decide(POINT, {}, project=str(project))
        assert out.decision == "deny" and out.not_run == []

    in_process(scenario)


def test_a_global_file_invalid_at_start_with_no_accepted_version_is_named_in_every_decide(in_process: Any, home: Path) -> None:
    path = home / "config" / "hookd" / "hooks.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("hooks:\n  - name: guard\n     point: x\n")

    async def scenario(d: InProcess) -> Any:
        assert d.daemon.files.load_global_now()  # refused, as `hookd serve` refuses it at start
        c = d.client()
        return await c.decide(POINT, {}), await c.list_hooks()

    out, listing = in_process(scenario)
    (missing,) = out.not_run
    assert (missing.hook.source, missing.reason) == (str(path), "invalid_file")
    assert "no earlier version" in missing.message
    (rejected,) = listing.rejected
    assert rejected.file == str(path) and "its hooks are missing" in rejected.problems[-1]


def test_internal_events_do_not_load_projects(in_process: Any, home: Path, trust_all: None) -> None:
    project = home / "proj"
    write_project(project, GUARD)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("s1", [], project=str(project))  # publishes hookd.session.attached for the project
        assert [h.name for h in (await c.list_hooks()).hooks] == []  # nothing loaded it
        assert (await c.decide(POINT, {}, session="s1")).reason == "guarded"  # a call on it does
        assert [h.name for h in (await c.list_hooks()).hooks] == ["guard"]

    in_process(scenario)
