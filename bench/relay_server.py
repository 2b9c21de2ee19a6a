"""The floor of a warm hook: a uvloop Unix-socket server with hookd's framing that echoes each
msgpack frame, or, for a frame that is a map with ``"relay"``, passes it to a worker process as
a JSON line (the worker protocol) and sends the worker's answer back as the reply. The worker's
pipes are read and written directly (``add_reader`` + ``os.read``/``os.write``), nothing else
runs per call: what a relayed call costs over an echoed one is the pipe round trip itself.

    relay_server.py SOCKET WORKER_ARGV...
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections import deque

import msgspec
import uvloop
from hookd_client.framing import frame

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.echo_server import Echo


class Relay(Echo):
    """The echo floor, with a frame that asks for it relayed to the worker."""

    def __init__(self, worker: Worker) -> None:
        super().__init__()
        self.worker = worker

    def data_received(self, data: bytes) -> None:
        out = bytearray()
        for body in self.decoder.feed(data):
            message = self.dec.decode(body)
            if isinstance(message, dict) and "relay" in message:
                self.worker.send(message["relay"], self.answered)
            else:
                out += frame(self.enc.encode(message))
        if out:
            self.transport.write(out)  # type: ignore[attr-defined]

    def answered(self, answer: object) -> None:
        self.transport.write(frame(self.enc.encode(answer)))  # type: ignore[attr-defined]


class Worker:
    def __init__(self, argv: list[str]) -> None:
        env = {**os.environ, "HOOKD_MODE": "persistent", "HOOKD_CONCURRENCY": "1"}
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin.fileno()
        self.stdout = self.proc.stdout.fileno()
        os.set_blocking(self.stdout, False)
        self.waiting: deque[tuple[int, object]] = deque()
        self.ids = 0
        self.buf = b""
        self.encode = msgspec.json.Encoder().encode
        self.decode = msgspec.json.Decoder().decode
        asyncio.get_running_loop().add_reader(self.stdout, self.readable)

    def send(self, request: dict[str, object], answered: object) -> None:
        self.ids += 1
        request["id"] = self.ids
        self.waiting.append((self.ids, answered))
        os.write(self.stdin, self.encode(request) + b"\n")

    def readable(self) -> None:
        data = os.read(self.stdout, 65536)
        if not data:
            raise SystemExit("the worker exited")
        *lines, self.buf = (self.buf + data).split(b"\n")
        for line in lines:
            answer = self.decode(line)
            _, answered = self.waiting.popleft()
            answered(answer)  # type: ignore[operator]


async def main(path: str, argv: list[str]) -> None:
    if os.path.exists(path):
        os.unlink(path)
    worker = Worker(argv)
    server = await asyncio.get_running_loop().create_unix_server(lambda: Relay(worker), path)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    uvloop.run(main(sys.argv[1], sys.argv[2:]))
