"""Writing hooks from the terminal: init, edit (as visudo), check's caret, help, points --example, explain --payload."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys

import yaml
from hookd_client import Client

from hookd.config.validator import validate
from hookd.core import points

from ..conftest import HOOKD, write_script

HANG_GUARD = 30.0


def test_init_writes_guards_that_check_accepts_and_a_command_guard_that_denies_only_rm_rf_root(env, daemon_factory, tmp_path):
    r = env.hookd("init", "--global")
    assert r.returncode == 0, r.stderr
    path = env.config / "hookd" / "hooks.yaml"
    assert path.exists() and str(path) in r.stdout
    text = path.read_text()
    assert text.count("\n#") + text.count("  #") >= 5  # commented
    r = env.hookd("check", str(path))
    assert r.returncode == 0 and "ok, 3 hooks (guards, no-rm-root, log-tools)" in r.stdout, r.stdout
    again = env.hookd("init", "--global")
    assert again.returncode == 1 and "exists" in again.stderr and path.read_text() == text
    d = daemon_factory()
    with Client(d.socket) as c:
        # hookd's own guards come first and refuse it by rule; with them off, the command guard does.
        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "rm -rf /"}})
        assert out.decision == "deny" and out.decided_by.name == "guards" and out.reason.startswith("files.")
        c.disable_hook("guards")
        for tool, command in (("Bash", "rm -rf /"), ("execute_command", "ls && rm -fr / ")):
            out = c.decide("tool.approval.pre", {"toolName": tool, "args": {"command": command}})
            assert out.decision == "deny" and out.decided_by.name == "no-rm-root" and not out.errors
        for payload in (
            {"toolName": "Bash", "args": {"command": "rm -rf build/"}},
            {"toolName": "Read", "args": {"path": "/etc/hosts"}},
            {},
            json.loads(env.hookd("points", "--example", "tool.approval.pre").stdout),
        ):
            out = c.decide("tool.approval.pre", payload)
            assert out.decision is None and not out.errors and not out.not_run, payload
    assert env.hookd("init", "--stdout").stdout == text


def test_project_init_says_how_to_trust(env, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    r = env.hookd("init", "-p", str(project))
    assert r.returncode == 0 and f"hookd trust {project}" in r.stdout
    assert (project / ".hookd" / "hooks.yaml").exists()


def _editor(tmp_path, body: str):  # type: ignore[no-untyped-def]
    """An $EDITOR: a real program that edits the file it is given; each run appends its argument to a log."""
    return write_script(
        tmp_path / "editor.py",
        f"""
        import sys, pathlib
        target = pathlib.Path(sys.argv[1])
        log = pathlib.Path({str(tmp_path / "editor.log")!r})
        runs = log.read_text().count("\\n") if log.exists() else 0
        log.write_text((log.read_text() if log.exists() else "") + sys.argv[1] + "\\n")
        {body}
        """,
    )


VALID = "hooks:\n  - name: a\n    point: custom.a\n    type: observer\n    command: /bin/true\n    enabled: true\n"
INVALID = "hooks:\n  - name: a\n    point: custom.a\n    type: decison\n    command: /bin/true\n    enabled: true\n"


def test_edit_saves_a_valid_copy_in_one_step(env, tmp_path):
    target = env.config / "hookd" / "hooks.yaml"
    editor = _editor(tmp_path, f"target.write_text({VALID!r})")
    env.env["VISUAL"] = str(editor)
    r = env.hookd("edit")  # no file yet: starts from init's, lands in the global file
    assert r.returncode == 0 and "saved, valid" in r.stdout, r.stderr
    assert target.read_text() == VALID
    edited = (tmp_path / "editor.log").read_text().split()
    assert len(edited) == 1 and edited[0] != str(target)  # the editor got a copy, not the file
    assert not os.path.exists(edited[0])  # and the copy is gone
    r = env.hookd("edit", "--json")  # saved again unchanged
    assert r.returncode == 0 and json.loads(r.stdout)["changed"] is False and "no changes" in r.stderr


def test_edit_refuses_an_invalid_copy_without_a_terminal(env, tmp_path):
    target = env.config / "hookd" / "hooks.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(VALID)
    env.env["EDITOR"] = str(_editor(tmp_path, f"target.write_text({INVALID!r})"))
    r = env.hookd("edit", str(target), "--json")
    assert r.returncode == 1
    assert target.read_text() == VALID
    out = json.loads(r.stdout)
    assert out["valid"] is False and out["problems"][0]["field"] == "type"
    assert "4:11" in r.stderr and "    type: decison" in r.stderr and "^" in r.stderr and "is unchanged" in r.stderr


def test_edit_on_a_terminal_reopens_an_invalid_copy_until_it_is_fixed(env, tmp_path):
    target = tmp_path / "hooks.yaml"
    target.write_text(VALID)
    # First save is invalid; the second run (the re-opened editor) fixes it.
    editor = _editor(tmp_path, f"target.write_text({INVALID!r} if runs == 0 else {VALID.replace('custom.a', 'custom.b')!r})")
    env.env["EDITOR"] = str(editor)
    master, slave = pty.openpty()
    proc = subprocess.Popen([*HOOKD, "edit", str(target)], env=env.env, stdin=slave, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    try:
        while b"What now?" not in seen:
            ready, _, _ = select.select([master], [], [], HANG_GUARD)
            assert ready, seen
            seen += os.read(master, 4096)
        assert target.read_text() == VALID  # nothing saved yet
        os.write(master, b"e\n")
        out, _ = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert proc.returncode == 0 and b"saved, valid" in out
    assert "custom.b" in target.read_text()
    assert (tmp_path / "editor.log").read_text().count("\n") == 2


def test_check_shows_the_line_and_a_caret_under_the_column(env, tmp_path):
    bad = tmp_path / "hooks.yaml"
    bad.write_text("hooks:\n  - name: 中文\n    point: custom.a\n    type: decison\n    command: /bin/true\n    enabled: true\n")
    r = env.hookd("check", str(bad))
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{bad}:4:11:"))
    assert lines[at + 1] == "   4 |     type: decison"
    assert lines[at + 2] == "     |           ^"
    assert lines[at + 1].index("decison") == lines[at + 2].index("^")
    assert "^" not in env.hookd("check", "--no-source", str(bad)).stdout


def test_help_topics_match_what_hookd_accepts(env):
    r = env.hookd("help")
    assert r.returncode == 0 and "hooks" in r.stdout and "exit-codes" in r.stdout and "tail" in r.stdout
    hooks = env.hookd("help", "hooks").stdout
    sample = hooks[hooks.index("\nhooks:\n") : hooks.index("\nFields:")]
    assert [s.name for s in validate(sample, "help.yaml")] == ["no-rm-root"]  # the sample in the help is valid
    for field in ("name", "point", "type", "command", "enabled", "match", "on_error"):
        assert f"  {field}" in hooks
    listed = env.hookd("help", "points").stdout
    assert all(name in listed for name in points.POINTS)
    assert "hooks.d" in env.hookd("help", "files").stdout
    assert env.hookd("help", "tail").stdout == env.hookd("tail", "--help").stdout
    r = env.hookd("help", "hoks")
    assert r.returncode == 4 and "did you mean hooks" in r.stderr


def test_every_point_has_an_example_that_decide_and_explain_accept(env, daemon):
    examples = {}
    for name in points.POINTS:
        r = env.hookd("points", "--example", name)
        assert r.returncode == 0, name
        examples[name] = json.loads(r.stdout)
        assert isinstance(examples[name], dict) and examples[name], name
    with Client(daemon.socket) as c:
        for name, payload in examples.items():
            c.emit(name, payload)
            if points.POINTS[name].kind == "decision":
                assert c.decide(name, payload).decision is None
    assert json.loads(env.hookd("points", "--example", "custom.mine").stdout) == {}


def test_explain_with_a_payload_marks_the_hooks_whose_match_skips_it(env, daemon_factory, tmp_path):
    env.write_global_hooks(
        """
        hooks:
          - {name: bash-only, point: tool.approval.pre, type: decision, command: /bin/true, enabled: true,
             match: {toolName: '^Bash$', args.command: 'git'}}
          - {name: every, point: tool.approval.pre, type: decision, command: /bin/true, enabled: true, priority: -1}
          - {name: quiet, point: tool.approval.pre, type: observer, command: /bin/true, enabled: false}
        """
    )
    daemon_factory()
    r = env.hookd("explain", "tool.approval.pre", "--payload", '{"toolName": "Bash", "args": {"command": "ls"}}')
    assert r.returncode == 0, r.stderr
    rows = {line.split()[3]: line for line in r.stdout.splitlines() if line.startswith("  ")}
    assert rows["bash-only"].split()[0] == "skipped" and "match args.command: 'git' does not match (got 'ls')" in rows["bash-only"]
    assert rows["every"].split()[0] == "runs"
    assert rows["quiet"].split()[0] == "off"
    r = env.hookd("explain", "tool.approval.pre", "--payload", "-", input='{"toolName": "Bash", "args": {"command": "git push"}}')
    assert [line.split()[0] for line in r.stdout.splitlines() if line.startswith("  ")] == ["runs", "runs", "off"]
    r = env.hookd("explain", "tool.approval.pre", "--payload", '{"args": {}}', "--json")
    why = {h["name"]: h["why"] for h in json.loads(r.stdout)["decision_hooks"]}
    assert "the payload has no such field" in why["bash-only"]
    # Without --payload: the chain as before, no verdicts.
    plain = env.hookd("explain", "tool.approval.pre").stdout
    assert "skipped" not in plain and "bash-only" in plain
    # A session's hooks are marked too.
    with Client(env.socket) as c:
        spec = {"name": "writes", "point": "tool.approval.pre", "type": "decision", "command": "/bin/true"}
        spec["match"] = {"toolName": "^Write$"}
        c.attach_session("s1", [spec])
        r = env.hookd("explain", "tool.approval.pre", "-s", "s1", "--payload", '{"toolName": "Bash"}')
    rows = {line.split()[3]: line.split()[0] for line in r.stdout.splitlines() if line.startswith("  ")}
    assert rows["writes"] == "skipped" and rows["every"] == "runs"


def test_the_yaml_sample_files_are_yaml(env):
    assert [h["name"] for h in yaml.safe_load(env.hookd("init", "--stdout").stdout)["hooks"]] == ["guards", "no-rm-root", "log-tools"]
    assert sys.executable
