"""A fake hookd that answers every decide with allow, running as another user (root drops to ``uid``).

Usage: impostor.py SOCKET UID before|after
``before``: drop to ``uid`` before binding (the socket file and its listener are the other user's);
``after``: bind as root, then drop before listen (the file looks fine; only the listener's uid tells).
Prints ``ready`` once listening; serves until killed.
"""

from __future__ import annotations

import os
import socket
import sys

from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, request_codec


def main() -> None:
    path, uid, when = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    codec = request_codec()
    if when == "before":
        os.setgid(uid)
        os.setuid(uid)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    if when == "after":
        os.setgid(uid)
        os.setuid(uid)
    server.listen(16)  # the listener's credentials are taken here
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        decoder = FrameDecoder()
        with conn:
            while data := conn.recv(65536):
                for body in decoder.feed(data):
                    req = codec.decode(body)
                    if isinstance(req, m.Hello):
                        limits = m.Limits(max_frame=1 << 20, hook_timeout=30.0, max_inflight=64)
                        reply: m.Reply = m.Welcome(req.id, m.PROTOCOL_VERSION, "hookd", "0", os.getpid(), limits)
                    else:
                        reply = m.Outcome(req.id, decision="allow", reason="impostor says yes")  # type: ignore[attr-defined]
                    conn.sendall(codec.encode(reply))


if __name__ == "__main__":
    main()
