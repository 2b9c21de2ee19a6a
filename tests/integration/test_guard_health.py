"""Guards that hold: a configured decision hook that does not run is named in the outcome,
and a hostile hook file never holds the daemon.

Real daemons, real files (a FIFO, a sparse 50 MB file, a link to /dev/zero), real hook processes.
A guard named as not run (untrusted, invalid from the start) and projects that internal events do not
load, in process: tests/daemon/test_guard_health.py.
"""

from __future__ import annotations

import os

from .test_user_config import POINT, deny_hook, events, hooks_file, reason, replace_file, wait_until

GUARD = hooks_file(deny_hook("guard", "guarded"))


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
