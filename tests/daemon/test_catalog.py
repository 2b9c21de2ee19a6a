"""The catalog request, in process: every point and internal event, with payload types that real events
match."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hookd_client import messages as m

from hookd.core import points

from ..conftest import write_script
from .conftest import InProcess


async def catalog(client: Any) -> m.Catalog:
    got = await client.catalog()
    assert isinstance(got, m.Catalog)
    return got


def conforms(value: Any, kind: str) -> bool:
    """Whether ``value`` has the catalog type ``kind`` (str, int, float, bool, any, T|null, list[T], map[K,V])."""
    if "|" in kind and not kind.startswith(("list[", "map[")):
        return any(conforms(value, k) for k in kind.split("|"))
    if kind == "any":
        return True
    if kind == "null":
        return value is None
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if match := re.fullmatch(r"list\[(.+)\]", kind):
        return isinstance(value, list) and all(conforms(v, match.group(1)) for v in value)
    if match := re.fullmatch(r"map\[(\w+),(.+)\]", kind):
        return isinstance(value, dict) and all(conforms(k, match.group(1)) and conforms(v, match.group(2)) for k, v in value.items())
    raise AssertionError(f"unknown catalog type {kind!r}")


def test_the_catalog_lists_every_point_and_internal_event(in_process: Any) -> None:
    async def scenario(d: InProcess) -> m.Catalog:
        return await catalog(d.client())

    reply = in_process(scenario)
    assert isinstance(reply, m.Catalog)
    assert [(p.name, p.kind) for p in reply.points] == [(p.name, p.kind) for p in points.POINTS.values()]
    observers = {p.name for p in reply.points if p.kind == "observer"}
    assert {"tool.execute.error", "llm.request.before", "agent.turn.end", "chat.response", "event"} <= observers
    assert {p.name for p in reply.points if p.kind == "decision"} == set(points.decision_points())
    assert all(p.name.startswith("hookd.") and p.kind == "internal" and p.payload for p in reply.internal)
    assert reply.custom_prefix == "custom." and reply.catch_all == "event"


def test_real_internal_events_match_their_catalog_types(in_process: Any, home: Path) -> None:
    failing = write_script(home / "fail.py", "import sys\nsys.stdin.read()\nsys.exit(3)\n")
    project = home / "proj"
    (project / ".hookd").mkdir(parents=True)
    hook = "{name: p, point: custom.x, type: observer, command: 'true', enabled: true}"
    (project / ".hookd" / "hooks.yaml").write_text(f"hooks:\n  - {hook}\n")

    async def scenario(d: InProcess) -> tuple[Any, list[m.Event]]:
        d.global_hooks(f"hooks:\n  - {{name: broken, point: tool.execute.after, type: observer, command: {failing}, enabled: true}}\n")
        c = d.client()
        await c.emit("tool.execute.after", {"toolName": "read"}, wait=True)
        await c.attach_session("s1", [{"name": "h", "point": "custom.y", "type": "observer", "command": "true"}])
        await c.dispose_session("s1")
        await c.disable_hook("broken")
        await c.enable_hook("broken")
        await c.trust(str(project))
        await c.untrust(str(project))
        await c.reload_user_hooks()
        internal = {p.name: p.payload for p in (await catalog(c)).internal}
        return internal, await c.events(["hookd.*"])

    internal, events = in_process(scenario)
    seen = {e.point for e in events}
    assert {
        "hookd.daemon.started",
        "hookd.hook.error",
        "hookd.config.reloaded",
        "hookd.session.attached",
        "hookd.session.disposed",
        "hookd.hook.toggled",
        "hookd.trust.granted",
        "hookd.trust.revoked",
    } <= seen
    for e in events:
        assert e.point in internal, f"{e.point} is published but not in the catalog"
        fields = internal[e.point]
        required = {k for k in fields if not k.endswith("?")}
        types = {k.rstrip("?"): v for k, v in fields.items()}
        assert required <= set(e.payload), f"{e.point}: missing {required - set(e.payload)}"
        assert set(e.payload) <= set(types), f"{e.point}: not in the catalog: {set(e.payload) - set(types)}"
        for key, value in e.payload.items():
            assert conforms(value, types[key]), f"{e.point}.{key} = {value!r} is not {types[key]}"
