"""Registry rules added for user configuration: untrusted hooks never run; toggles and toggling back."""

from __future__ import annotations

import pytest

from hookd.config.trust import TrustStore
from hookd.core.registry import Hook, Registry


async def _never(hook, payload, ctx):  # pragma: no cover - the registry never runs hooks
    raise AssertionError


@pytest.fixture
def store(tmp_path) -> TrustStore:
    return TrustStore(str(tmp_path / "trust.json"))


def hook(name: str, scope: str = "global", owner: str = "", enabled: bool = True, trusted: bool = True) -> Hook:
    source = f"{owner or '/g'}/.hookd/hooks.yaml"
    key = source if scope == "project" else ""
    sha = "" if trusted else "x"
    return Hook(name, "tool.approval.pre", "decision", scope, owner, source, _never, enabled=enabled, trust_key=key, sha=sha)


def test_untrusted_hooks_are_skipped_and_reported_when_planned(store):
    reports = []
    r = Registry(store, notify=lambda kind, data: reports.append((kind, data["point"], data["hooks"], data["project"])))
    r.mark_project_loaded("/p")
    r.add([hook("mine", "project", "/p", trusted=False), hook("g")])
    plan = r.plan("tool.approval.pre", None, "/p")
    assert [h.name for h in plan.decisions] == ["g"]
    assert [h.name for h in plan.skipped] == ["mine"]
    assert reports == [("hookd.hooks.untrusted_skipped", "tool.approval.pre", ["mine"], "/p")]
    r.plan("tool.approval.pre", None, "/p")  # cached: not reported again
    assert len(reports) == 1


def test_a_disabled_untrusted_hook_is_not_reported(store):
    reports = []
    r = Registry(store, notify=lambda kind, data: reports.append(data))
    r.mark_project_loaded("/p")
    r.add([hook("mine", "project", "/p", enabled=False, trusted=False)])
    r.plan("tool.approval.pre", None, "/p")
    assert reports == []


def test_toggle_overrides_and_toggling_back_removes_the_override():
    r = Registry()
    r.add([hook("g")])
    assert r.set_toggle(None, "g", False) == 1
    assert r.toggles == {(None, "g"): False}
    assert r.plan("tool.approval.pre", None, None).decisions == ()
    assert r.set_toggle(None, "g", True) == 1
    assert r.toggles == {}
    assert [h.name for h in r.plan("tool.approval.pre", None, None).decisions] == ["g"]


def test_enabling_a_hook_the_file_disables_is_kept():
    r = Registry()
    r.add([hook("g", enabled=False)])
    r.set_toggle(None, "g", True)
    assert r.toggles == {(None, "g"): True}


def test_project_toggle_of_a_global_hook_applies_to_that_project_only():
    r = Registry()
    r.mark_project_loaded("/p")
    r.mark_project_loaded("/q")
    r.add([hook("g")])
    r.set_toggle("/p", "g", False)
    assert r.plan("tool.approval.pre", None, "/p").decisions == ()
    assert len(r.plan("tool.approval.pre", None, "/q").decisions) == 1


def test_recorded_toggles_apply_to_hooks_loaded_later():
    r = Registry()
    r.load_toggles({(None, "later"): False})
    r.add([hook("later")])
    assert r.plan("tool.approval.pre", None, None).decisions == ()


def test_trust_is_asked_when_a_call_is_planned_and_follows_the_record(tmp_path, store):
    from hookd.config import trust

    project = tmp_path / "p"
    path = project / ".hookd" / "hooks.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("hooks: []\n")
    guard = Hook("guard", "tool.approval.pre", "decision", "project", str(project), str(path), _never)
    guard.trust_key, guard.sha = trust.file_key(str(path)), trust.digest(str(path))
    r = Registry(store)
    r.add([guard])
    plan = r.plan("tool.approval.pre", None, str(project))
    assert plan.decisions == () and [(h.name, why) for h, why, _ in plan.not_run] == [("guard", "untrusted")]
    store.trust([str(path)])
    assert r.plan("tool.approval.pre", None, str(project)).decisions == (guard,)
    store.untrust(str(project))
    plan = r.plan("tool.approval.pre", None, str(project))
    assert plan.decisions == () and plan.not_run[0][1] == "untrusted"


def test_a_file_with_no_hooks_in_force_is_named_in_every_decide_of_its_scope():
    r = Registry()
    r.set_missing("global", "", "/g/hooks.yaml", ("invalid_file", "rejected"))
    (entry,) = r.plan("tool.approval.pre", None, None).not_run
    assert entry[0].source == "/g/hooks.yaml" and entry[1] == "invalid_file"
    r.set_missing("global", "", "/g/hooks.yaml", None)
    assert r.plan("tool.approval.pre", None, None).not_run == ()
