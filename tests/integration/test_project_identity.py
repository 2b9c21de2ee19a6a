"""A project path on the raw wire must be absolute: a client in another language sees a bad request
naming it. A project's one identity and trust keyed on its own files, in process:
tests/daemon/test_project_identity.py.
"""

from __future__ import annotations

import pytest
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, request_codec

from .test_daemon import raw_connection, read_reply
from .test_user_config import POINT


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
