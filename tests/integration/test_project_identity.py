"""A project has one identity, and trust is keyed on a project's own files.

Real daemons, real symlinks, real hook processes.
"""

from __future__ import annotations

import json

import pytest
from hookd_client import HookdError
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, request_codec

from .test_daemon import raw_connection, read_reply
from .test_user_config import POINT, deny_hook, hooks_file, reason, write_project


def test_untrust_through_a_symlinked_project_path_stops_its_hooks(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    (tmp_path / "real" / "proj").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    project = tmp_path / "link" / "proj"
    write_project(project, hooks_file(deny_hook("guard", "v1")))
    daemon = daemon_factory()
    assert env.hookd("trust", str(project)).returncode == 0
    assert reason(daemon, project) == "v1"
    r = env.hookd("untrust", str(project))
    assert r.returncode == 0, r.stderr
    assert reason(daemon, project) is None  # the guard does not run any more
    assert reason(daemon, tmp_path / "real" / "proj") is None  # under either spelling


def test_both_spellings_of_a_project_are_one_project(env, daemon_factory, tmp_path):
    (tmp_path / "real" / "proj").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    write_project(tmp_path / "real" / "proj", hooks_file(deny_hook("guard", "v1")))
    daemon = daemon_factory()
    with daemon.client() as c:
        c.disable_hook("guard", project=str(tmp_path / "link" / "proj" / "."))
        assert c.decide(POINT, {}, project=str(tmp_path / "real" / "proj")).decision is None
        listed = c.list_hooks(str(tmp_path / "link" / "proj")).hooks
    assert [h.owner for h in listed] == [str(tmp_path / "real" / "proj")]


def test_a_hook_file_symlinked_to_a_trusted_projects_file_is_not_trusted(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    trusted, intruder = tmp_path / "trusted", tmp_path / "intruder"
    text = f"hooks:\n  - {{name: guard, point: {POINT}, type: decision, command: /bin/sh, args: [./check.sh], enabled: true}}\n"
    write_project(trusted, text)
    for where, said in ((trusted, "trusted"), (intruder, "intruder")):
        answer = json.dumps({"decision": "deny", "reason": said})
        (where / "check.sh").parent.mkdir(parents=True, exist_ok=True)
        (where / "check.sh").write_text(f"cat >/dev/null\necho '{answer}'\n")
    (intruder / ".hookd").mkdir(parents=True)
    (intruder / ".hookd" / "hooks.yaml").symlink_to(trusted / ".hookd" / "hooks.yaml")
    daemon = daemon_factory()
    assert env.hookd("trust", str(trusted)).returncode == 0
    assert reason(daemon, trusted) == "trusted"
    assert reason(daemon, intruder) is None  # the intruder's own script never runs
    with daemon.client() as c:
        (info,) = c.list_hooks(str(intruder)).hooks
    assert not info.trusted and "not trusted" in info.trust


def test_a_hook_directory_symlinked_to_a_trusted_projects_directory_is_not_trusted(env, daemon_factory, tmp_path):
    env.env.pop("HOOKD_TRUST_ALL")
    trusted, intruder = tmp_path / "trusted", tmp_path / "intruder"
    write_project(trusted, hooks_file(deny_hook("guard", "v1")))
    intruder.mkdir()
    (intruder / ".hookd").symlink_to(trusted / ".hookd")
    daemon = daemon_factory()
    assert env.hookd("trust", str(trusted)).returncode == 0
    assert reason(daemon, trusted) == "v1"
    assert reason(daemon, intruder) is None


def test_a_nul_byte_in_a_project_path_is_a_bad_request_naming_it(env, daemon):
    with daemon.client() as c:
        for call in (
            lambda: c.decide(POINT, {}, project="/tmp/with\0nul"),
            lambda: c.emit(POINT, {}, project="/tmp/with\0nul"),
            lambda: c.list_hooks("/tmp/with\0nul"),
            lambda: c.trust("/tmp/with\0nul"),
            lambda: c.untrust("/tmp/with\0nul"),
        ):
            with pytest.raises(HookdError) as caught:
                call()
            assert caught.value.code == "bad_request" and "NUL byte" in caught.value.message
        assert c.decide(POINT, {}).decision is None  # still serving


@pytest.mark.parametrize("project", ["relative/dir", ""])
def test_a_relative_project_path_is_a_bad_request(daemon, project):
    s = raw_connection(daemon.socket)
    dec = FrameDecoder()
    codec = request_codec()
    s.sendall(codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "raw")))
    assert isinstance(read_reply(s, dec), m.Welcome)
    for req in (m.Decide(2, POINT, {}, None, project), m.ListHooks(3, project), m.Trust(4, project)):
        s.sendall(codec.encode(req))
        reply = read_reply(s, dec)
        assert isinstance(reply, m.Error) and reply.code == "bad_request" and "path" in reply.message, reply
    s.close()
