"""Who may use the dashboard, decided from the request head alone (pure functions).

Order matters: a request for another host name (DNS rebinding: a web page's name resolved to
127.0.0.1) and one sent by another web page (its Origin) are refused before the secret is looked
at. The secret arrives once in the URL (``?token=``, as the command prints it), is then kept in an
HttpOnly, SameSite=Strict cookie, and the page is reloaded without it in the address bar.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

COOKIE_PREFIX = "hookd_dashboard_"


class Refusal(NamedTuple):
    status: int
    message: str


class Allowed(NamedTuple):
    method: str
    path: str
    from_url: bool  # the secret came in the URL: answer with the cookie and a redirect


class Site(NamedTuple):
    """What requests are checked against: the port served and the secret."""

    port: int
    token: str

    @property
    def hosts(self) -> frozenset[str]:
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.hosts)

    @property
    def cookie(self) -> str:
        # Cookies are not kept apart by port: two dashboards on two ports each keep their own.
        return f"{COOKIE_PREFIX}{self.port}"

    def set_cookie(self) -> str:
        return f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"


def check(site: Site, method: bytes, target: bytes, headers: Iterable[tuple[bytes, bytes]]) -> Refusal | Allowed:
    host: list[str] = []
    origin: list[str] = []
    cookies: list[str] = []
    for name, value in headers:  # h11 gives names lower-cased
        if name == b"host":
            host.append(value.decode("latin-1"))
        elif name == b"origin":
            origin.append(value.decode("latin-1"))
        elif name == b"cookie":
            cookies.append(value.decode("latin-1"))
    if len(host) != 1 or host[0].lower() not in site.hosts:
        return Refusal(403, f"the Host header must be 127.0.0.1:{site.port} or localhost:{site.port}")
    verb = method.decode("ascii", "replace")
    if origin and (len(origin) != 1 or origin[0].lower() not in site.origins):
        return Refusal(403, "requests from other web pages (their Origin header) are refused")
    if verb not in ("GET", "HEAD") and not origin:
        return Refusal(403, "a request that changes something must come from the dashboard's page (Origin header)")
    url = urlsplit(target.decode("latin-1"))
    given = parse_qs(url.query).get("token", [])
    if _matches(_cookie(cookies, site.cookie), site.token):
        return Allowed(verb, url.path, False)
    if len(given) == 1 and _matches(given[0], site.token):
        return Allowed(verb, url.path, verb == "GET")
    return Refusal(403, "missing or wrong secret: open the URL `hookd dashboard` printed (it ends in ?token=...)")


def _matches(presented: str | None, token: str) -> bool:
    # Compared in constant time; a missing secret compares an empty one and never matches.
    return hmac.compare_digest((presented or "").encode(), token.encode()) and bool(presented)


def _cookie(headers: list[str], name: str) -> str | None:
    for header in headers:
        for part in header.split(";"):
            key, sep, value = part.strip().partition("=")
            if sep and key == name:
                return value
    return None
