"""Registry rules added for user configuration: untrusted hooks never run; toggles and toggling back."""

from __future__ import annotations

from hookd.registry import Hook, Registry


async def _never(hook, payload, ctx):  # pragma: no cover - the registry never runs hooks
    raise AssertionError


def hook(name: str, scope: str = "global", owner: str = "", enabled: bool = True, trusted: bool = True) -> Hook:
    return Hook(name, "tool.approval.pre", "decision", scope, owner, f"{owner or 'g'}/hooks.yaml", _never, enabled=enabled, trusted=trusted)


def test_untrusted_hooks_are_skipped_and_reported_when_planned():
    reports = []
    r = Registry()
    r.on_untrusted = lambda point, hooks: reports.append((point, [h.name for h in hooks]))
    r.mark_project_loaded("/p")
    r.add([hook("mine", "project", "/p", trusted=False), hook("g")])
    plan = r.plan("tool.approval.pre", None, "/p")
    assert [h.name for h in plan.decisions] == ["g"]
    assert [h.name for h in plan.skipped] == ["mine"]
    assert reports == [("tool.approval.pre", ["mine"])]
    r.plan("tool.approval.pre", None, "/p")  # cached: not reported again
    assert len(reports) == 1


def test_a_disabled_untrusted_hook_is_not_reported():
    reports = []
    r = Registry()
    r.on_untrusted = lambda point, hooks: reports.append(hooks)
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
