"""Who may call the HTTP hook endpoint, decided from the request line and headers (pure, hypothesis)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from hookd.edge.http import checks

TOKEN = b"T" * 43
HOSTS = checks.hosts(4242)
GOOD = [(b"host", b"127.0.0.1:4242"), (b"authorization", b"Bearer " + TOKEN), (b"content-type", b"application/json")]


def test_a_good_request_is_accepted_with_its_event_and_environment() -> None:
    got = checks.check(b"POST", b"/claude-code/PreToolUse", [*GOOD, (b"x-hookd-env-claude_project_dir", b"/p")], HOSTS, TOKEN)
    assert got == checks.Accepted("PreToolUse", {"CLAUDE_PROJECT_DIR": "/p"})
    assert isinstance(checks.check(b"POST", b"/claude-code/Stop", [(b"host", b"localhost:4242"), GOOD[1]], HOSTS, TOKEN), checks.Accepted)


def test_each_refusal_names_its_reason() -> None:
    def status(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]]) -> int:
        got = checks.check(method, target, headers, HOSTS, TOKEN)
        assert isinstance(got, checks.Refusal)
        return got.status

    assert status(b"POST", b"/claude-code/Stop", [*GOOD, (b"origin", b"null")]) == 403
    assert status(b"POST", b"/claude-code/Stop", [(b"host", b"evil:4242"), GOOD[1]]) == 403
    assert status(b"POST", b"/claude-code/Stop", [*GOOD, (b"host", b"127.0.0.1:4242")]) == 403  # two Host headers
    assert status(b"POST", b"/claude-code/Stop", [GOOD[0], (b"authorization", b"Basic " + TOKEN)]) == 401
    assert status(b"POST", b"/claude-code/Stop", [*GOOD, GOOD[1]]) == 401  # two Authorization headers
    assert status(b"GET", b"/claude-code/Stop", GOOD) == 405
    assert status(b"POST", b"/claude-code/../x", GOOD) == 404
    assert status(b"POST", b"/other/Stop", GOOD) == 404


@given(
    secret=st.binary(max_size=60).filter(lambda s: s.strip() != TOKEN),
    scheme=st.sampled_from([b"Bearer", b"bearer", b"Basic", b""]),
    extra=st.lists(st.tuples(st.binary(max_size=20), st.binary(max_size=40)), max_size=6),
)
def test_no_request_without_the_secret_is_accepted(secret: bytes, scheme: bytes, extra: list[tuple[bytes, bytes]]) -> None:
    headers = [GOOD[0], (b"authorization", scheme + b" " + secret), *[(n.lower(), v) for n, v in extra if n.lower() != b"authorization"]]
    assert isinstance(checks.check(b"POST", b"/claude-code/PreToolUse", headers, HOSTS, TOKEN), checks.Refusal)


@given(names=st.lists(st.text(max_size=30), max_size=80), value=st.binary(min_size=1, max_size=30))
def test_the_forwarded_environment_is_bounded_and_well_named(names: list[str], value: bytes) -> None:
    headers = [*GOOD, *[(b"x-hookd-env-" + n.encode(), value) for n in names]]
    got = checks.check(b"POST", b"/claude-code/PreToolUse", headers, HOSTS, TOKEN)
    assert isinstance(got, checks.Accepted)
    assert len(got.environ) <= checks.MAX_ENV
    assert all(re.fullmatch(r"[A-Z_][A-Z0-9_]*", k) for k in got.environ)
