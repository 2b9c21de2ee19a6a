"""A project has one identity, and trust is keyed on a project's own files: in process, with real
symlinks and real hook processes (trust through the client's request, as `hookd trust` sends it
to a running daemon). A relative project path on the raw wire: tests/integration/test_project_identity.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hookd_client import HookdError

from ..integration.test_user_config import POINT, deny_hook, hooks_file, write_project
from .conftest import InProcess


async def reason(d: InProcess, project: Path) -> str | None:
    return (await d.client().decide(POINT, {"toolName": "bash"}, project=str(project))).reason


def test_untrust_through_a_symlinked_project_path_stops_its_hooks(in_process: Any, home: Path) -> None:
    (home / "real" / "proj").mkdir(parents=True)
    (home / "link").symlink_to(home / "real")
    project = home / "link" / "proj"
    write_project(project, hooks_file(deny_hook("guard", "v1")))

    async def scenario(d: InProcess) -> None:
        c = d.client()
        assert await c.trust(str(project))
        assert await reason(d, project) == "v1"
        assert await c.untrust(str(project))
        assert await reason(d, project) is None  # the guard does not run any more
        assert await reason(d, home / "real" / "proj") is None  # under either spelling

    in_process(scenario)


def test_both_spellings_of_a_project_are_one_project(in_process: Any, home: Path, trust_all: None) -> None:
    (home / "real" / "proj").mkdir(parents=True)
    (home / "link").symlink_to(home / "real")
    write_project(home / "real" / "proj", hooks_file(deny_hook("guard", "v1")))

    async def scenario(d: InProcess) -> Any:
        c = d.client()
        await c.disable_hook("guard", project=str(home / "link" / "proj" / "."))
        assert (await c.decide(POINT, {}, project=str(home / "real" / "proj"))).decision is None
        return (await c.list_hooks(str(home / "link" / "proj"))).hooks

    listed = in_process(scenario)
    assert [h.owner for h in listed] == [str(home / "real" / "proj")]


def test_a_hook_file_symlinked_to_a_trusted_projects_file_is_not_trusted(in_process: Any, home: Path) -> None:
    trusted, intruder = home / "trusted", home / "intruder"
    text = f"hooks:\n  - {{name: guard, point: {POINT}, type: decision, command: /bin/sh, args: [./check.sh], enabled: true}}\n"
    write_project(trusted, text)
    for where, said in ((trusted, "trusted"), (intruder, "intruder")):
        answer = json.dumps({"decision": "deny", "reason": said})
        (where / "check.sh").parent.mkdir(parents=True, exist_ok=True)
        (where / "check.sh").write_text(f"cat >/dev/null\necho '{answer}'\n")
    (intruder / ".hookd").mkdir(parents=True)
    (intruder / ".hookd" / "hooks.yaml").symlink_to(trusted / ".hookd" / "hooks.yaml")

    async def scenario(d: InProcess) -> Any:
        c = d.client()
        assert await c.trust(str(trusted))
        assert await reason(d, trusted) == "trusted"
        assert await reason(d, intruder) is None  # the intruder's own script never runs
        (info,) = (await c.list_hooks(str(intruder))).hooks
        return info

    info = in_process(scenario)
    assert not info.trusted and "not trusted" in info.trust


def test_a_hook_directory_symlinked_to_a_trusted_projects_directory_is_not_trusted(in_process: Any, home: Path) -> None:
    trusted, intruder = home / "trusted", home / "intruder"
    write_project(trusted, hooks_file(deny_hook("guard", "v1")))
    intruder.mkdir()
    (intruder / ".hookd").symlink_to(trusted / ".hookd")

    async def scenario(d: InProcess) -> None:
        assert await d.client().trust(str(trusted))
        assert await reason(d, trusted) == "v1"
        assert await reason(d, intruder) is None

    in_process(scenario)


def test_a_nul_byte_in_a_project_path_is_a_bad_request_naming_it(in_process: Any) -> None:
    async def scenario(d: InProcess) -> None:
        c = d.client()
        for call in (
            lambda: c.decide(POINT, {}, project="/tmp/with\0nul"),
            lambda: c.emit(POINT, {}, project="/tmp/with\0nul"),
            lambda: c.list_hooks("/tmp/with\0nul"),
            lambda: c.trust("/tmp/with\0nul"),
            lambda: c.untrust("/tmp/with\0nul"),
        ):
            with pytest.raises(HookdError) as caught:
                await call()
            assert caught.value.code == "bad_request" and "NUL byte" in caught.value.message
        assert (await c.decide(POINT, {})).decision is None  # still serving

    in_process(scenario)
