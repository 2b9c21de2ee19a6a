"""Guards that hold: a configured decision hook that does not run is named in the outcome,
and a hostile hook file never holds the daemon.

Real daemons, real files (a FIFO, a sparse 50 MB file, a link to /dev/zero), real hook processes.
"""

from __future__ import annotations

import os

from .test_user_config import POINT, deny_hook, events, hooks_file, reason, replace_file, wait_until, write_project

GUARD = hooks_file(deny_hook("guard", "guarded"))


def test_an_untrusted_guard_is_named_in_not_run(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "proj"
    path = write_project(project, GUARD)
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide(POINT, {}, project=str(project))
    assert out.decision is None
    (skipped,) = out.not_run
    assert (skipped.hook.name, skipped.hook.source, skipped.reason) == ("guard", str(path), "untrusted")
    assert f"hookd trust {project}" in skipped.message
    assert env.hookd("trust", str(project)).returncode == 0
    with daemon.client() as c:
        out = c.decide(POINT, {}, project=str(project))
    assert out.decision == "deny" and out.not_run == []


def test_a_global_file_invalid_at_start_with_no_accepted_version_is_named_in_every_decide(env, daemon_factory):
    path = env.write_global_hooks("hooks:\n  - name: guard\n     point: x\n")
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide(POINT, {})
        listing = c.list_hooks()
    (missing,) = out.not_run
    assert (missing.hook.source, missing.reason) == (str(path), "invalid_file")
    assert "no earlier version" in missing.message
    (rejected,) = listing.rejected
    assert rejected.file == str(path) and "its hooks are missing" in rejected.problems[-1]


def test_a_global_file_invalid_at_start_keeps_the_last_accepted_version(env, daemon_factory):
    path = env.write_global_hooks(GUARD)
    daemon = daemon_factory()
    assert reason(daemon) == "guarded"
    assert daemon.stop() == 0
    path.write_text("hooks:\n  - name: guard\n     point: x\n")  # broken while the daemon was down
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide(POINT, {})
        listing = c.list_hooks()
    assert out.decision == "deny" and out.reason == "guarded" and out.not_run == []
    assert [h.name for h in listing.hooks] == ["guard"]
    (rejected,) = listing.rejected
    assert rejected.file == str(path) and "in force: the version accepted" in rejected.problems[-1]
    (event,) = events(daemon, "hookd.config.rejected")
    assert event["in_force"].startswith("in force: the version accepted")
    # A later good edit replaces it as usual; deleting the file forgets the kept version.
    replace_file(path, hooks_file(deny_hook("guard", "v2")))
    wait_until(lambda: reason(daemon) == "v2")


def _hostile(project, kind: str) -> None:
    (project / ".hookd").mkdir(parents=True)
    target = project / ".hookd" / "hooks.yaml"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "huge":
        with open(target, "wb") as f:
            f.truncate(50 << 20)  # sparse: 50 MB on paper, nothing on disk
    else:
        target.symlink_to("/dev/zero")


def test_hostile_hook_files_are_refused_without_holding_the_daemon(env, daemon_factory, tmp_path):
    path = env.write_global_hooks(GUARD)
    daemon = daemon_factory()
    for kind, said in (("fifo", "not a regular file"), ("huge", "over the limit"), ("zero", "not a regular file")):
        project = tmp_path / kind
        _hostile(project, kind)
        with daemon.client(timeout=30) as c:  # a hang guard: the old daemon never answered
            out = c.decide(POINT, {}, project=str(project))
            assert out.decision == "deny" and out.reason == "guarded"  # the global guard still runs
            (missing,) = [n for n in out.not_run if n.hook.scope == "project"]
            assert missing.reason == "invalid_file" and said in missing.message
            (rejected,) = c.list_hooks(str(project)).rejected
            assert said in rejected.problems[0]
    # The watcher polled those files all along and is still alive: an edit takes effect.
    replace_file(path, hooks_file(deny_hook("guard", "edited")))
    wait_until(lambda: reason(daemon) == "edited")
    assert "Traceback" not in daemon.log()


def test_internal_events_do_not_load_projects(env, daemon_factory, tmp_path):
    project = tmp_path / "proj"
    write_project(project, GUARD)
    daemon = daemon_factory()
    with daemon.client() as c:
        c.attach_session("s1", [], project=str(project))  # publishes hookd.session.attached for the project
        assert [h.name for h in c.list_hooks().hooks] == []  # nothing loaded it
        assert c.decide(POINT, {}, session="s1").reason == "guarded"  # a call on it does
        assert [h.name for h in c.list_hooks().hooks] == ["guard"]
