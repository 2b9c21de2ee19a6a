"""Built-in hooks (`builtin: PACK`) in the daemon, in process: from real YAML through the files,
trust, toggles, the chain's order, shadow mode, traces, approvals and stats, with the rule that
fired named wherever a person looks."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

from hookd_client import messages as m

from .conftest import InProcess

GUARDS = textwrap.dedent(
    """\
    hooks:
      - name: guards
        point: tool.approval.pre
        builtin: {packs}
        enabled: true
    """
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def write_global(home: Path, text: str) -> Path:
    return write(home / "config" / "hookd" / "hooks.yaml", text)


def guards(packs: str = "default", extra: str = "") -> str:
    return GUARDS.format(packs=packs) + textwrap.indent(textwrap.dedent(extra), "    ")


def shell(command: str, **more: Any) -> dict[str, Any]:
    return {"toolName": "execute_command", "args": {"command": command}, **more}


async def decide(d: InProcess, command: str, **kw: Any) -> m.Outcome:
    reply = await d.call(m.Decide(d.id(), "tool.approval.pre", shell(command), **kw))
    assert isinstance(reply, m.Outcome), reply
    return reply


def test_a_global_builtin_hook_denies_naming_its_rule_and_lets_the_rest_through(in_process: Any, home: Path) -> None:
    write_global(home, guards("[files, git]"))

    async def scenario(d: InProcess) -> tuple[Any, ...]:
        d.daemon.files.load_global_now()
        benign = await decide(d, "git status && ls -la")
        # Answered in the call's own pass: a reply, not work that waits (no task, no process).
        now = d.daemon.handle(d.peer, m.Decide(d.id(), "tool.approval.pre", shell("git reset --hard HEAD~3")))
        stats = await d.call(m.StatsRequest(d.id()))
        return now, benign, stats

    now, benign, stats = in_process(scenario)
    assert isinstance(now, m.Outcome) and now.decision == "deny", now
    assert now.reason is not None and now.reason.startswith("git.reset-hard: ")
    assert now.decided_by is not None and (now.decided_by.name, now.decided_by.scope) == ("guards", "global")
    assert benign.decision is None and not benign.errors and not benign.not_run
    assert isinstance(stats, m.Stats)
    [entry] = [h for h in stats.hooks if h.hook.name == "guards"]
    assert entry.life.calls == 2 and entry.life.denies == 1 and entry.life.rules == {"git.reset-hard": 1}


def test_a_project_builtin_hook_runs_once_trusted_and_its_options_allow_and_ask_by_rule(in_process: Any, home: Path) -> None:
    project = home / "home" / "app"
    write(
        project / ".hookd" / "hooks.yaml",
        guards("default", "options:\n  allow: [git.reset-hard]\n  ask: [files.*]\n  protected_branches: [main, release]\n"),
    )

    async def scenario(d: InProcess) -> tuple[Any, ...]:
        untrusted = await decide(d, "git push --force origin release", project=str(project))
        trusted = await d.call(m.Trust(d.id(), str(project)))
        assert not isinstance(trusted, m.Error), trusted
        await d.daemon.files.load_project(str(project))
        allowed = await decide(d, "git reset --hard", project=str(project))
        pushed = await decide(d, "git push --force origin release", project=str(project))
        asked = await decide(d, "rm -rf /", project=str(project))
        return untrusted, allowed, pushed, asked

    untrusted, allowed, pushed, asked = in_process(scenario)
    assert untrusted.decision is None and [(n.hook.name, n.reason) for n in untrusted.not_run] == [("guards", "untrusted")]
    assert allowed.decision is None and not allowed.not_run  # allowed by name for this project
    assert pushed.decision == "deny" and pushed.reason is not None and pushed.reason.startswith("git.")  # a protected branch of its own
    assert asked.decision == "ask" and asked.reason is not None and asked.reason.startswith("files.")
    assert asked.decided_by is not None and asked.decided_by.scope == "project"


def test_a_disabled_builtin_hook_does_not_run_and_enabling_it_brings_it_back(in_process: Any, home: Path) -> None:
    write_global(home, guards("git"))

    async def scenario(d: InProcess) -> tuple[Any, ...]:
        d.daemon.files.load_global_now()
        await d.call(m.DisableHook(d.id(), "guards"))
        off = await decide(d, "git reset --hard")
        await d.call(m.EnableHook(d.id(), "guards"))
        on = await decide(d, "git reset --hard")
        return off, on

    off, on = in_process(scenario)
    assert off.decision is None and on.decision == "deny"


def test_a_shadow_builtin_hook_changes_nothing_and_records_what_it_would_have_denied(in_process: Any, home: Path) -> None:
    write_global(home, guards("git", "shadow: true\n"))

    async def scenario(d: InProcess) -> tuple[Any, ...]:
        d.daemon.files.load_global_now()
        out = await decide(d, "git reset --hard")
        traced = await decide(d, "git clean -fdx", trace=True)
        for _ in range(10_000):  # the untraced call's shadow result is recorded once its shadow answered
            stats = await d.call(m.StatsRequest(d.id()))
            assert isinstance(stats, m.Stats)
            entries = [h for h in stats.hooks if h.hook.name == "guards"]
            if entries and entries[0].life.calls == 2:
                break
            await asyncio.sleep(0)
        return out, traced, stats

    out, traced, stats = in_process(scenario)
    assert out.decision is None and traced.decision is None
    [entry] = traced.trace or []
    assert entry.shadow and entry.answer is not None and entry.answer.decision == "deny" and entry.answer.rule == "git.clean-force"
    [hook] = [h for h in stats.hooks if h.hook.name == "guards"]
    assert hook.shadow and hook.life.denies == 2 and hook.life.rules == {"git.reset-hard": 1, "git.clean-force": 1}


def test_a_trace_names_the_rule_and_the_chain_order_holds(in_process: Any, home: Path) -> None:
    write_global(
        home,
        guards("git", "priority: 10\n")
        + textwrap.indent(
            textwrap.dedent(
                """\
              - name: first
                point: tool.approval.pre
                type: decision
                priority: 20
                enabled: true
                match: {args.command: "^git push"}
                command: sh
                args: ["-c", "echo '{\\"decision\\": \\"allow\\", \\"reason\\": \\"pushes are fine here\\"}'"]
            """
            ),
            "  ",
        ),
    )

    async def scenario(d: InProcess) -> tuple[Any, ...]:
        d.daemon.files.load_global_now()
        traced = await decide(d, "git reset --hard", trace=True)
        first = await decide(d, "git push --force origin main")
        return traced, first

    traced, first = in_process(scenario)
    assert traced.decision == "deny" and traced.decided_by is not None and traced.decided_by.name == "guards"
    skipped, ran = traced.trace or []
    assert skipped.hook.name == "first" and skipped.skipped == "match"
    assert ran.hook.name == "guards" and ran.answer is not None and ran.answer.rule == "git.reset-hard"
    assert first.decision == "allow" and first.decided_by is not None and first.decided_by.name == "first"


def test_an_ask_waits_for_an_approver_as_any_hook_s_ask_does(in_process: Any, home: Path) -> None:
    write_global(home, guards("git", "options:\n  ask: [git.reset-hard]\n"))

    async def scenario(d: InProcess) -> Any:
        from .conftest import FakePeer

        d.daemon.files.load_global_now()
        approver = FakePeer()
        joined = await d.call(m.Approvals(d.id(), "alice"), approver)
        assert not isinstance(joined, m.Error), joined
        pending = asyncio.ensure_future(decide(d, "git reset --hard"))
        for _ in range(10_000):  # until the offer is sent: a few passes of the loop
            offers = [r for r in approver.sent if isinstance(r, m.ApprovalOffer)]
            if offers:
                break
            await asyncio.sleep(0)
        [offer] = offers
        answered = await d.call(m.ApprovalAnswer(d.id(), offer.offer, "deny", "not today"), approver)
        assert not isinstance(answered, m.Error), answered
        return offer, await pending

    offer, out = in_process(scenario)
    assert offer.reason is not None and offer.reason.startswith("git.reset-hard: ")
    assert out.decision == "deny" and out.approval is not None and out.approval.decision == "deny"


def test_a_session_builtin_hook_with_a_bad_option_is_refused_naming_it(in_process: Any) -> None:
    spec = m.HookSpec("guards", "tool.approval.pre", "decision", builtin=["git"], options={"allow": ["git.nope"]})

    async def scenario(d: InProcess) -> tuple[m.Reply, m.Reply]:
        bad = await d.call(m.AttachSession(d.id(), "s1", hooks=[spec]))
        good = m.HookSpec("guards", "tool.approval.pre", "decision", builtin=["git"])
        attached = await d.call(m.AttachSession(d.id(), "s2", hooks=[good]))
        assert not isinstance(attached, m.Error), attached
        return bad, await decide(d, "git stash clear", session="s2")

    bad, out = in_process(scenario)
    assert isinstance(bad, m.Error) and bad.code == "bad_request" and "git.nope" in bad.message and "guards" in bad.message
    assert isinstance(out, m.Outcome) and out.decision == "deny" and out.decided_by is not None and out.decided_by.scope == "session"


def test_a_project_s_own_policy_through_its_file_trust_and_a_toggle_of_the_global_guards(in_process: Any, home: Path) -> None:
    write_global(home, guards("default"))
    project = home / "home" / "app"
    other = home / "home" / "other"
    other.mkdir(parents=True)
    write(
        project / ".hookd" / "hooks.d" / "guards.yaml",
        guards("default", "options:\n  allow: [git.clean-force]\n").replace("name: guards", "name: app-guards"),
    )

    async def scenario(d: InProcess) -> tuple[Any, ...]:
        d.daemon.files.load_global_now()
        assert not isinstance(await d.call(m.Trust(d.id(), str(project))), m.Error)
        await d.daemon.files.load_project(str(project))
        both = await decide(d, "git clean -fdx", project=str(project))  # the global guards still deny it
        assert not isinstance(await d.call(m.DisableHook(d.id(), "guards", str(project))), m.Error)
        mine = await decide(d, "git clean -fdx", project=str(project))
        still = await decide(d, "git reset --hard", project=str(project))
        elsewhere = await decide(d, "git clean -fdx", project=str(other))
        return both, mine, still, elsewhere

    both, mine, still, elsewhere = in_process(scenario)
    assert both.decision == "deny" and both.decided_by is not None and both.decided_by.name == "guards"
    assert mine.decision is None and not mine.not_run  # allowed by name in this project only
    assert still.decision == "deny" and still.decided_by is not None and still.decided_by.name == "app-guards"
    assert elsewhere.decision == "deny" and elsewhere.decided_by is not None and elsewhere.decided_by.name == "guards"
