"""`hookd bridge install codex --trust`: trust hookd's own hooks through Codex itself.

Codex runs a user's hook only once it was trusted, and files that trust in config.toml under
`[hooks.state."KEY"] trusted_hash = "sha256:..."`, where the hash is Codex's own over the hook's definition.
hookd never computes that hash: it asks Codex (`codex app-server`, the JSON-RPC interface its own
clients use) for the hooks it sees (`hooks/list`: each with its `key`, `currentHash` and `trustStatus`),
and hands back, for exactly the hooks install wrote (this file, the bridge's command), the hash Codex
gave (`config/batchWrite`), as Codex's `/hooks` screen does when a person trusts them. It then lists
again and reports only what Codex now says is trusted. The app-server is marked experimental by Codex:
when it is missing or answers otherwise, nothing is trusted and the command says how to do it by hand.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from typing import Any

DEADLINE = 60.0  # seconds for the whole exchange; Codex's start is most of it


class TrustError(Exception):
    """Codex could not be asked, or did not trust the hooks; the message says why."""


class _Server:
    def __init__(self, codex: str, environ: dict[str, str], cwd: str) -> None:
        try:
            self.proc = subprocess.Popen(
                [codex, "app-server"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=environ,
                cwd=cwd,
                text=True,
            )
        except OSError as exc:
            raise TrustError(f"cannot start `{codex} app-server`: {exc.strerror or exc}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.deadline = time.monotonic() + DEADLINE
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise TrustError(f"Codex's app-server stopped: {exc}") from None

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            left = self.deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                raise TrustError(f"Codex's app-server did not answer {method} within {DEADLINE:g} s") from None
            if line is None:
                raise TrustError(f"Codex's app-server exited before it answered {method}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == self.next_id:
                if "error" in message:
                    raise TrustError(f"Codex refused {method}: {message['error'].get('message', message['error'])}")
                return message.get("result")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _ours(hooks: list[dict[str, Any]], path: str, commands: set[str]) -> list[dict[str, Any]]:
    sources = {os.path.abspath(path), os.path.realpath(path)}
    return [h for h in hooks if h.get("sourcePath") in sources and h.get("command") in commands and h.get("handlerType") == "command"]


def _listed(server: _Server, cwd: str) -> list[dict[str, Any]]:
    result = server.call("hooks/list", {"cwds": [cwd]})
    data = result.get("data") if isinstance(result, dict) else None
    return [h for entry in data or [] if isinstance(entry, dict) for h in entry.get("hooks") or [] if isinstance(h, dict)]


def trust(codex: str, path: str, commands: set[str], environ: dict[str, str] | None = None, cwd: str | None = None) -> int:
    """Trust the hooks at ``path`` that run one of ``commands``; the number Codex now reports trusted."""
    env = dict(os.environ if environ is None else environ)
    where = cwd or os.getcwd()
    server = _Server(codex, env, where)
    try:
        server.call("initialize", {"clientInfo": {"name": "hookd", "version": "1"}})
        server.send({"method": "initialized"})
        ours = _ours(_listed(server, where), path, commands)
        if not ours:
            raise TrustError(f"Codex does not list the hooks in {path} (is this the configuration Codex reads?)")
        edits = [
            {"keyPath": f"hooks.state.{json.dumps(h['key'])}", "mergeStrategy": "upsert", "value": {"trusted_hash": h["currentHash"]}}
            for h in ours
            if h.get("trustStatus") != "trusted" and isinstance(h.get("key"), str) and isinstance(h.get("currentHash"), str)
        ]
        if edits:
            server.call("config/batchWrite", {"edits": edits})
        now = _ours(_listed(server, where), path, commands)
        trusted = sum(1 for h in now if h.get("trustStatus") == "trusted")
        if trusted < len(now):
            raise TrustError(f"Codex reports {trusted} of hookd's {len(now)} hooks trusted after the write")
        return trusted
    finally:
        server.close()
