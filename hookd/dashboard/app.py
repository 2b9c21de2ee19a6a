"""The dashboard's routes: the page, its static files, a snapshot, the live stream, and answers.

GET  /                       the page (``?token=`` once: answered with the cookie and a redirect to /)
GET  /static/NAME            the page's script and style, shipped in hookd/dashboard/static
GET  /api/state              everything the page shows, as JSON
GET  /api/events             server-sent events: ``snapshot`` first, then each change as it happens
POST /api/approvals/OFFER    ``{"decision": "allow"|"deny", "reason": "..."}``: answer a pending approval
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import msgspec
from hookd_client import HookdError

from hookd.dashboard import access
from hookd.dashboard.http import Response
from hookd.dashboard.link import Link

_STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}
_KEEPALIVE = 15.0  # seconds between comments on an idle stream, so a page that went away is noticed
_JOIN_WAIT = 5.0  # seconds a new page's snapshot waits for the dashboard to be an approver (the daemon may be down)
_JSON = "application/json"


def _static(name: str) -> bytes:
    return resources.files("hookd.dashboard").joinpath("static", name).read_bytes()


class App:
    def __init__(self, link: Link) -> None:
        self.link = link
        self.cookie = ""  # the Set-Cookie value, once the port (part of the cookie's name) is known

    async def handle(self, allowed: access.Allowed, body: bytes) -> Response:
        method, path = allowed.method, allowed.path
        if allowed.from_url:
            # The secret leaves the address bar (and the history) at once; the cookie carries it on.
            return Response(303, b"", headers=[("location", "/"), ("set-cookie", self.cookie)])
        if path == "/" and method == "GET":
            return Response(200, _static("index.html"), "text/html; charset=utf-8")
        if path.startswith("/static/") and method == "GET":
            name = path[len("/static/") :]
            if name in _STATIC:
                return Response(200, _static(name), _STATIC[name])
            return Response(404, b"no such file")
        if path == "/api/state" and method == "GET":
            return Response(200, msgspec.json.encode(self.link.snapshot()), _JSON)
        if path == "/api/events" and method == "GET":
            return Response(200, content_type="text/event-stream; charset=utf-8", stream=self._events())
        if path.startswith("/api/approvals/"):
            if method != "POST":
                return Response(405, b"answer with POST", headers=[("allow", "POST")])
            return await self._answer(path[len("/api/approvals/") :], body)
        return Response(404, b"no such page")

    async def _answer(self, offer_text: str, body: bytes) -> Response:
        try:
            offer = int(offer_text)
            data = json.loads(body or b"{}")
            decision = data.get("decision")
            reason = data.get("reason") or None
            if decision not in ("allow", "deny") or not (reason is None or isinstance(reason, str)) or offer < 1:
                raise ValueError
        except (ValueError, AttributeError):
            return _json(400, {"error": 'send {"decision": "allow"|"deny", "reason": "..."} to /api/approvals/OFFER'})
        try:
            await self.link.answer(offer, decision, reason)
        except HookdError as exc:
            status = {"conflict": 409, "not_found": 404}.get(exc.code, 502)
            return _json(status, {"error": exc.message, "code": exc.code})
        return _json(200, {"offer": offer, "decision": decision})

    async def _events(self) -> AsyncIterator[bytes]:
        link = self.link
        queue = link.listen()  # an open page makes the dashboard an approver
        try:
            # The snapshot says whether this page answers approvals: once it has arrived, calls that ask wait for it.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_JOIN_WAIT):
                    await link.approving.wait()
            yield _sse("snapshot", link.snapshot())
            while True:
                try:
                    async with asyncio.timeout(_KEEPALIVE):
                        item = await queue.get()
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                if item is None:
                    return  # this page fell behind (or the dashboard stops): its browser reconnects
                yield _sse(*item)
        finally:
            link.unlisten(queue)


def _sse(kind: str, data: Any) -> bytes:
    # JSON never holds a raw newline, so one data line carries the whole message.
    return b"event: " + kind.encode() + b"\ndata: " + msgspec.json.encode(data) + b"\n\n"


def _json(status: int, data: Any) -> Response:
    return Response(status, msgspec.json.encode(data), _JSON)
