"""Plugins (seed 004) through a real daemon and real plugin host processes."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hookd_client import Client, Event

from ..conftest import ROOT, Env

EXAMPLE = ROOT / "examples" / "plugins" / "json_format.py"


def plugin(directory: Path, name: str, source: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return path


def user_plugins(env: Env, name: str = "plugins") -> Path:
    return env.config / "hookd" / name


def eventually(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll ``check`` until it returns something truthy: a hang guard, not a speed assertion."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.1)


def plugin_events(env: Env, kind: str) -> list[dict[str, Any]]:
    """The payloads of the daemon's hookd.plugin.<kind> events, read back from the event stream (by the
    client in the test's own process: tests poll this, and a `hookd tail` process per look adds up)."""
    with Client(env.socket) as c:
        events = c.subscribe([f"hookd.plugin.{kind}"], since=0, follow=False, timeout=30)
        return [e.payload for e in events if isinstance(e, Event)][-1000:]


def sources(c: Client, point: str, project: str | None = None) -> list[str]:
    chain = c.explain(point, project=project)
    return [e.name for e in [*chain.decision_hooks, *chain.observers]]


MUTATIONS = """
from hookd_client import Block

def Mutator(ctx):
    def before(inp, out):
        out["args"]["command"] = out["args"]["command"].replace("rm -rf", "echo")
    async def after(inp, out):
        out["title"] = "edited " + out["title"]
        out["output"] = out["output"].upper()
        out["metadata"]["seen"] = True
    def params(inp, out):
        out["temperature"] = 0.2
        out["topP"] = 0.9
        out["topK"] = 40
    def headers(inp, out):
        out["headers"]["X-Proxy"] = "corp"
    def env(inp, out):
        out["env"]["FOO"] = "bar"
    def permission(inp, out):
        out["status"] = inp["wanted"]
    def definition(inp, out):
        out["description"] = out["description"] + " (reviewed)"
        out["parameters"]["properties"]["path"] = {"type": "string"}
    def message(inp, out):
        out["parts"].append({"type": "text", "text": "appended"})
    def system(inp, out):
        out["system"].append("be brief")
    def complete(inp, out):
        out["text"] = out["text"].strip()
    return {
        "tool.execute.before": before,
        "tool.execute.after": after,
        "chat.params": params,
        "chat.headers": headers,
        "shell.env": env,
        "permission.ask": permission,
        "tool.definition": definition,
        "chat.message": message,
        "experimental.chat.system.transform": system,
        "experimental.text.complete": complete,
    }
"""


def test_each_mutation_kind_comes_back_as_the_decision(env, daemon_factory):
    plugin(user_plugins(env), "mutator.py", MUTATIONS)
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        out = c.decide("tool.execute.before", {"tool": "bash", "sessionID": "s", "callID": "c", "args": {"command": "rm -rf /tmp/x"}})
        assert out.decision is None and out.modified_input == {"command": "echo /tmp/x"}
        assert out.modified_output is None and not out.errors

        payload = {"tool": "read", "args": {}, "output": {"title": "t", "output": "abc", "metadata": {"n": 1}}}
        out = c.decide("tool.execute.after", payload)
        assert out.modified_output == {"title": "edited t", "output": "ABC", "metadata": {"n": 1, "seen": True}}

        out = c.decide(
            "chat.params", {"sessionID": "s", "model": "m", "output": {"temperature": 1.0, "topP": 1.0, "topK": 0, "options": {}}}
        )
        assert out.modified_output == {"temperature": 0.2, "topP": 0.9, "topK": 40, "options": {}}

        # Without an "output" object the output is built from the payload's top level (per-event defaults).
        out = c.decide("chat.headers", {"sessionID": "s", "headers": {"A": "1"}})
        assert out.modified_output == {"headers": {"A": "1", "X-Proxy": "corp"}}
        out = c.decide("shell.env", {"cwd": "/"})
        assert out.modified_output == {"env": {"FOO": "bar"}}

        for wanted in ("allow", "deny"):
            out = c.decide("permission.ask", {"type": "bash", "wanted": wanted})
            assert out.decision == wanted and out.decided_by.scope == "global"
            assert out.reason == f"mutator.py:Mutator set status to {wanted!r}"
        out = c.decide("permission.ask", {"type": "bash", "wanted": "ask", "output": {"status": "allow"}})
        assert out.decision == "ask"
        out = c.decide("permission.ask", {"type": "bash", "wanted": "ask"})
        assert out.decision is None  # unchanged "ask": the plugin has no opinion

        out = c.decide("tool.definition", {"toolID": "read", "description": "Read a file", "parameters": {"properties": {}}})
        assert out.modified_output == {"description": "Read a file (reviewed)", "parameters": {"properties": {"path": {"type": "string"}}}}
        out = c.decide("chat.message", {"sessionID": "s", "message": {"id": "m1"}, "parts": []})
        assert out.modified_output == {"message": {"id": "m1"}, "parts": [{"type": "text", "text": "appended"}]}
        out = c.decide("experimental.chat.system.transform", {"model": "m", "system": ["you are helpful"]})
        assert out.modified_output == {"system": ["you are helpful", "be brief"]}
        out = c.decide("experimental.text.complete", {"sessionID": "s", "messageID": "m", "partID": "p", "text": "  hi  "})
        assert out.modified_output == {"text": "hi"}


def test_json_format_example_formats_once_and_then_leaves_the_file_alone(env, daemon_factory, tmp_path):
    user_plugins(env, "plugin").mkdir(parents=True)
    shutil.copy(EXAMPLE, user_plugins(env, "plugin") / "json_format.py")
    target = tmp_path / "test-plugin.json"
    target.write_text('{"plugin":"JsonFormatPlugin","test":{"input":"压缩的单行JSON","output":"格式化的多行JSON"}}\n')
    d = daemon_factory()
    with Client(d.socket) as c:
        # No reload_user_hooks() first: the first decide waits for the plugins' first load.
        payload = {"tool": "read", "sessionID": "s", "callID": "c1", "args": {"filePath": str(target)}}
        out = c.decide("tool.execute.after", {**payload, "output": {"title": "read", "output": "...", "metadata": {}}})
        assert not out.errors
        text = target.read_text()
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
        assert text.splitlines()[1] == '  "plugin": "JsonFormatPlugin",'
        before = target.stat().st_mtime_ns
        out = c.decide("tool.execute.after", {**payload, "callID": "c2", "output": {"title": "read", "output": "...", "metadata": {}}})
        assert not out.errors
        assert target.read_text() == text and target.stat().st_mtime_ns == before
        # Not a read, not a .json: untouched too.
        other = tmp_path / "x.json"
        other.write_text('{"a":1}')
        c.decide("tool.execute.after", {"tool": "write", "args": {"filePath": str(other)}})
        assert other.read_text() == '{"a":1}'


ORDER = """
def {name}(ctx):
    def system(inp, out):
        out["system"].append("{label}")
    return {{"experimental.chat.system.transform": system}}
"""


def test_order_files_exports_directories_and_scopes(env, daemon_factory, tmp_path):
    two = ORDER.format(name="First", label="a.py:First") + ORDER.format(name="Second", label="a.py:Second")
    plugin(user_plugins(env), "b.py", ORDER.format(name="Only", label="plugins/b.py"))
    plugin(user_plugins(env), "a.py", two)
    plugin(user_plugins(env, "plugin"), "z.py", ORDER.format(name="Z", label="plugin/z.py"))
    project = tmp_path / "repo"
    plugin(project / ".hookd" / "plugins", "p.py", ORDER.format(name="P", label="project"))
    env.env.pop("HOOKD_TRUST_ALL")  # so the project plugin runs because it was trusted
    assert env.hookd("trust", str(project)).returncode == 0
    d = daemon_factory()
    with Client(d.socket) as c:
        # The first call naming the project (here explain; decide likewise) waits for its plugins to load.
        assert sources(c, "experimental.chat.system.transform", str(project)) == [
            "plugins:experimental.chat.system.transform",
            "plugin:experimental.chat.system.transform",
            "plugins:experimental.chat.system.transform",
        ]
        out = c.decide("experimental.chat.system.transform", {"system": []}, project=str(project))
        assert out.modified_output == {"system": ["project", "plugin/z.py", "a.py:First", "a.py:Second", "plugins/b.py"]}
        out = c.decide("experimental.chat.system.transform", {"system": []}, project=str(project))
        assert out.modified_output == {"system": ["project", "plugin/z.py", "a.py:First", "a.py:Second", "plugins/b.py"]}
        out = c.decide("experimental.chat.system.transform", {"system": ["base"]})
        assert out.modified_output == {"system": ["base", "plugin/z.py", "a.py:First", "a.py:Second", "plugins/b.py"]}


def test_plugin_runs_before_plugins_whichever_loaded_first(env, daemon_factory):
    plugin(user_plugins(env), "b.py", ORDER.format(name="Late", label="plugins/b.py"))
    d = daemon_factory()
    with Client(d.socket) as c:
        point = "experimental.chat.system.transform"
        assert c.decide(point, {"system": []}).modified_output == {"system": ["plugins/b.py"]}
        # plugin/ appears only now, long after plugins/ loaded: it still runs first, as documented.
        plugin(user_plugins(env, "plugin"), "z.py", ORDER.format(name="Z", label="plugin/z.py"))
        out = eventually(lambda: len((o := c.decide(point, {"system": []})).modified_output["system"]) == 2 and o, "plugin/ to load")
        assert out.modified_output == {"system": ["plugin/z.py", "plugins/b.py"]}


BLOCK_VS_CRASH = """
from hookd_client import Block

def A_Crashes(ctx):
    def handler(inp, out):
        out["args"]["command"] = "crashed"   # discarded: the chain goes on with the output as it was
        raise ValueError("boom")
    return {"tool.execute.before": handler, "chat.response": lambda inp, out: (_ for _ in ()).throw(Block("not here"))}

def B_Edits(ctx):
    def handler(inp, out):
        out["args"]["command"] += " --dry-run"
        if "forbidden" in out["args"]["command"]:
            raise Block("forbidden command")
    return {"tool.execute.before": handler}

def C_After(ctx):
    def handler(inp, out):
        out["args"]["checked"] = True
    return {"tool.execute.before": handler}
"""


def test_block_denies_but_a_crash_is_only_an_error(env, daemon_factory):
    plugin(user_plugins(env), "guard.py", BLOCK_VS_CRASH)
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        out = c.decide("tool.execute.before", {"tool": "bash", "args": {"command": "ls"}})
        assert out.decision is None
        assert out.modified_input == {"command": "ls --dry-run", "checked": True}
        assert len(out.errors) == 1
        assert out.errors[0].hook.name == "plugins:tool.execute.before/guard.py:A_Crashes"
        assert "ValueError: boom" in out.errors[0].message

        out = c.decide("tool.execute.before", {"tool": "bash", "args": {"command": "forbidden"}})
        assert out.decision == "deny" and out.reason == "forbidden command"
        assert out.decided_by.name == "plugins:tool.execute.before"

        # Block on an event that cannot be blocked is an error, never a deny.
        accepted = c.emit("chat.response", {"tokens": 3}, wait=True)
        assert accepted.observers == 1
    events = eventually(lambda: len(e := plugin_events(env, "error")) >= 2 and e, "hookd.plugin.error events")
    messages = [e["message"] for e in events]
    assert any("ValueError: boom" in m for m in messages)
    assert any("cannot be blocked" in m for m in messages)
    assert "ValueError: boom" in d.log()


def test_a_plugin_that_never_returns_times_out_and_the_daemon_goes_on(env, daemon_factory):
    plugin(
        user_plugins(env),
        "sleeper.py",
        """
        import time

        def Sleeper(ctx):
            def forever(inp, out):
                time.sleep(10**6)
            def fine(inp, out):
                out["text"] = "still here"
            return {"permission.ask": forever, "experimental.text.complete": fine}
        """,
    )
    d = daemon_factory("--hook-timeout", "2")
    with Client(d.socket) as c:
        c.reload_user_hooks()
        out = c.decide("permission.ask", {"type": "bash"})
        assert out.decision is None
        assert [e.code for e in out.errors] == ["timeout"]
        assert c.status().hook_errors == 1
        # The blocked host was killed; the next call gets a fresh one.
        out = c.decide("experimental.text.complete", {"text": "x"})
        assert out.modified_output == {"text": "still here"} and not out.errors
        assert c.decide("tool.approval.pre", {}).decision is None


def test_requirements_are_installed_into_the_directory_venv(env, daemon_factory):
    pdir = user_plugins(env)
    (pdir).mkdir(parents=True)
    (pdir / "requirements.txt").write_text("six\n")
    plugin(
        pdir,
        "uses_six.py",
        """
        import six
        import sys

        def UsesSix(ctx):
            def handler(inp, out):
                out["text"] = f"{six.__name__} {six.__file__} {sys.prefix}"
            return {"experimental.text.complete": handler}
        """,
    )
    d = daemon_factory()
    with Client(d.socket, timeout=600) as c:
        c.reload_user_hooks()
        out = c.decide("experimental.text.complete", {"text": ""})
        assert not out.errors, out.errors
        name, six_file, prefix = out.modified_output["text"].split()
        envs = env.state / "hookd" / "plugin-envs"
        assert name == "six" and Path(six_file).is_relative_to(envs) and Path(prefix).is_relative_to(envs)
        assert d.log().count("installing plugin requirements") == 1

        # Editing a plugin file reuses the venv; changing requirements.txt reinstalls it.
        source = pdir / "uses_six.py"
        source.write_text(source.read_text().replace('f"{six.__name__}', 'f"edited-{six.__name__}'))
        eventually(lambda: c.decide("experimental.text.complete", {"text": ""}).modified_output["text"].startswith("edited-"), "reload")
        assert d.log().count("installing plugin requirements") == 1
        (pdir / "requirements.txt").write_text("six  # pinned by nobody\n")
        eventually(lambda: d.log().count("plugin requirements installed") == 2, "the reinstall", timeout=300)
        assert c.decide("experimental.text.complete", {"text": ""}).modified_output["text"].startswith("edited-six ")


def test_a_failed_install_is_reported_and_loads_nothing(env, daemon_factory):
    pdir = user_plugins(env)
    pdir.mkdir(parents=True)
    (pdir / "requirements.txt").write_text("this is not ( a requirement\n")
    plugin(pdir, "p.py", "def P(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(X='1')}\n")
    d = daemon_factory()
    with Client(d.socket, timeout=600) as c:
        c.reload_user_hooks()
        out = c.decide("shell.env", {})
        assert out.modified_output is None
        # Its guard is named as not run, never passed over in silence.
        assert [(n.hook.name, n.reason) for n in out.not_run] == [("plugins:shell.env", "plugin_failed")]
        assert "requirements.txt failed" in out.not_run[0].message
    (event,) = eventually(lambda: plugin_events(env, "error"), "an install error event")
    assert event["kind"] == "install" and "requirements.txt" in event["message"]
    assert "installing" in d.log() and "failed" in d.log()


def test_an_untrusted_project_plugin_loads_only_once_trusted(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")  # conftest trusts everything; this test is about trust
    project = tmp_path / "repo"
    source = plugin(project / ".hookd" / "plugin", "env.py", "def P(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(X='1')}\n")
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks(str(project))
        out = c.decide("shell.env", {}, project=str(project))
        # It never runs, and every call it would have seen says so.
        assert out.modified_output is None
        assert [(n.hook.name, n.reason) for n in out.not_run] == [("plugin:shell.env", "untrusted")], out
        assert "hookd trust" in out.not_run[0].message
        assert "not trusted" in d.log()
        r = env.hookd("plugins", "--project", str(project))
        assert "does NOT run: not trusted" in r.stdout
        (untrusted,) = plugin_events(env, "error")
        assert untrusted["kind"] == "untrusted" and "hookd trust" in untrusted["message"]

        r = env.hookd("trust", str(project))  # the same trust as the project's hook files
        assert r.returncode == 0, r.stderr
        assert "env.py" in r.stdout
        # While it loads, its guard is named as not loaded; then it runs.
        out = eventually(lambda: (o := c.decide("shell.env", {}, project=str(project))).modified_output and o, "the trusted plugin to load")
        assert out.modified_output == {"env": {"X": "1"}} and out.decided_by is None and not out.not_run

        assert "env.py" in env.hookd("untrust", str(project)).stdout
        eventually(lambda: c.decide("shell.env", {}, project=str(project)).not_run, "the untrusted plugin to unload")
        assert env.hookd("trust", str(source.parent)).returncode == 0
        eventually(lambda: c.decide("shell.env", {}, project=str(project)).modified_output, "the re-trusted plugin to load")

        # An edit untrusts it again: it stops running until it is trusted anew, and calls name it.
        source.write_text(source.read_text().replace("'1'", "'2'"))
        out = eventually(lambda: (o := c.decide("shell.env", {}, project=str(project))).not_run and o, "the edited plugin to unload")
        assert out.modified_output is None and [n.reason for n in out.not_run] == ["untrusted"], out


def test_editing_a_plugin_reloads_it_while_the_old_host_keeps_serving(env, daemon_factory):
    config_log = env.root / "config.jsonl"
    source = """
    import json, time
    time.sleep({delay})

    def Versioned(ctx):
        def config(cfg):
            open({log!r}, "a").write(json.dumps(cfg) + "\\n")
        def complete(inp, out):
            out["text"] = "v{version}"
        return {{"config": config, "experimental.text.complete": complete}}
    """
    path = plugin(user_plugins(env), "versioned.py", source.format(delay=0, version=1, log=str(config_log)))
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        assert c.decide("experimental.text.complete", {"text": ""}).modified_output == {"text": "v1"}
        path.write_text(textwrap.dedent(source.format(delay=1.5, version=2, log=str(config_log))))
        seen: list[str] = []

        def answer() -> bool:
            out = c.decide("experimental.text.complete", {"text": ""})
            assert not out.errors, out.errors
            seen.append(out.modified_output["text"])
            return seen[-1] == "v2"

        eventually(answer, "the edited plugin to take over")
        assert set(seen) <= {"v1", "v2"}
    configs = [json.loads(x) for x in config_log.read_text().splitlines()]
    assert len(configs) >= 2
    assert configs[0]["scope"] == "global" and configs[0]["directory"] == str(user_plugins(env))
    assert configs[0]["settings"]["hookTimeout"] == 30


def test_event_handlers_see_every_event_and_ctx_emits(env, daemon_factory):
    seen = env.root / "seen.jsonl"
    plugin(
        user_plugins(env),
        "watch.py",
        f"""
        import json

        def Watcher(ctx):
            def on_event(inp):
                ev = inp["event"]
                open({str(seen)!r}, "a").write(json.dumps(ev) + "\\n")
                if ev["type"] == "custom.ping":
                    ctx.emit("custom.pong", {{"from": ctx.directory}})
            return {{"event": on_event}}
        """,
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        c.emit("chat.finished", {"tokens": 10}, wait=True)
        c.decide("chat.params", {"temperature": 1})
        c.emit("custom.ping", {}, wait=True)
        c.attach_session("watched")
    types = eventually(
        lambda: (
            (t := [json.loads(x)["type"] for x in seen.read_text().splitlines()])
            and "custom.pong" in t
            and "hookd.session.attached" in t
            and t
        ),
        "custom.pong and an internal event to come through the bus",
    )
    assert {"chat.finished", "chat.params", "custom.ping", "custom.pong", "hookd.session.attached"} <= set(types)
    first = json.loads(seen.read_text().splitlines()[types.index("chat.finished")])
    assert first["properties"] == {"tokens": 10}


@pytest.mark.parametrize("bad", ["syntax error here(", "raise RuntimeError('import failed')"])
def test_a_broken_plugin_file_does_not_stop_its_neighbours(env, daemon_factory, bad):
    plugin(user_plugins(env), "a_broken.py", bad + "\n")
    plugin(user_plugins(env), "b_fine.py", "def P(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(OK='1')}\n")
    plugin(user_plugins(env), "c_typo.py", "def P(ctx):\n    return {'shell.envv': lambda i, o: None}\n")
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        assert c.decide("shell.env", {}).modified_output == {"env": {"OK": "1"}}
    assert "a_broken.py" in d.log()
    assert "unknown hook point 'shell.envv'; did you mean shell.env" in d.log()
    assert os.path.exists(d.socket)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_stopping_the_daemon_leaves_no_plugin_host_and_sessions_keep_state(env, daemon_factory):
    plugin(
        user_plugins(env),
        "pid.py",
        """
        import os

        def Pid(ctx):
            def env(inp, out):
                state = ctx.sessions.get(inp.get("sessionID"))
                state["calls"] = state.get("calls", 0) + 1
                out["env"].update(HOST_PID=str(os.getpid()), CALLS=str(state["calls"]))
            return {"shell.env": env}
        """,
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        first = c.decide("shell.env", {"sessionID": "a"}).modified_output["env"]
        assert c.decide("shell.env", {"sessionID": "a"}).modified_output["env"]["CALLS"] == "2"
        assert c.decide("shell.env", {"sessionID": "b"}).modified_output["env"]["CALLS"] == "1"
    pid = int(first["HOST_PID"])
    assert _running(pid)
    assert d.stop() == 0
    eventually(lambda: not _running(pid), "the plugin host to be gone after the daemon stopped")
    assert "drain time is up" not in d.log()  # an idle host ends on its own; the stop does not wait it out


def test_a_host_that_keeps_dying_is_marked_failed_until_its_file_changes(env, daemon_factory):
    source = plugin(
        user_plugins(env),
        "dies.py",
        """
        import os

        def Dies(ctx):
            def env(inp, out):
                os._exit(3)
            return {"shell.env": env}
        """,
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        first = c.decide("shell.env", {})
        assert first.decision is None and "exited with status 3" in first.errors[0].message

        def gave_up() -> bool:
            out = c.decide("shell.env", {})
            assert out.decision is None and len(out.errors) + len(out.not_run) == 1
            # Once marked failed, its guard is named as not run (plugin_failed), no longer tried.
            return bool(out.not_run) and out.not_run[0].reason == "plugin_failed" and "marked failed" in out.not_run[0].message

        eventually(gave_up, "the host to be marked failed")
        source.write_text(source.read_text().replace("os._exit(3)", "out['env']['FIXED'] = '1'"))
        eventually(lambda: c.decide("shell.env", {}).modified_output == {"env": {"FIXED": "1"}}, "the edited plugin to load")
    assert "marked failed" in d.log()


def test_underscore_files_are_helpers_not_plugins(env, daemon_factory):
    d_ = user_plugins(env)
    plugin(d_, "_util.py", "def shout(s):\n    return s.upper()\n")
    plugin(d_, "loud.py", "import _util\n\ndef Loud(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(MODE=_util.shout('x'))}\n")
    d = daemon_factory()
    with Client(d.socket) as c:
        c.reload_user_hooks()
        assert c.decide("shell.env", {}).modified_output == {"env": {"MODE": "X"}}
        errors = list(c.subscribe(["hookd.plugin.error"], since=0, follow=False, timeout=30))
    assert errors == []


def test_events_emitted_while_plugins_first_load_reach_them(env, daemon_factory):
    seen = env.root / "responses.txt"
    plugin(
        user_plugins(env),
        "meter.py",
        f"def Meter(ctx):\n    return {{'chat.response': lambda i, o: open({str(seen)!r}, 'a').write(str(i.get('tokens')) + '\\n')}}\n",
    )
    d = daemon_factory()
    with Client(d.socket) as c:  # at once: the user plugins' host is still starting
        first = c.emit("chat.response", {"tokens": 7}, wait=True)
        c.emit("chat.response", {"tokens": 8})
    assert first.observers == 1 and first.errors == []
    assert eventually(lambda: seen.exists() and seen.read_text().split() == ["7", "8"] and True, "both responses metered")
