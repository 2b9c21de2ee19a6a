"""Groups in hook files, in process with real subprocess hooks: a strictest group runs its members at
once and the most restrictive answer wins; hookd's scope order holds around the group; a member that
fails or times out still fails closed by its on_error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..conftest import write_script
from .conftest import InProcess

# Each member writes its mark, then waits (bounded) for the other's: run one after the other, the
# first would wait in vain and abstain; run at once, both see each other and answer.
MEET = """
import json, os, sys, time
mine, other, answer = sys.argv[1], sys.argv[2], sys.argv[3]
open(mine, "w").close()
deadline = time.monotonic() + 20
while not os.path.exists(other):
    if time.monotonic() > deadline:
        sys.exit(0)
    time.sleep(0.01)
print(json.dumps({"decision": answer, "reason": f"{answer} from {os.path.basename(mine)}"} if answer != "none" else None))
"""


def _hooks(members: list[tuple[str, list[str], str]], extra: str = "") -> str:
    lines = ["hooks:"]
    for name, args, more in members:
        lines.append(
            f"  - {{name: {name}, point: tool.approval.pre, type: decision, command: {args[0]!r}, args: {args[1:]!r}, enabled: true{more}}}"
        )
    return "\n".join(lines) + "\n" + extra


def test_strictest_group_members_run_at_once_and_deny_wins(in_process: Any, home: Path) -> None:
    tmp_path = home
    meet = write_script(tmp_path / "meet.py", MEET)
    a, b = str(tmp_path / "a.mark"), str(tmp_path / "b.mark")
    members = [
        ("allows", [str(meet), a, b, "allow"], ", group: g, combine: strictest"),
        ("denies", [str(meet), b, a, "deny"], ", group: g"),
    ]

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(_hooks(members))
        return await d.client().decide("tool.approval.pre", {"toolName": "Bash"})

    out = in_process(scenario)
    assert (out.decision, out.reason, out.decided_by.name) == ("deny", "deny from b.mark", "denies")
    assert out.errors == [] and out.not_run == []


def test_scope_order_is_kept_around_the_group(in_process: Any, home: Path) -> None:
    tmp_path = home
    # The project's plain hook runs before the global group and its allow ends the chain there;
    # with the project hook abstaining, the group decides.
    answer = write_script(
        tmp_path / "answer.py", "import json, sys\nprint(json.dumps({'decision': sys.argv[1]} if sys.argv[1] != 'none' else None))\n"
    )
    ran = tmp_path / "group-ran"
    deny = write_script(tmp_path / "deny.py", f'import pathlib\npathlib.Path({str(ran)!r}).touch()\nprint(\'{{"decision": "deny"}}\')\n')
    group = _hooks([("g1", [str(answer), "allow"], ", group: g, combine: strictest"), ("g2", [str(deny)], ", group: g")])
    projects = {}
    for name, verdict in (("allowing", "allow"), ("abstaining", "none")):
        project = projects[name] = tmp_path / name
        (project / ".hookd").mkdir(parents=True)
        (project / ".hookd" / "hooks.yaml").write_text(_hooks([("first", [str(answer), verdict], "")]))

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(group)
        c = d.client()
        for project in projects.values():
            await c.trust(str(project))
        out = await c.decide("tool.approval.pre", {}, project=str(projects["allowing"]))
        assert (out.decision, out.decided_by.name, out.decided_by.scope) == ("allow", "first", "project")
        assert not ran.exists()
        return await c.decide("tool.approval.pre", {}, project=str(projects["abstaining"]))

    out = in_process(scenario)
    assert (out.decision, out.decided_by.name) == ("deny", "g2") and ran.exists()


def test_a_group_member_that_times_out_fails_closed(in_process: Any, home: Path) -> None:
    tmp_path = home
    answer = write_script(tmp_path / "answer.py", "import json, sys\nprint(json.dumps({'decision': sys.argv[1]}))\n")
    hang = write_script(tmp_path / "hang.py", "import time\ntime.sleep(120)\n")
    members = [
        ("ok", [str(answer), "allow"], ", group: g, combine: strictest"),
        ("stuck", [str(hang)], ", group: g, timeout: 1, on_error: deny"),
    ]

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(_hooks(members))
        return await d.client().decide("tool.approval.pre", {})

    out = in_process(scenario)
    assert out.decision == "deny" and out.decided_by.name == "stuck"
    assert [(e.hook.name, e.code) for e in out.errors] == [("stuck", "timeout")]
