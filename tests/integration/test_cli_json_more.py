"""--json on `hookd plugins`, `hookd bridge install/uninstall` and `hookd import`: real files, a real daemon."""

from __future__ import annotations

import json
from pathlib import Path

SETTINGS = {
    "model": "claude-sonnet-4-6",
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 check.py"}]}]},
}


def _json(r):  # type: ignore[no-untyped-def]
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_plugins_json_with_and_without_the_daemon(env, daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    plugins = env.config / "hookd" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "p.py").write_text("def P(ctx):\n    return {'shell.env': lambda i, o: o['env'].update(X='1')}\n")
    project = tmp_path / "repo"
    (project / ".hookd" / "plugins").mkdir(parents=True)
    (project / ".hookd" / "plugins" / "q.py").write_text("def Q(ctx):\n    return {}\n")
    env.env.pop("HOOKD_TRUST_ALL")

    out = _json(env.hookd("plugins", "--json", "--project", str(project)))
    assert out["daemon_running"] is False
    assert str(plugins) in out["looked_in"]
    rows = {row["scope"]: row for row in out["plugins"]}
    assert rows["global"]["files"] == ["p.py"] and rows["global"]["may_run"] is True and rows["global"]["daemon"] is None
    assert rows["project"]["may_run"] is False and "trust" in rows["project"]["why"]

    daemon = daemon_factory()
    with daemon.client() as c:
        assert c.decide("shell.env", {}).modified_output == {"env": {"X": "1"}}  # the global plugin loaded
    out = _json(env.hookd("plugins", "--json", "--project", str(project)))
    assert out["daemon_running"] is True
    (row,) = [r for r in out["plugins"] if r["scope"] == "global"]
    assert row["daemon"]["state"] == "loaded" and row["daemon"]["pid"] > 0


def test_bridge_install_and_uninstall_json(env, tmp_path):  # type: ignore[no-untyped-def]
    settings = tmp_path / "settings.json"
    out = _json(env.hookd("bridge", "install", "--settings", str(settings), "--command", "/opt/hookd/bin/hookd", "--json"))
    assert (out["agent"], out["action"], out["settings"], out["ok"]) == ("claude-code", "install", str(settings), True)
    assert out["message"].startswith("installed the hookd bridge in")
    assert "PreToolUse" in json.loads(settings.read_text())["hooks"]

    again = _json(env.hookd("bridge", "install", "--settings", str(settings), "--command", "/opt/hookd/bin/hookd", "--json"))
    assert "nothing changed" in again["message"]

    out = _json(env.hookd("bridge", "uninstall", "--settings", str(settings), "--json"))
    assert (out["action"], out["ok"]) == ("uninstall", True) and out["message"].startswith("removed the hookd bridge")

    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    r = env.hookd("bridge", "install", "--settings", str(bad), "--command", "hookd", "--json")
    assert r.returncode == 1 and r.stderr.startswith("hookd: ")
    assert json.loads(r.stdout)["ok"] is False


def test_import_json_prints_moves_and_undoes(env, tmp_path):  # type: ignore[no-untyped-def]
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(SETTINGS))
    original = settings.read_bytes()

    out = _json(env.hookd("import", "claude-code", str(settings), "--json"))
    assert out["agent"] == "claude-code" and out["output"] is None and out["moved"] is False
    (hook,) = out["hooks"]
    assert hook["point"] == "tool.approval.pre" and hook["format"] == "claude-code"
    assert "hooks:" in out["yaml"]
    assert settings.read_bytes() == original  # without -o nothing changes

    target = tmp_path / "hooks.yaml"
    out = _json(env.hookd("import", "claude-code", str(settings), "-o", str(target), "--json"))
    assert out["output"] == str(target) and out["moved"] is True
    assert Path(out["original_kept_in"]).read_bytes() == original
    assert target.read_text() == out["yaml"]
    assert "hooks" not in json.loads(settings.read_text())

    out = _json(env.hookd("import", "claude-code", "--undo", str(settings), "--json"))
    assert out["undone"] is True and out["messages"]
    assert settings.read_bytes() == original
