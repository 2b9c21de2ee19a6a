"""Who may use the dashboard: the pure checks on a request head, including hostile ones."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hookd.dashboard import access

SITE = access.Site(8123, "s3cret-token")
HOST = [(b"host", b"127.0.0.1:8123")]
COOKIE = [(b"cookie", b"other=1; hookd_dashboard_8123=s3cret-token")]


def test_the_secret_in_the_url_is_taken_once_then_the_cookie():
    assert access.check(SITE, b"GET", b"/?token=s3cret-token", HOST) == access.Allowed("GET", "/", True)
    assert access.check(SITE, b"GET", b"/api/state", HOST + COOKIE) == access.Allowed("GET", "/api/state", False)
    assert SITE.set_cookie() == "hookd_dashboard_8123=s3cret-token; Path=/; HttpOnly; SameSite=Strict"


def test_refusals_name_what_is_wrong():
    cases = {
        (b"GET", b"/", ()): "secret",
        (b"GET", b"/?token=wrong", ()): "secret",
        (b"GET", b"/?token=", ()): "secret",
        (b"GET", b"/?token=s3cret-token&token=s3cret-token", ()): "secret",
        (b"GET", b"/", ((b"cookie", b"hookd_dashboard_9999=s3cret-token"),)): "secret",  # another port's cookie
    }
    for (method, target, extra), word in cases.items():
        verdict = access.check(SITE, method, target, HOST + list(extra))
        assert isinstance(verdict, access.Refusal) and verdict.status == 403 and word in verdict.message, (target, extra)
    wrong_host = access.check(SITE, b"GET", b"/?token=s3cret-token", [(b"host", b"evil.example:8123")])
    assert wrong_host.status == 403 and "Host" in wrong_host.message
    two_hosts = access.check(SITE, b"GET", b"/", HOST + HOST + COOKIE)
    assert two_hosts.status == 403
    other_page = access.check(SITE, b"GET", b"/api/state", [*HOST, *COOKIE, (b"origin", b"http://evil.example")])
    assert other_page.status == 403 and "Origin" in other_page.message
    no_origin_post = access.check(SITE, b"POST", b"/api/approvals/1", HOST + COOKIE)
    assert no_origin_post.status == 403 and "Origin" in no_origin_post.message
    own_post = access.check(SITE, b"POST", b"/api/approvals/1", [*HOST, *COOKIE, (b"origin", b"http://127.0.0.1:8123")])
    assert own_post == access.Allowed("POST", "/api/approvals/1", False)


@given(
    st.binary(max_size=64),
    st.binary(max_size=300),
    st.lists(st.tuples(st.sampled_from([b"host", b"origin", b"cookie", b"x-other"]), st.binary(max_size=200)), max_size=8),
)
def test_any_head_gets_a_verdict_and_never_access_without_the_secret(method, target, headers):
    verdict = access.check(SITE, method, target, headers)
    assert isinstance(verdict, access.Refusal | access.Allowed)
    if isinstance(verdict, access.Allowed):
        assert b"s3cret-token" in target or any(b"s3cret-token" in value for _, value in headers)
