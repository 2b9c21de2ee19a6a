"""Reading a blocking socket into one reusable buffer.

``sock.recv(n)`` allocates ``n`` bytes for every read and shrinks them to what
arrived; for a large ``n`` each read costs an mmap, an mremap and a munmap. A
reply to a call is a few hundred bytes, so a client reads into a buffer it keeps
(``recv_into``) and hands the frame decoder a view of what arrived.

A view is only good until the next read: decode the bodies ``FrameDecoder.feed``
returns before reading again (the decoder copies what it must keep).
"""

from __future__ import annotations

import socket


class Receiver:
    __slots__ = ("buf", "view")

    def __init__(self, size: int = 64 * 1024) -> None:
        self.buf = bytearray(size)  # a caller's fast path may read into it, then decode from ``view``
        self.view = memoryview(self.buf)

    def recv(self, sock: socket.socket) -> memoryview:
        """What one read got (empty at end of stream); raises what ``recv_into`` raises."""
        n = sock.recv_into(self.buf)
        return self.view[:n]
