"""Plugin guards that hold: across reloads, disposes, failed installs, edits after trust, hostile files.

Real daemons, real plugin hosts, real pip (fed through a FIFO so that an install
is held open, or failed, exactly when the test says). Waits are polls with
generous hang guards, never speed assertions.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hookd_client import Client

from ..conftest import write_script
from .test_plugins import eventually, plugin, plugin_events, user_plugins


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Fifo:
    """A FIFO a requirements.txt includes (``-r FIFO``): pip blocks on it until the test writes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self.fd: int | None = None

    def wait_reader(self, timeout: float = 300.0) -> None:
        """Until pip has opened the FIFO (its install is under way); we then hold the write end."""
        deadline = time.monotonic() + timeout
        while self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:
                    raise
                if time.monotonic() > deadline:
                    raise AssertionError("pip never read the requirements FIFO") from None
                time.sleep(0.05)

    def feed(self, text: str) -> None:
        """Write the included requirements and close: pip goes on with them."""
        self.wait_reader()
        assert self.fd is not None
        os.set_blocking(self.fd, True)
        os.write(self.fd, text.encode())
        os.close(self.fd)
        self.fd = None


@pytest.fixture
def fifos():  # type: ignore[no-untyped-def]
    """Make FIFOs; at the end, a pip still blocked on one gets EOF, so no test leaves it behind."""
    made: list[Fifo] = []

    def make(path: Path) -> Fifo:
        made.append(Fifo(path))
        return made[-1]

    yield make
    for f in made:
        if f.fd is not None:
            os.close(f.fd)
        else:
            with contextlib.suppress(OSError):
                os.close(os.open(f.path, os.O_WRONLY | os.O_NONBLOCK))


def outcome_names(out: Any) -> list[tuple[str, str]]:
    return [(n.hook.name, n.reason) for n in out.not_run]


# ---------------------------------------------------------------- leases


def test_a_decide_in_flight_across_a_plugin_reload_is_answered_by_the_old_host(env, daemon_factory, tmp_path):
    started, gate, pids = tmp_path / "started", tmp_path / "gate", tmp_path / "pids"
    step = write_script(
        tmp_path / "step.py",
        f"""
        import os, sys, time
        sys.stdin.read()
        open({str(started)!r}, "w").close()
        deadline = time.monotonic() + 120
        while not os.path.exists({str(gate)!r}) and time.monotonic() < deadline:
            time.sleep(0.02)
        print('{{"decision": "continue"}}')
        """,
    )
    env.write_global_hooks(
        f"hooks:\n  - {{name: slow, point: permission.ask, type: decision, command: {step}, priority: 10, timeout: 120, enabled: true}}\n"
    )
    guard = """
    import os
    VERSION = {version!r}
    open({pids!r}, "a").write(f"{{VERSION}} {{os.getpid()}}\\n")

    def Guard(ctx):
        def ask(inp, out):
            out["status"] = "deny" if VERSION == "v1" else "allow"
        return {{"permission.ask": ask}}
    """
    path = plugin(user_plugins(env), "guard.py", guard.format(version="v1", pids=str(pids)))
    d = daemon_factory()

    def host_pid(version: str) -> int | None:
        for line in pids.read_text().splitlines() if pids.exists() else []:
            v, pid = line.split()
            if v == version:
                return int(pid)
        return None

    result: dict[str, Any] = {}
    with Client(d.socket, timeout=300) as c:
        c.reload_user_hooks()
        old_pid = eventually(lambda: host_pid("v1"), "the v1 host")

        def in_flight() -> None:
            with Client(d.socket, timeout=300) as c2:
                result["out"] = c2.decide("permission.ask", {"type": "bash"})

        thread = threading.Thread(target=in_flight)
        thread.start()
        eventually(started.exists, "the decide to be under way")
        path.write_text(textwrap.dedent(guard.format(version="v2", pids=str(pids))))
        eventually(lambda: len(plugin_events(env, "loaded")) >= 2, "the edited plugin to be swapped in")
        # The old host is now either stopped (it was not leased) or retiring (held by the call).
        eventually(
            lambda: not _running(old_pid) or "plugin host retiring" in d.log(),
            "the old host to be stopped or to wait for its lease",
        )
        gate.touch()
        thread.join(300)
        out = result["out"]
        assert out.decision == "deny", out
        assert out.reason == "guard.py:Guard set status to 'deny'" and not out.errors and not out.not_run
        # Released: the old host goes; a call planned now gets the new one.
        eventually(lambda: not _running(old_pid), "the retired host to stop once its lease was released")
        assert c.decide("permission.ask", {"type": "bash"}).decision == "allow"


def test_disposing_a_project_during_its_first_plugin_load_leaves_no_hooks_and_no_host(env, daemon_factory, tmp_path):
    gate, pid_file = tmp_path / "gate", tmp_path / "pid"
    project = tmp_path / "repo"
    plugin(
        project / ".hookd" / "plugins",
        "slow.py",
        f"""
        import os, time
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        deadline = time.monotonic() + 120
        while not os.path.exists({str(gate)!r}) and time.monotonic() < deadline:
            time.sleep(0.02)

        def Guard(ctx):
            return {{"permission.ask": lambda i, o: o.update(status="deny")}}
        """,
    )
    d = daemon_factory()
    with Client(d.socket, timeout=120) as c:
        baseline = c.status().hooks
        # The project's plugins start loading; the reload answers once that load is over.
        reloaded = threading.Event()

        def reload() -> None:
            with Client(d.socket, timeout=120) as c2:
                c2.reload_user_hooks(str(project))
            reloaded.set()

        threading.Thread(target=reload, daemon=True).start()
        pid = int(eventually(lambda: pid_file.exists() and pid_file.read_text(), "the project's host to be importing"))
        c.dispose_project(str(project))
        gate.touch()
        eventually(lambda: not _running(pid), "the host of the disposed project to be gone")
        assert reloaded.wait(120)
        assert c.status().hooks == baseline
        assert plugin_events(env, "loaded") == []


# ---------------------------------------------------------------- installs


GUARD = """
def Guard(ctx):
    def ask(inp, out):
        out["status"] = "deny"
    return {"permission.ask": ask}
"""


def test_a_directory_installing_or_failed_holds_back_no_other_and_its_guard_is_named(env, daemon_factory, tmp_path, fifos):
    fifo = fifos(tmp_path / "more-requirements")
    slow = user_plugins(env, "plugin")  # runs first
    plugin(slow, "a_guard.py", GUARD)
    (slow / "requirements.txt").write_text(f"-r {fifo.path}\n")
    plugin(user_plugins(env), "b_guard.py", GUARD)
    d = daemon_factory("--hook-timeout", "5")
    with Client(d.socket, timeout=300) as c:
        # plugin/ is installing (pip waits on the FIFO); plugins/ loads anyway and its guard decides,
        # and every outcome names the guard of plugin/ as not loaded.
        def other_loaded() -> Any:
            out = c.decide("permission.ask", {"type": "bash"})
            assert ("plugin:permission.ask", "not_loaded") in outcome_names(out), out
            return out.decision == "deny" and out

        out = eventually(other_loaded, "plugins/ to load while plugin/ installs", timeout=120)
        assert out.decided_by.name == "plugins:permission.ask"
        # Status and `hookd plugins` say which directory installs and which one serves.
        states = {p.directory: p for p in c.status().plugins}
        assert states[str(slow)].state == "installing" and states[str(slow)].progress, states
        assert states[str(user_plugins(env))].state == "loaded" and states[str(user_plugins(env))].pid > 0, states
        listed = env.hookd("plugins").stdout
        assert "daemon: installing requirements (" in listed and "daemon: loaded (host pid" in listed, listed

        fifo.feed("this is not ( a requirement\n")
        (event,) = eventually(lambda: plugin_events(env, "error"), "the install error", timeout=300)
        assert event["kind"] == "install" and event["directory"] == str(slow)
        out = c.decide("permission.ask", {"type": "bash"})
        assert outcome_names(out) == [("plugin:permission.ask", "plugin_failed")]
        assert "requirements.txt failed" in out.not_run[0].message and out.decision == "deny"
        failed = {p.directory: p for p in c.status().plugins}[str(slow)]
        assert failed.state == "failed" and "Invalid requirement" in failed.error, failed
        assert "daemon: FAILED: " in env.hookd("plugins").stdout
    assert d.stop() == 0

    # A restart does not try the same requirements again: the failure is remembered (pip would
    # block on the FIFO, and the guard would be "not_loaded").
    d2 = daemon_factory("--hook-timeout", "5")
    with Client(d2.socket, timeout=300) as c:
        out = c.decide("permission.ask", {"type": "bash"})
        assert outcome_names(out) == [("plugin:permission.ask", "plugin_failed")]
        assert "remembered" in out.not_run[0].message
        assert "installing plugin requirements" not in d2.log()

        # An explicit reload tries again.
        done = threading.Event()
        threading.Thread(target=lambda: (c.reload_user_hooks(), done.set()), daemon=True).start()
        fifo.feed("# nothing more\n")
        assert done.wait(300)
        out = c.decide("permission.ask", {"type": "bash"})
        assert out.decision == "deny" and out.decided_by.name == "plugin:permission.ask" and not out.not_run


# ---------------------------------------------------------------- trust


def test_a_plugin_file_changed_after_the_trust_check_never_runs(env, daemon_factory, tmp_path, fifos):
    env.env.pop("HOOKD_TRUST_ALL")
    marker = tmp_path / "evil-ran"
    fifo = fifos(tmp_path / "more-requirements")
    project = tmp_path / "repo"
    pdir = project / ".hookd" / "plugins"
    source = plugin(pdir, "p.py", GUARD)
    (pdir / "requirements.txt").write_text(f"-r {fifo.path}\n")
    assert env.hookd("trust", str(project)).returncode == 0
    d = daemon_factory()
    with Client(d.socket, timeout=300) as c:
        c.emit("custom.hello", {}, project=str(project))
        fifo.wait_reader()  # trust was checked; the install is under way, the host not started yet
        source.write_text(f"open({str(marker)!r}, 'w').close()\n" + GUARD.replace("deny", "allow"))
        fifo.feed("# nothing more\n")
        eventually(lambda: any(e["kind"] == "untrusted" for e in plugin_events(env, "error")), "the edit to untrust it")
        assert not marker.exists(), "code nobody trusted ran"
        assert c.decide("permission.ask", {"type": "bash"}, project=str(project)).decision != "allow"
    loaded = plugin_events(env, "loaded")
    assert len(loaded) <= 1 and all(e["directory"] == str(pdir) for e in loaded)


def test_a_module_in_a_subpackage_is_covered_by_trust(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "repo"
    pdir = project / ".hookd" / "plugins"
    plugin(pdir, "p.py", "from rules.words import WORD\n\ndef P(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(WORD=WORD)}\n")
    plugin(pdir / "rules", "__init__.py", "")
    words = plugin(pdir / "rules", "words.py", "WORD = 'v1'\n")
    r = env.hookd("trust", str(project))
    assert r.returncode == 0 and "rules/words.py" in r.stdout, r.stdout + r.stderr
    d = daemon_factory()
    with Client(d.socket) as c:
        eventually(lambda: c.decide("shell.env", {}, project=str(project)).modified_output == {"env": {"WORD": "v1"}}, "the plugin")
        words.write_text("WORD = 'v2'\n")

        def untrusted() -> bool:
            out = c.decide("shell.env", {}, project=str(project))
            assert out.modified_output != {"env": {"WORD": "v2"}}, "an untrusted module ran"
            return out.modified_output is None

        eventually(untrusted, "the edited subpackage to untrust the directory")
    assert "rules/words.py" in env.hookd("plugins", "--project", str(project)).stdout


def test_a_file_name_that_is_not_utf8_is_reported_and_breaks_nothing(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "repo"
    pdir = project / ".hookd" / "plugins"
    plugin(pdir, "ok.py", "def P(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(OK='1')}\n")
    with open(os.fsencode(pdir) + b"/bad\xff.py", "w") as f:
        f.write("raise SystemExit('never imported')\n")
    r = env.hookd("trust", str(project))
    assert r.returncode == 0, r.stderr
    assert "ok.py" in r.stdout
    d = daemon_factory()
    with Client(d.socket) as c:
        seen = []
        eventually(lambda: c.decide("shell.env", {}, project=str(project)).modified_output == {"env": {"OK": "1"}}, "ok.py")
        c.emit("custom.after", {"n": 1}, project=str(project))
        errors = eventually(lambda: [e for e in plugin_events(env, "error") if e["kind"] == "file"], "the file to be reported")
        assert "bad\\xff.py" in errors[0]["message"] and "not valid UTF-8" in errors[0]["message"]
        # The stream carried it, and what came after it.
        for ev in c.subscribe(["hookd.plugin.error", "custom.after"], since=0, follow=False, timeout=30):
            seen.append(ev.point)
        assert "hookd.plugin.error" in seen and "custom.after" in seen


def test_a_module_at_the_project_root_is_never_imported_by_the_host(env, daemon_factory, tmp_path):
    marker = tmp_path / "trap-ran"
    project = tmp_path / "repo"
    project.mkdir()
    (project / "json.py").write_text(f"open({str(marker)!r}, 'w').close()\nfrom importlib import import_module\n")
    plugin(
        project / ".hookd" / "plugins",
        "where.py",
        """
        import json, os, sys

        def Where(ctx):
            def env(inp, out):
                out["env"].update(CWD=os.getcwd(), PROJECT=ctx.project, DIR=ctx.directory, JSON=json.__file__)
            return {"shell.env": env}
        """,
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        out = c.decide("shell.env", {}, project=str(project))
    assert not out.errors and not out.not_run, out
    where = out.modified_output["env"]
    assert not marker.exists(), "a module at the project root was imported inside the host"
    assert where["PROJECT"] == str(project) and where["DIR"] == str(project / ".hookd" / "plugins")
    assert not Path(where["CWD"]).is_relative_to(project) and not Path(where["JSON"]).is_relative_to(project)


# ---------------------------------------------------------------- answers


def test_a_plugin_answer_the_wire_cannot_carry_is_a_handler_error(env, daemon_factory):
    plugin(
        user_plugins(env),
        "odd.py",
        """
        def Odd(ctx):
            def big(inp, out):
                out["env"]["BIG"] = 2 ** 70
            def deep(inp, out):
                v = "x"
                for _ in range(100):
                    v = [v]
                out["text"] = v
            return {"shell.env": big, "experimental.text.complete": deep}
        """,
    )
    d = daemon_factory()
    with Client(d.socket, timeout=60) as c:
        c.reload_user_hooks()
        out = c.decide("shell.env", {})
        assert out.modified_output is None and [e.code for e in out.errors] == ["error"]
        assert "64 bits" in out.errors[0].message and out.errors[0].hook.name == "plugins:shell.env"
        out = c.decide("experimental.text.complete", {"text": ""})
        assert out.modified_output is None and "nested deeper" in out.errors[0].message
        assert c.decide("chat.headers", {"headers": {}}).decision is None  # the connection still serves
    assert json.loads(json.dumps(plugin_events(env, "loaded")))[0]["directory"] == str(user_plugins(env))


def test_a_disposed_session_leaves_no_state_in_the_host(env, daemon_factory):
    plugin(
        user_plugins(env),
        "count.py",
        """
        def Count(ctx):
            def env(inp, out):
                state = ctx.sessions.get(inp.get("sessionID"))
                state["calls"] = state.get("calls", 0) + 1
                out["env"]["CALLS"] = str(state["calls"])
            return {"shell.env": env}
        """,
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        c.attach_session("s1")

        def calls() -> str:
            return c.decide("shell.env", {"sessionID": "s1"}, session="s1").modified_output["env"]["CALLS"]

        assert calls() == "1" and calls() == "2"
        eventually(lambda: c.status().subscribers >= 1, "the host to follow session disposals")
        c.dispose_session("s1")
        c.attach_session("s1")
        # The host drops the state once it hears of the disposal; the session starts afresh.
        eventually(lambda: calls() == "1", "the disposed session's state to be dropped")
