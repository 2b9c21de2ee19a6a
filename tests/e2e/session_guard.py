"""The Node session guard (session_guard.mjs) as a context manager for the agents' end-to-end tests."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.integration.test_typescript_client import build_typescript_client

GUARD = Path(__file__).resolve().parent / "session_guard.mjs"
REASON = "the Node session guard forbids touch"


@contextmanager
def node_session_guard(
    environ: dict[str, str], ready_file: Path, point: str, start: str = "chat.message"
) -> Iterator[subprocess.Popen[bytes]]:
    """A Node program that attaches a decision hook at ``point`` to the first session with an event on ``start``
    (by default a chat message), denying any command with `touch`; it writes that session to ``ready_file`` once
    attached."""
    client = (Path(build_typescript_client()) / "dist" / "src" / "index.js").as_uri()
    guard = subprocess.Popen(["node", str(GUARD), client, str(ready_file), point, start], env=environ)
    try:
        yield guard
    finally:
        guard.send_signal(signal.SIGTERM)
        try:
            guard.wait(10)
        except subprocess.TimeoutExpired:
            guard.kill()
            guard.wait()


class LaterNodeGuard:
    """A Node session guard started by an agent's run itself, once the run's daemon is up (the run's ``started``):
    for the suites whose runs start the daemon after the model. Use it as a context manager around the run."""

    def __init__(self, environ: dict[str, str], ready_file: Path, point: str = "tool.approval.pre", start: str = "chat.message") -> None:
        self.args = (environ, ready_file, point, start)
        self.stack = ExitStack()
        self.guard: subprocess.Popen[bytes] | None = None

    def __call__(self) -> None:
        self.guard = self.stack.enter_context(node_session_guard(*self.args))

    def __enter__(self) -> LaterNodeGuard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()
