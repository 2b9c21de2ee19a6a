"""User hook files that people can trust: live reload, rejected edits, toggles, trust, the CLI.

Real daemons, real YAML files, real hook processes. Waits are polls with generous
hang guards, never speed assertions. Trust for CI, match, cwd, timeout and on_error as the daemon
runs them, in process: tests/daemon/test_hook_files.py.
"""

from __future__ import annotations

import json
import signal
import textwrap
import threading
import time
from pathlib import Path

import pytest

from ..conftest import write_script

POINT = "tool.approval.pre"


def wait_until(check, timeout: float = 15.0, interval: float = 0.05):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s (hang guard)")
        time.sleep(interval)


def events(daemon, kind: str) -> list[dict]:  # type: ignore[no-untyped-def]
    found = []
    for line in daemon.log().splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("event_kind") == kind:
                found.append(record)
    return found


def deny_hook(name: str, reason: str, priority: int = 0, extra: str = "") -> str:
    """A YAML hook entry that denies with ``reason`` (no script file needed)."""
    answer = json.dumps({"decision": "deny", "reason": reason})
    body = f"""\
  - name: {name}
    point: {POINT}
    type: decision
    command: /bin/sh
    args: ["-c", {json.dumps("cat >/dev/null; echo '" + answer + "'")}]
    priority: {priority}
    enabled: true
"""
    return body + textwrap.indent(textwrap.dedent(extra), "    ")


def hooks_file(*entries: str) -> str:
    return "hooks:\n" + "".join(entries)


def write_project(project: Path, text: str, where: str = ".hookd") -> Path:
    path = project / where / "hooks.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def replace_file(path: Path, text: str) -> None:
    """Write the way editors do: a new file renamed over the old one (an atomic edit)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def reason(daemon, project: Path | None = None, payload: dict | None = None) -> str | None:  # type: ignore[no-untyped-def]
    with daemon.client() as c:
        return c.decide(POINT, payload or {"toolName": "bash"}, project=str(project) if project else None).reason


# ------------------------------------------------------------------ live reload


def test_an_edit_takes_effect_without_restart_and_a_broken_edit_keeps_the_old_hooks(env, daemon_factory):
    path = env.write_global_hooks(hooks_file(deny_hook("guard", "v1")))
    daemon = daemon_factory()
    assert reason(daemon) == "v1"

    replace_file(path, hooks_file(deny_hook("guard", "v2")))
    wait_until(lambda: reason(daemon) == "v2")
    summary = wait_until(lambda: [e for e in events(daemon, "hookd.config.reloaded") if e["changed"] == ["guard"]])
    assert summary[0]["file"] == str(path) and summary[0]["added"] == [] and summary[0]["removed"] == []

    replace_file(path, "hooks:\n  - name: guard\n     point: x\n")
    rejected = wait_until(lambda: events(daemon, "hookd.config.rejected"))
    assert f"{path}:3:" in rejected[0]["problems"][0]
    assert reason(daemon) == "v2"  # the previous good version stays in force
    with daemon.client() as c:
        listing = c.list_hooks()
    assert [h.name for h in listing.hooks] == ["guard"]
    assert listing.rejected[0].file == str(path)

    replace_file(path, hooks_file(deny_hook("guard", "v3"), deny_hook("other", "x", priority=-1)))
    wait_until(lambda: reason(daemon) == "v3")
    with daemon.client() as c:
        assert c.list_hooks().rejected == []
    added = wait_until(lambda: [e for e in events(daemon, "hookd.config.reloaded") if e["added"] == ["other"]])
    assert added[0]["changed"] == ["guard"]


def test_an_invalid_file_never_half_loads(env, daemon_factory):
    path = env.write_global_hooks(hooks_file(deny_hook("a", "a")))
    daemon = daemon_factory()
    assert reason(daemon) == "a"  # loaded before the edit below
    replace_file(path, hooks_file(deny_hook("b", "b", priority=5), deny_hook("c", "c", extra="type: decison\n")))
    wait_until(lambda: events(daemon, "hookd.config.rejected"))
    with daemon.client() as c:
        assert [h.name for h in c.list_hooks().hooks] == ["a"]
    assert reason(daemon) == "a"


def test_reload_while_a_decide_is_in_flight_sees_the_old_chain_or_the_new(env, daemon_factory, tmp_path):
    trace = tmp_path / "trace"
    gate = tmp_path / "gate"
    step = write_script(
        tmp_path / "step.py",
        f"""
        import json, os, sys, time
        sys.stdin.read()
        label, answer = sys.argv[1], sys.argv[2]
        with open({str(trace)!r}, "a") as f:
            f.write(label + "\\n")
        if label == "old-first":
            while not os.path.exists({str(gate)!r}):
                time.sleep(0.02)
        print(answer)
        """,
    )

    def entry(name: str, label: str, answer: dict, priority: int) -> str:
        return (
            f"  - {{name: {name}, point: {POINT}, type: decision, command: {step}, priority: {priority}, enabled: true, "
            f"timeout: 60, args: [{label}, {json.dumps(json.dumps(answer))}]}}\n"
        )

    old = hooks_file(
        entry("first", "old-first", {"decision": "continue", "injection": "old-first"}, 10),
        entry("second", "old-second", {"decision": "deny", "reason": "old"}, 0),
    )
    new = hooks_file(
        entry("first", "new-first", {"decision": "continue", "injection": "new-first"}, 10),
        entry("second", "new-second", {"decision": "deny", "reason": "new"}, 0),
    )
    path = env.write_global_hooks(old)
    daemon = daemon_factory()
    result: dict = {}

    def in_flight() -> None:
        with daemon.client() as c:
            result["outcome"] = c.decide(POINT, {"toolName": "bash"})

    thread = threading.Thread(target=in_flight)
    thread.start()
    wait_until(lambda: trace.exists() and trace.read_text() == "old-first\n")
    replace_file(path, new)
    with daemon.client() as c:
        c.reload_user_hooks()  # no need to wait for the watcher: the new chain is in force now
    gate.write_text("go")
    thread.join(30)
    assert not thread.is_alive()
    outcome = result["outcome"]
    assert (outcome.reason, outcome.injection) == ("old", "old-first")
    assert trace.read_text().splitlines() == ["old-first", "old-second"]

    with daemon.client() as c:
        outcome = c.decide(POINT, {"toolName": "bash"})
    assert (outcome.reason, outcome.injection) == ("new", "new-first")
    assert trace.read_text().splitlines() == ["old-first", "old-second", "new-first", "new-second"]


def test_sighup_reloads_global_and_project_files(env, daemon_factory, tmp_path):
    env.env["HOOKD_WATCH_INTERVAL"] = "0"  # no watching: only the signal can reload
    project = tmp_path / "proj"
    gpath = env.write_global_hooks(hooks_file(deny_hook("g", "g1", priority=-5)))
    ppath = write_project(project, hooks_file(deny_hook("p", "p1")))
    daemon = daemon_factory()
    assert reason(daemon, project) == "p1"
    gpath.write_text(hooks_file(deny_hook("g", "g2", priority=-5)))
    ppath.write_text(hooks_file(deny_hook("p", "p2")))
    time.sleep(0.5)  # not a speed assertion: shows that nothing but the signal reloads here
    assert reason(daemon, project) == "p1"
    daemon.signal(signal.SIGHUP)
    wait_until(lambda: reason(daemon, project) == "p2")
    ppath.unlink()
    daemon.signal(signal.SIGHUP)
    wait_until(lambda: reason(daemon, project) == "g2")
    removed = wait_until(lambda: [e for e in events(daemon, "hookd.config.reloaded") if e["removed"] == ["p"]])
    assert removed[0]["project"] == str(project)


def test_names_are_unique_across_the_files_of_a_scope(env, daemon_factory, tmp_path):
    project = tmp_path / "proj"
    write_project(project, hooks_file(deny_hook("same", "codingcode")), ".codingcode")
    write_project(project, hooks_file(deny_hook("same", "hookd")), ".hookd")
    daemon = daemon_factory()
    assert reason(daemon, project) == "codingcode"
    with daemon.client() as c:
        listing = c.list_hooks(str(project))
    assert [h.source for h in listing.hooks] == [str(project / ".codingcode" / "hooks.yaml")]
    assert "duplicate hook name in this scope: 'same'" in listing.rejected[0].problems[0]
    # renaming the hook in the first file lets the second one load, without touching it
    replace_file(project / ".codingcode" / "hooks.yaml", hooks_file(deny_hook("renamed", "codingcode", priority=-1)))
    wait_until(lambda: reason(daemon, project) == "hookd")
    with daemon.client() as c:
        listing = c.list_hooks(str(project))
    assert sorted(h.name for h in listing.hooks) == ["renamed", "same"] and listing.rejected == []


# ------------------------------------------------------------------ toggles


def test_toggles_survive_a_restart_and_an_edit(env, daemon_factory, tmp_path):
    project = tmp_path / "proj"
    path = env.write_global_hooks(hooks_file(deny_hook("guard", "v1")))
    write_project(project, hooks_file(deny_hook("local", "local")))
    daemon = daemon_factory()
    r = env.hookd("disable", "guard")
    assert r.returncode == 0 and "disabled guard (1 hook)" in r.stdout, r.stderr
    assert env.hookd("disable", "local", "--project", str(project)).returncode == 0
    assert reason(daemon) is None and reason(daemon, project) is None
    assert (env.state / "hookd" / "toggles.json").exists()
    daemon.stop()

    daemon = daemon_factory()
    assert reason(daemon) is None and reason(daemon, project) is None
    r = env.hookd("hooks", "--project", str(project))
    assert "off (toggled)" in r.stdout and r.stdout.count("off (toggled)") == 2
    listed = json.loads(env.hookd("hooks", "--json", "--project", str(project)).stdout)["hooks"]
    assert {(h["name"], h["enabled"], h["default_enabled"], h["toggled"]) for h in listed} == {
        ("guard", False, True, True),
        ("local", False, True, True),
    }

    replace_file(path, hooks_file(deny_hook("guard", "v2")))
    wait_until(lambda: [e for e in events(daemon, "hookd.config.reloaded") if e["changed"] == ["guard"]])
    assert reason(daemon) is None  # still disabled after the edit
    assert env.hookd("enable", "guard").returncode == 0
    assert reason(daemon) == "v2"
    daemon.stop()
    daemon = daemon_factory()
    assert reason(daemon) == "v2"


def test_toggle_of_an_unknown_hook_is_a_clear_error(env, daemon):
    r = env.hookd("disable", "nope")
    assert r.returncode == 4 and "no hook named 'nope'" in r.stderr  # 4: an unknown name


def test_enabling_a_hook_the_file_disables(env, daemon_factory):
    env.write_global_hooks(hooks_file(deny_hook("dormant", "ran").replace("enabled: true", "enabled: false")))
    daemon = daemon_factory()
    assert reason(daemon) is None
    assert env.hookd("enable", "dormant").returncode == 0
    assert reason(daemon) == "ran"


# ------------------------------------------------------------------ trust


def test_trust_edit_untrusted_retrust_untrust(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "proj"
    path = write_project(project, hooks_file(deny_hook("guard", "v1")))
    env.write_global_hooks(hooks_file(deny_hook("mine", "global", priority=-10)))
    daemon = daemon_factory()

    assert reason(daemon, project) == "global"  # the project's hook is skipped, the global one runs
    assert reason(daemon, project) == "global"
    skipped = events(daemon, "hookd.hooks.untrusted_skipped")
    assert len(skipped) == 1 and skipped[0]["hooks"] == ["guard"] and skipped[0]["file"] == str(path)
    r = env.hookd("hooks", "--project", str(project))
    assert "untrusted" in r.stdout and f"hookd trust {project}" in r.stdout

    r = env.hookd("trust", str(project))
    assert r.returncode == 0 and f"trusted {path}" in r.stdout, r.stderr
    assert reason(daemon, project) == "v1"

    replace_file(path, hooks_file(deny_hook("guard", "v2")))
    wait_until(lambda: reason(daemon, project) == "global")  # edited: untrusted again
    with daemon.client() as c:
        (info,) = [h for h in c.list_hooks(str(project)).hooks if h.name == "guard"]
    assert not info.trusted and "changed since it was trusted" in info.trust
    wait_until(lambda: len(events(daemon, "hookd.hooks.untrusted_skipped")) == 2)  # once per file version

    assert env.hookd("trust", str(project)).returncode == 0
    assert reason(daemon, project) == "v2"
    r = env.hookd("untrust", str(project))
    assert r.returncode == 0 and f"untrusted {path}" in r.stdout
    assert reason(daemon, project) == "global"
    assert env.hookd("untrust", str(project)).returncode == 4


def test_trust_recorded_without_a_daemon_applies_when_it_starts(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "proj"
    write_project(project, hooks_file(deny_hook("guard", "v1")), ".codingcode")
    r = env.hookd("trust", str(project))
    assert r.returncode == 0, r.stderr
    daemon = daemon_factory()
    assert reason(daemon, project) == "v1"


def test_trust_errors_are_clear(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    daemon_factory()
    r = env.hookd("trust", str(tmp_path))
    assert r.returncode == 4 and "has no project hook file" in r.stderr
    path = env.write_global_hooks(hooks_file(deny_hook("g", "g")))
    r = env.hookd("trust", str(path))
    assert r.returncode == 1 and "always trusted" in r.stderr


# ------------------------------------------------------------------ the home directory as a project


def test_the_home_directory_as_a_project_does_not_load_the_global_file_twice(env, daemon_factory):
    path = env.home / ".codingcode" / "hooks.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(hooks_file(deny_hook("mine", "global")))
    daemon = daemon_factory()
    assert reason(daemon, env.home) == "global"
    with daemon.client() as c:
        assert [(h.scope, h.name) for h in c.list_hooks(str(env.home)).hooks] == [("global", "mine")]
    r = env.hookd("check", "--project", str(env.home))
    assert r.returncode == 0 and r.stdout.count("ok, 1 hook") == 1, r.stdout


# ------------------------------------------------------------------ CLI


def test_hookd_check_cli(env, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "proj"
    bad = write_project(project, hooks_file(deny_hook("guard", "x").replace("type: decision", "type: decison")))
    r = env.hookd("check", "--project", str(project))
    assert r.returncode == 1
    assert f"{bad}:4:11: hook 'guard': field 'type': type must be" in r.stdout and "did you mean 'decision'?" in r.stdout
    r = env.hookd("check", "--json", str(bad))
    out = json.loads(r.stdout)
    assert r.returncode == 1 and not out["valid"]
    assert out["problems"][0] | {"message": ""} == {
        "file": str(bad),
        "line": 4,
        "column": 11,
        "hook": "guard",
        "field": "type",
        "message": "",
        "suggestion": "did you mean 'decision'?",
        "fix": {"line": 4, "column": 11, "replace": "decison", "with": "decision"},
    }
    write_project(project, hooks_file(deny_hook("guard", "x")))
    r = env.hookd("check", "--project", str(project))
    assert r.returncode == 0 and "ok, 1 hook" in r.stdout and "not trusted" in r.stdout
    r = env.hookd("check", str(tmp_path / "missing.yaml"))
    assert r.returncode == 1 and "no such file" in r.stdout
    write_project(project, hooks_file(deny_hook("guard", "y")), ".codingcode")
    r = env.hookd("check", "--project", str(project))
    assert r.returncode == 1 and "duplicate hook name in this scope: 'guard'" in r.stdout


@pytest.mark.parametrize("command", ["check", "hooks", "enable", "disable", "trust", "untrust"])
def test_every_new_command_has_help(env, command):
    r = env.hookd(command, "--help")
    assert r.returncode == 0 and len(r.stdout) > 200
