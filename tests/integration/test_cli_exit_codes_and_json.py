"""Every command's exit code and --json, against a real daemon (docs/cli.md, "Exit codes")."""

from __future__ import annotations

import json

import pytest

from ..conftest import write_script

GUARD = """
hooks:
  - name: guard
    point: tool.approval.pre
    type: decision
    command: {script}
    enabled: true
    match:
      toolName: '^Bash$'
"""


@pytest.fixture
def setup(env, daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    script = write_script(tmp_path / "deny.py", 'print(\'{"decision": "deny", "reason": "no"}\')\n')
    env.write_global_hooks(GUARD.format(script=script))
    project = tmp_path / "proj"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(GUARD.format(script=script).replace("guard", "pguard"))
    return daemon_factory(), project


def _json(r):  # type: ignore[no-untyped-def]
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_every_command_that_prints_has_json(env, setup, tmp_path):
    daemon, project = setup
    p = str(project)
    assert _json(env.hookd("emit", "custom.x", "--json"))["observers"] == 0
    assert _json(env.hookd("decide", "tool.approval.pre", "--json", "--payload", '{"toolName": "Bash"}'))["decision"] == "deny"
    chain = _json(env.hookd("explain", "tool.approval.pre", "--json", "-p", p, "--payload", '{"toolName": "Read"}'))
    assert [(h["name"], h["verdict"]) for h in chain["decision_hooks"]] == [("pguard", "skipped"), ("guard", "skipped")]
    assert _json(env.hookd("status", "--json"))["pid"] == daemon.proc.pid
    assert any(row["name"] == "tool.approval.pre" for row in _json(env.hookd("points", "--json")))
    assert "toolName" in _json(env.hookd("points", "--example", "tool.approval.pre"))
    assert _json(env.hookd("check", "--json", "-p", p))["valid"] is True
    assert {h["name"] for h in _json(env.hookd("hooks", "--json", "-p", p))["hooks"]} == {"guard", "pguard"}
    assert _json(env.hookd("disable", "guard", "--json")) == {"name": "guard", "enabled": False, "project": None, "hooks": 1}
    assert _json(env.hookd("enable", "guard", "--json"))["enabled"] is True
    assert [f["file"] for f in _json(env.hookd("trust", p, "--json"))] == [str(project / ".hookd" / "hooks.yaml")]
    assert [f["file"] for f in _json(env.hookd("untrust", p, "--json"))] == [str(project / ".hookd" / "hooks.yaml")]
    r = env.hookd("tail", "--json", "--no-follow", "--point", "custom.x")
    assert r.returncode == 0 and [json.loads(line)["point"] for line in r.stdout.splitlines()] == ["custom.x"]
    assert "checks" in json.loads(env.hookd("doctor", "--json", "-p", p).stdout)
    assert "hooks" in _json(env.hookd("help", "--json"))["topics"]
    assert "hooks:" in _json(env.hookd("help", "hooks", "--json"))["text"]
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert _json(env.hookd("init", "--json", "-p", str(fresh)))["file"] == str(fresh / ".hookd" / "hooks.yaml")
    assert "hookd.service" in _json(env.hookd("install-systemd", "--print", "--json"))["units"]
    done = _json(env.hookd("install-systemd", "--unit-dir", str(tmp_path / "units"), "--json"))
    assert done["next"] and all(f["file"].startswith(str(tmp_path / "units")) for f in done["files"])
    assert "status" in env.hookd("completion", "--list", "commands").stdout.split()


def test_exit_codes_tell_usage_from_unreachable_from_unknown(env, setup, tmp_path):
    daemon, _ = setup
    unknown = [
        ("emit", "tool.nope"),
        ("decide", "tool.aproval.pre"),
        ("explain", "nope"),
        ("enable", "no-such-hook"),
        ("disable", "no-such-hook"),
        ("points", "--example", "nope"),
        ("help", "no-such-topic"),
        ("untrust", str(tmp_path)),
    ]
    for args in unknown:
        r = env.hookd(*args)
        assert r.returncode == 4, (args, r.returncode, r.stderr)
        assert r.stderr.startswith("hookd: ") and "Traceback" not in r.stderr
    r = env.hookd("decide", "tool.aproval.pre")
    assert "did you mean tool.approval.pre" in r.stderr
    usage = [
        ("decide", "tool.approval.pre", "--payload", "[1]"),
        ("explain", "tool.approval.pre", "--payload", "{"),
        ("tail", "--since", "yesterday"),
        ("frobnicate",),
        ("completion",),
        ("completion", "tcsh"),
        ("serve", "--hook-timeout", "-1"),
        (),
    ]
    for args in usage:
        r = env.hookd(*args)
        assert r.returncode == 2, (args, r.returncode, r.stderr)
    bad = tmp_path / "bad.yaml"
    bad.write_text("hooks: 3\n")
    assert env.hookd("check", str(bad)).returncode == 1
    assert env.hookd("decide", "tool.approval.pre", "--payload", '{"toolName": "Bash"}').returncode == 0  # denied, and 0
    daemon.stop()
    for args in (("status",), ("hooks",), ("emit", "custom.x"), ("enable", "guard"), ("explain", "tool.approval.pre"), ("tail", "-f")):
        r = env.hookd(*args)
        assert r.returncode == 3, (args, r.returncode, r.stderr)
        assert "no hookd daemon is listening" in r.stderr
    assert env.hookd("help", "exit-codes").stdout.count("\n") >= 6
