"""Drop-in directories: hooks.d/*.yaml beside every hooks.yaml, global and project."""

from __future__ import annotations

from .test_user_config import POINT, deny_hook, events, hooks_file, reason, replace_file, wait_until


def _names(daemon, project=None):  # type: ignore[no-untyped-def]
    with daemon.client() as c:
        return [(h.name, h.source) for h in c.list_hooks(str(project) if project else None).hooks]


def _listing(daemon, project=None):  # type: ignore[no-untyped-def]
    """What `hookd hooks --json` lists, read by the client in the test's own process: tests poll it."""
    with daemon.client() as c:
        return c.list_hooks(str(project) if project else None)


def _rejected(daemon):  # type: ignore[no-untyped-def]
    return _listing(daemon).rejected


def _chain(daemon, project=None):  # type: ignore[no-untyped-def]
    with daemon.client() as c:
        return [h.name for h in c.explain(POINT, project=str(project) if project else None).decision_hooks]


def test_global_dropins_load_after_hooks_yaml_in_name_order(env, daemon_factory):
    main = env.write_global_hooks(hooks_file(deny_hook("main", "main")))
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir()
    (dropins / "20-b.yaml").write_text(hooks_file(deny_hook("b", "b")))
    (dropins / "10-a.yaml").write_text(hooks_file(deny_hook("a", "a")))
    (dropins / ".10-hidden.yaml").write_text(hooks_file(deny_hook("hidden", "hidden")))
    (dropins / "notes.txt").write_text("not a hook file\n")
    daemon = daemon_factory()
    assert _chain(daemon) == ["main", "a", "b"]  # same priority: file order, hooks.yaml first, then drop-ins by name
    assert reason(daemon) == "main"
    sources = dict(_names(daemon))
    assert sources == {"main": str(main), "a": str(dropins / "10-a.yaml"), "b": str(dropins / "20-b.yaml")}
    r = env.hookd("hooks")
    assert r.returncode == 0
    line = next(x for x in r.stdout.splitlines() if " a " in x)
    assert line.endswith(str(dropins / "10-a.yaml"))
    r = env.hookd("check")
    assert r.returncode == 0 and f"{dropins / '10-a.yaml'}: ok, 1 hook (a)" in r.stdout, r.stdout
    assert ".10-hidden" not in r.stdout and "notes.txt" not in r.stdout


def test_a_dropin_added_edited_and_removed_while_running(env, daemon_factory):
    env.write_global_hooks(hooks_file(deny_hook("main", "main", priority=-5)))
    daemon = daemon_factory()
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir()  # the directory itself did not exist when the daemon started
    added = dropins / "50-new.yaml"
    replace_file(added, hooks_file(deny_hook("new", "new")))
    wait_until(lambda: reason(daemon) == "new")
    replace_file(added, hooks_file(deny_hook("new", "new v2")))
    wait_until(lambda: reason(daemon) == "new v2")
    added.unlink()
    wait_until(lambda: reason(daemon) == "main")
    assert [n for n, _ in _names(daemon)] == ["main"]


def test_each_dropin_is_validated_on_its_own_and_keeps_its_last_accepted_version(env, daemon_factory):
    env.write_global_hooks(hooks_file(deny_hook("main", "main", priority=-5)))
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir()
    good = dropins / "10-good.yaml"
    good.write_text(hooks_file(deny_hook("good", "good v1", priority=5)))
    daemon = daemon_factory()
    assert reason(daemon) == "good v1"
    replace_file(good, "hooks:\n  - name: good\n     point: x\n")  # broken
    with_problem = wait_until(lambda: _rejected(daemon))
    assert with_problem[0].file == str(good)
    assert reason(daemon) == "good v1"  # its previous version stays in force
    assert {n for n, _ in _names(daemon)} == {"main", "good"}  # the other files are untouched
    r = env.hookd("check")
    assert r.returncode == 1 and f"{good}:3:" in r.stdout and "ok, 1 hook (main)" in r.stdout
    daemon.stop()
    # Broken while the daemon is down: the version last accepted stands in at start.
    again = daemon_factory()
    assert reason(again) == "good v1"


def test_names_are_unique_across_a_scopes_dropins(env, daemon_factory):
    env.write_global_hooks(hooks_file(deny_hook("guard", "main")))
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir()
    (dropins / "10-dup.yaml").write_text(hooks_file(deny_hook("guard", "dup")))
    daemon = daemon_factory()
    assert reason(daemon) == "main"
    r = env.hookd("check")
    assert r.returncode == 1 and "duplicate hook name in this scope: 'guard'" in r.stdout


def test_project_dropins_are_trusted_and_listed_file_by_file(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "proj"
    dropins = project / ".hookd" / "hooks.d"
    dropins.mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(hooks_file(deny_hook("p-main", "p-main", priority=-1)))
    (dropins / "10-extra.yaml").write_text(hooks_file(deny_hook("p-extra", "p-extra")))
    daemon = daemon_factory()
    assert reason(daemon, project) is None  # untrusted: neither runs
    r = env.hookd("trust", str(project))
    assert r.returncode == 0 and str(dropins / "10-extra.yaml") in r.stdout
    wait_until(lambda: reason(daemon, project) == "p-extra")
    assert _chain(daemon, project) == ["p-extra", "p-main"]
    # A drop-in added later is a new file: untrusted until trusted, as an edit would be.
    (dropins / "05-late.yaml").write_text(hooks_file(deny_hook("p-late", "p-late", priority=9)))
    untrusted = wait_until(lambda: [h for h in _listing(daemon, project).hooks if h.name == "p-late"])
    assert untrusted[0].trusted is False and untrusted[0].source == str(dropins / "05-late.yaml")
    assert reason(daemon, project) == "p-extra"
    assert env.hookd("trust", str(project)).returncode == 0
    wait_until(lambda: reason(daemon, project) == "p-late")


def test_a_dropin_added_while_running_takes_its_place_in_name_order(env, daemon_factory):
    env.write_global_hooks(hooks_file(deny_hook("main", "main")))
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir()
    (dropins / "20-b.yaml").write_text(hooks_file(deny_hook("b", "b")))
    daemon = daemon_factory()
    assert _chain(daemon) == ["main", "b"]
    replace_file(dropins / "10-a.yaml", hooks_file(deny_hook("a", "a")))
    wait_until(lambda: _chain(daemon) == ["main", "a", "b"])
    replace_file(dropins / "20-b.yaml", hooks_file(deny_hook("b", "b v2")))  # an edit keeps the file's place
    b = str(dropins / "20-b.yaml")
    wait_until(lambda: [e for e in events(daemon, "hookd.config.reloaded") if e["file"] == b and e["changed"] == ["b"]])
    assert _chain(daemon) == ["main", "a", "b"]
    assert reason(daemon) == "main"
