"""Text others wrote (payloads, hook answers, hook files) never reaches the terminal as control sequences."""

from __future__ import annotations

import json

from hookd_client import Client

from ..conftest import write_script

OSC52 = "\x1b]52;c;cHduZWQ=\x07"  # sets the clipboard to "pwned" on terminals that honour it
CSI_C1 = "\x9b2J"  # clear screen, with the one-byte C1 introducer
HOSTILE = f"ls {OSC52} {CSI_C1} \x7f end"


def _no_controls(text: str, allow_colour: bool = False) -> None:
    if allow_colour:
        # hookd's own SGR colour codes are ESC [ digits m; nothing else may start with ESC.
        import re

        text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    assert not bad, f"control characters reached the output: {bad!r} in {text!r}"


def test_tail_escapes_control_sequences_from_payloads(env, daemon, tmp_path):
    guard = write_script(
        tmp_path / "guard.py",
        f"""
        import json, sys
        json.load(sys.stdin)
        print(json.dumps({{"decision": "deny", "reason": {json.dumps("because " + OSC52)}}}))
        """,
    )
    with Client(daemon.socket) as c:
        c.attach_session("s\x1b]0;title\x07", [{"name": "guard", "point": "tool.approval.pre", "type": "decision", "command": str(guard)}])
        c.emit("custom.paste", {"text": HOSTILE, OSC52: 1}, session="s\x1b]0;title\x07")
        c.decide("tool.approval.pre", {"toolName": "Bash", "args": {"command": HOSTILE}}, session="s\x1b]0;title\x07")
    for colour in ("never", "always"):
        r = env.hookd("tail", "--since", "1h", "--color", colour)
        assert r.returncode == 0, r.stderr
        assert "custom.paste" in r.stdout and "tool.approval.pre" in r.stdout, r.stdout
        _no_controls(r.stdout, allow_colour=True)
        assert "\\x1b]52;c;cHduZWQ=\\x07" in r.stdout  # shown, escaped, so the user sees what was there
        assert "\\x9b2J" in r.stdout and "\\x7f" in r.stdout
        assert "because \\x1b]52" in r.stdout
    assert "\x1b[" in env.hookd("tail", "--since", "1h", "--color", "always").stdout  # our colours still work

    r = env.hookd("tail", "--since", "1h", "--json")
    assert r.returncode == 0, r.stderr
    _no_controls(r.stdout)
    events = [json.loads(line) for line in r.stdout.splitlines()]  # still valid JSON, the text intact
    paste = next(e for e in events if e["point"] == "custom.paste")
    assert paste["payload"]["text"] == HOSTILE


def test_decide_and_hooks_escape_hook_provided_text(env, daemon, tmp_path):
    guard = write_script(
        tmp_path / "guard.py",
        f"""
        import json, sys
        json.load(sys.stdin)
        print(json.dumps({{"decision": "deny", "reason": {json.dumps(HOSTILE)}}}))
        """,
    )
    env.write_global_hooks(
        f"""
        hooks:
          - name: guard
            point: tool.approval.pre
            type: decision
            enabled: true
            command: {guard}
            description: {json.dumps("desc " + OSC52)}
        """
    )
    with Client(daemon.socket) as c:
        c.reload_user_hooks()
    r = env.hookd("decide", "tool.approval.pre", "--payload", json.dumps({"args": {"command": HOSTILE}}))
    assert r.returncode == 0, r.stderr
    _no_controls(r.stdout)
    assert json.loads(r.stdout)["reason"] == HOSTILE

    r = env.hookd("hooks", "--json")
    assert r.returncode == 0, r.stderr
    _no_controls(r.stdout)
    assert json.loads(r.stdout)["hooks"][0]["description"] == "desc " + OSC52

    # An edit that is rejected: `hookd hooks` quotes the file's problems.
    env.write_global_hooks(
        'hooks:\n  - name: guard\n    point: "tool.\\e]52;c;cHduZWQ=\\a"\n    type: decision\n    enabled: true\n    command: x\n'
    )
    with Client(daemon.socket) as c:
        try:
            c.reload_user_hooks()
        except Exception as exc:  # config_invalid: the previous version stays in force
            assert "rejected" in str(exc)
    r = env.hookd("hooks")
    assert r.returncode == 0, r.stderr
    assert "rejected" in r.stdout, r.stdout
    _no_controls(r.stdout)

    # A daemon error that quotes what the caller sent.
    r = env.hookd("decide", f"custom.{OSC52}")
    _no_controls(r.stdout + r.stderr)


def test_check_escapes_file_content_it_quotes(env, tmp_path):
    bad = tmp_path / "hooks.yaml"
    bad.write_text(
        'hooks:\n  - name: "x\\e]52;c;cHduZWQ=\\a"\n    point: "tool.\\e]52;c;cHduZWQ=\\a"\n    type: observer\n    command: "\\x9b2J"\n'
    )
    for extra in ((), ("--json",)):
        r = env.hookd("check", str(bad), *extra)
        assert r.returncode == 1, r.stdout + r.stderr
        _no_controls(r.stdout + r.stderr)
        assert "52;c;cHduZWQ=" in r.stdout
