"""Ordering across scopes and priorities, toggles, snapshots."""

from __future__ import annotations

from typing import Any

from hookd.core.registry import Hook, Registry


async def _noop(*_: Any) -> None:
    return None


def h(
    name: str,
    scope: str = "global",
    owner: str = "",
    priority: int = 0,
    type: str = "decision",
    point: str = "tool.approval.pre",
    source: str = "",
) -> Hook:
    return Hook(name, point, type, scope, owner, source or f"src:{name}", _noop, priority=priority)  # type: ignore[arg-type]


def names(hooks: tuple[Hook, ...] | list[Hook]) -> list[str]:
    return [x.name for x in hooks]


def test_scope_then_priority_then_registration_order():
    r = Registry()
    r.attach_session("s1", "/p", None)
    r.add([h("g-low", priority=1), h("g-high", priority=50), h("g-tie-a", priority=1)])
    r.add([h("p", "project", "/p", priority=-5), h("p-high", "project", "/p", priority=5)])
    r.add([h("s", "session", "s1", priority=-100)])
    r.add([h("g-tie-b", priority=1)])
    plan = r.plan("tool.approval.pre", "s1", None)  # project comes from the session
    assert names(plan.decisions) == ["s", "p-high", "p", "g-high", "g-low", "g-tie-a", "g-tie-b"]


def test_other_sessions_and_projects_do_not_apply():
    r = Registry()
    r.add([h("mine", "session", "s1"), h("theirs", "session", "s2"), h("other-proj", "project", "/q")])
    assert names(r.plan("tool.approval.pre", "s1", "/p").decisions) == ["mine"]


def test_observers_of_the_catch_all_event_point_join_every_call():
    r = Registry()
    r.add([h("all", type="observer", point="event"), h("one", type="observer", point="tool.execute.after", priority=1)])
    assert names(r.plan("tool.execute.after", None, None).observers) == ["one", "all"]
    assert names(r.plan("chat.response", None, None).observers) == ["all"]


def test_disable_and_enable_by_name_per_project():
    r = Registry()
    r.add([h("g"), h("p", "project", "/p")])
    assert r.set_toggle("/p", "p", False) == 1
    assert names(r.plan("tool.approval.pre", None, "/p").decisions) == ["g"]
    assert names(r.plan("tool.approval.pre", None, "/p").skipped) == ["p"]
    # a global hook can be disabled for one project only
    assert r.set_toggle("/p", "g", False) == 1
    assert names(r.plan("tool.approval.pre", None, "/p").decisions) == []
    assert names(r.plan("tool.approval.pre", None, "/other").decisions) == ["g"]
    assert r.set_toggle("/p", "g", True) == 1
    assert names(r.plan("tool.approval.pre", None, "/p").decisions) == ["g"]
    assert r.set_toggle(None, "nope", False) == 0


def test_a_plan_taken_before_a_swap_is_a_consistent_snapshot():
    r = Registry()
    r.add([h("a")])
    before = r.plan("tool.approval.pre", None, None)
    r.replace_source("global", "", "src:a", [h("b")])
    after = r.plan("tool.approval.pre", None, None)
    assert names(before.decisions) == ["a"] and names(after.decisions) == ["b"]


def test_dispose_session_drops_its_hooks_and_handles():
    r = Registry()
    r.attach_session("s1", None, None)
    (hook,) = r.add([h("x", "session", "s1")])
    assert r.by_handle(hook.handle) is hook
    session, hooks = r.dispose_session("s1")
    assert session is not None and names(hooks) == ["x"]
    assert r.by_handle(hook.handle) is None
    assert r.plan("tool.approval.pre", "s1", None).decisions == ()


def test_planning_never_loads_a_project():
    r = Registry()
    plan = r.plan("tool.approval.pre", None, "/p")
    assert plan.decisions == () and not r.is_loaded("/p")  # loading is the daemon's explicit step


def test_a_reloaded_file_keeps_its_place_among_its_scopes_files():
    r = Registry()
    r.replace_source("global", "", "first.yaml", [h("a1", source="first.yaml"), h("a2", source="first.yaml")])
    r.replace_source("global", "", "second.yaml", [h("b1", source="second.yaml")])
    # an edit of the first file: its hooks stay ahead of the second file's
    r.replace_source("global", "", "first.yaml", [h("a1", source="first.yaml"), h("a3", source="first.yaml")])
    assert names(r.plan("tool.approval.pre", None, None).decisions) == ["a1", "a3", "b1"]


def test_sessions_leave_no_rank_behind():
    r = Registry()
    for i in range(200):
        r.attach_session(f"s{i}", None, None)
        r.add([h("x", "session", f"s{i}", source=f"session:s{i}")])
        r.dispose_session(f"s{i}")
    client = r.add([h("c", "global", "", source="client:42")])
    r.remove(client)
    assert r._ranks == {}  # nothing kept per session or per gone client
