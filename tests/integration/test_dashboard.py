"""`hookd dashboard` against a real daemon: over HTTP (who may use it, limits) and in a real
headless Chromium driven by selenium (live events, an approval clicked in the page).

Set HOOKD_DASHBOARD_SCREENSHOTS=DIR to also save the screenshots docs/dashboard.md shows.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ..conftest import HOOKD
from .test_approvals import PAYLOAD, asking  # noqa: F401 - the fixture is used by name
from .test_user_config import wait_until

HANG_GUARD = 60.0  # seconds; only so a bug cannot hang the suite
CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMEDRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


class Dashboard:
    def __init__(self, env, *extra: str) -> None:  # type: ignore[no-untyped-def]
        self.log = env.root / "dashboard.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [*HOOKD, "dashboard", "--no-browser", *extra], env=env.env, stdout=subprocess.PIPE, stderr=log, cwd=env.root
            )
        line = self.proc.stdout.readline().decode()  # printed once it serves and follows the daemon's events
        assert line.startswith("hookd dashboard: http://127.0.0.1:"), line + self.log.read_text()
        self.url = line.split()[-1]
        parts = urlsplit(self.url)
        self.port = parts.port
        self.token = parts.query.removeprefix("token=")
        self.cookie = f"hookd_dashboard_{self.port}={self.token}"

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_GUARD)
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        conn.close()
        return response.status, dict(response.getheaders()), data

    def stop(self) -> None:
        """SIGTERM, as a service manager or Ctrl-C stops it: a dashboard that does not exit is a failure, not
        something to kill quietly (that hid a dashboard ignoring SIGTERM about one run in thirty)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(HANG_GUARD)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"the dashboard did not exit within {HANG_GUARD:g} s of SIGTERM") from None


@pytest.fixture
def dashboard(env, daemon):  # type: ignore[no-untyped-def]
    d = Dashboard(env, "--name", "dana")
    yield d
    d.stop()


# ----------------------------------------------------------------- HTTP level


def test_the_url_secret_becomes_a_cookie_and_nothing_is_served_without_it(dashboard):
    status, headers, _ = dashboard.request("GET", "/?token=" + dashboard.token)
    assert status == 303 and headers["location"] == "/"
    assert headers["set-cookie"] == f"{dashboard.cookie}; Path=/; HttpOnly; SameSite=Strict"
    assert "script-src 'self'" in headers["content-security-policy"] and headers["referrer-policy"] == "no-referrer"
    status, _, page = dashboard.request("GET", "/", headers={"Cookie": dashboard.cookie})
    assert status == 200 and b"<title>hookd dashboard</title>" in page
    for path in ("/", "/api/state", "/api/events", "/static/app.js"):
        status, _, body = dashboard.request("GET", path)
        assert status == 403 and b"secret" in body, path
    status, _, _ = dashboard.request("GET", "/?token=wrong")
    assert status == 403
    status, _, _ = dashboard.request("GET", "/api/state", headers={"Cookie": f"hookd_dashboard_{dashboard.port}=wrong"})
    assert status == 403


def test_other_hosts_and_other_origins_are_refused(dashboard):
    auth = {"Cookie": dashboard.cookie}
    status, _, body = dashboard.request("GET", "/api/state", headers={**auth, "Host": f"attacker.example:{dashboard.port}"})
    assert status == 403 and b"Host" in body
    status, _, body = dashboard.request("GET", "/api/state", headers={**auth, "Origin": "http://attacker.example"})
    assert status == 403 and b"Origin" in body
    answer = b'{"decision": "allow"}'
    status, _, body = dashboard.request("POST", "/api/approvals/1", answer, {**auth, "Content-Type": "application/json"})
    assert status == 403 and b"Origin" in body  # a change must come from the page itself
    origin = {"Origin": f"http://127.0.0.1:{dashboard.port}"}
    page = PageStream(dashboard)  # an open page: the dashboard is an approver once its snapshot came
    page.next("snapshot")
    status, _, body = dashboard.request("POST", "/api/approvals/1", answer, {**auth, **origin})
    assert status == 404 and b"not open" in body  # accepted as far as the daemon, which knows no offer 1
    page.close()
    status, _, _ = dashboard.request("GET", "/api/state", headers={**auth, **origin})
    assert status == 200


def test_oversized_requests_are_refused(dashboard):
    auth = {"Cookie": dashboard.cookie, "Origin": f"http://127.0.0.1:{dashboard.port}"}
    status, _, body = dashboard.request("POST", "/api/approvals/1", b"x" * (65 << 10), auth)
    assert status == 413 and b"over" in body
    # A head past the limit is refused before it is read whole.
    with socket.create_connection(("127.0.0.1", dashboard.port), timeout=HANG_GUARD) as s:
        s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{dashboard.port}\r\nX-Big: {'y' * (32 << 10)}\r\n\r\n".encode())
        answer = s.recv(4096)
    assert answer.startswith(b"HTTP/1.1 431 ")
    status, _, body = dashboard.request("POST", "/api/approvals/x", b"{}", auth)
    assert status == 400


class PageStream:
    """An open page's event stream, held as the page's EventSource holds it: GET /api/events, read on."""

    def __init__(self, dashboard: Dashboard) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", dashboard.port, timeout=HANG_GUARD)
        self.conn.request("GET", "/api/events", headers={"Cookie": dashboard.cookie, "Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200

    def next(self, kind: str | None = None) -> tuple[str, dict]:  # type: ignore[type-arg]
        """The next server-sent event (of ``kind``): its name and data."""
        while True:
            name, data = "", ""
            while (line := self.response.readline().decode()) not in ("\n", ""):
                field, _, value = line.rstrip("\n").partition(": ")
                if field == "event":
                    name = value
                elif field == "data":
                    data = value
            assert line, "the stream ended"
            if name and (kind is None or name == kind):
                return name, json.loads(data)

    def close(self) -> None:
        self.conn.close()


def _state(dashboard: Dashboard) -> dict:  # type: ignore[type-arg]
    status, _, body = dashboard.request("GET", "/api/state", headers={"Cookie": dashboard.cookie})
    assert status == 200
    return json.loads(body)


@pytest.mark.usefixtures("asking")
def test_the_dashboard_is_an_approver_only_while_a_page_is_open(daemon, dashboard):
    # No page open: an ask goes back to the agent at once, as with no approver at all (it would
    # otherwise wait for the approval deadline, 120 s, longer than this client waits).
    with daemon.client(timeout=HANG_GUARD / 2) as c:
        out = c.decide("tool.approval.pre", PAYLOAD, session="s-nobody")
    assert out.decision == "ask" and out.approval is None, out
    assert _state(dashboard)["approving"] is False

    # A page holds its event stream: once its snapshot has come, the dashboard is an approver and a
    # call that asks waits for an answer from the page.
    page = PageStream(dashboard)
    kind, snapshot = page.next()
    assert kind == "snapshot" and snapshot["approving"] is True, snapshot
    result: list = []  # type: ignore[type-arg]

    def agent() -> None:
        with daemon.client(timeout=HANG_GUARD) as c:
            result.append(c.decide("tool.approval.pre", PAYLOAD, session="s-page"))

    call = threading.Thread(target=agent)
    call.start()
    _, offer = page.next("offer")
    assert offer["session"] == "s-page" and offer["reason"] == "rm needs a person"
    assert call.is_alive()  # it waits for the page
    headers = {"Cookie": dashboard.cookie, "Origin": f"http://127.0.0.1:{dashboard.port}", "Content-Type": "application/json"}
    status, _, _ = dashboard.request("POST", f"/api/approvals/{offer['offer']}", b'{"decision": "allow", "reason": "seen"}', headers)
    assert status == 200
    call.join(HANG_GUARD)
    assert result and result[0].decision == "allow" and result[0].approval.by.name == "dana"

    # The last page closes: a moment later the dashboard is no approver, and an ask goes back at once again.
    page.close()
    wait_until(lambda: _state(dashboard)["approving"] is False, timeout=HANG_GUARD)
    with daemon.client(timeout=HANG_GUARD / 2) as c:
        out = c.decide("tool.approval.pre", PAYLOAD, session="s-closed")
    assert out.decision == "ask" and out.approval is None, out


# ------------------------------------------------------------ real Chromium


def _first(paths: tuple[str, ...], name: str) -> str | None:
    return next((p for p in paths if os.access(p, os.X_OK)), None) or shutil.which(name)


def launch_chromium(where: Path, width: int = 1500, height: int = 1000):  # type: ignore[no-untyped-def]
    """A headless Chromium driven by selenium, its profile and driver log under ``where``."""
    chromium, driver = _first(CHROMIUM, "chromium"), _first(CHROMEDRIVER, "chromedriver")
    if chromium is None or driver is None:
        pytest.skip(
            "!!! Chromium or chromedriver is not installed, so the dashboard's browser tests did not run: "
            "apt-get install chromium chromium-driver (.ci/run does it on CI) !!!"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={where / 'chromium-profile'}")
    driver_log = where / "chromedriver.log"
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver, log_output=str(driver_log)))
    session.set_page_load_timeout(HANG_GUARD)
    return session


@pytest.fixture
def browser(tmp_path):  # type: ignore[no-untyped-def]
    session = launch_chromium(tmp_path)
    yield session
    session.quit()


def _open(browser, dashboard):  # type: ignore[no-untyped-def]
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(dashboard.url)
    wait = WebDriverWait(browser, HANG_GUARD)
    wait.until(lambda b: b.execute_script("return document.body.dataset.ready === '1'"))
    assert urlsplit(browser.current_url).query == ""  # the secret left the address bar
    return wait


def _points(browser) -> list[str]:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    return [r.get_attribute("data-point") for r in browser.find_elements(By.CSS_SELECTOR, "#events tr.row")]


def _screenshot(browser, name: str) -> None:  # type: ignore[no-untyped-def]
    where = os.environ.get("HOOKD_DASHBOARD_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        # The whole page, not only the window's first screen: the window grows to the page's height for it.
        size = browser.get_window_size()
        height, inner = browser.execute_script("return [document.documentElement.scrollHeight, window.innerHeight]")
        browser.set_window_size(size["width"], min(max(height, inner), 2400) + size["height"] - inner)
        browser.execute_script("window.scrollTo(0, 0)")
        browser.save_screenshot(str(Path(where) / name))
        browser.set_window_size(size["width"], size["height"])


@pytest.mark.usefixtures("asking")
def test_the_page_shows_a_decide_made_after_it_loaded(daemon, dashboard, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    wait = _open(browser, dashboard)
    rows = "#events tr.row[data-point='tool.approval.pre']"
    assert browser.find_elements(By.CSS_SELECTOR, rows) == []
    with daemon.client() as c:
        c.attach_session("s-page")
        c.emit("tool.execute.before", {"toolName": "execute_command", "args": {"command": "ls"}}, session="s-page")
        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "ls -la"}}, session="s-page")
        denied = c.decide(
            "tool.approval.pre", {"toolName": "execute_command", "args": {"command": "sudo make"}, "agent": "codex"}, session="s-page"
        )
    assert out.decision is None and denied.decision == "deny"
    wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, rows)) == 2)
    newest = browser.find_elements(By.CSS_SELECTOR, rows)[0]
    cells = [td.text for td in newest.find_elements(By.TAG_NAME, "td")]
    assert cells[2:7] == ["decide", "tool.approval.pre", "s-page", "codex", "deny"] and cells[8] == "no sudo"
    newest.click()  # its chain: who decided, how long the chain took, and the payload
    detail = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#events tr.detail"))
    assert "rm-asks" in detail.text and "sudo make" in detail.text
    _screenshot(browser, "dashboard.png")
    session_row = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#sessions tr[data-session='s-page']"))
    assert session_row.find_elements(By.TAG_NAME, "td")[3].text == "3"
    assert "live" in browser.find_element(By.ID, "daemon").text
    # The filters: by decision, then by a point glob.
    browser.find_element(By.ID, "f-point").send_keys("tool.execute.*")
    wait.until(lambda b: _points(b) == ["tool.execute.before"])
    browser.find_element(By.ID, "f-point").send_keys(Keys.CONTROL, "a", Keys.BACKSPACE)
    Select(browser.find_element(By.ID, "f-decision")).select_by_visible_text("deny")
    wait.until(lambda b: _points(b) == ["tool.approval.pre"])
    # The header follows the daemon's status: the calls made are counted there.
    wait.until(lambda b: "2 decides" in b.find_element(By.ID, "summary").text)


@pytest.mark.usefixtures("asking")
def test_an_approval_clicked_in_the_page_decides_a_waiting_call(daemon, dashboard, browser):
    from selenium.webdriver.common.by import By

    wait = _open(browser, dashboard)
    result: list = []

    def agent() -> None:
        with daemon.client() as c:
            result.append(c.decide("tool.approval.pre", PAYLOAD, session="s-click"))

    call = threading.Thread(target=agent)
    call.start()
    allow = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#approvals button.allow"))
    card = browser.find_element(By.CSS_SELECTOR, "#approvals .offer")
    assert "rm-asks" in card.text and "rm needs a person" in card.text and "rm -rf build" in card.text and "s-click" in card.text
    offer = card.get_attribute("data-offer")
    browser.find_element(By.ID, f"reason-{offer}").send_keys("checked the build directory")
    _screenshot(browser, "dashboard-approval.png")
    assert call.is_alive()  # the call waits for the page
    allow.click()
    call.join(HANG_GUARD)
    assert not call.is_alive()
    out = result[0]
    assert out.decision == "allow" and out.approval.by.name == "dana" and out.approval.by.client == "hookd-dashboard"
    assert out.reason.endswith(": checked the build directory")
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#approvals .offer") == [])  # gone once decided


def test_the_page_shows_each_hook_of_a_chain_the_stats_and_the_shadow_guards(env, tmp_path, daemon_factory, browser):
    from hookd_client import messages

    from ..conftest import write_script

    if not hasattr(messages, "StatsRequest") or "shadow" not in messages.HookSpec.__struct_fields__:
        pytest.skip("this daemon has no stats request or shadow hooks yet: the page shows them once it does")
    from selenium.webdriver.common.by import By

    guard = write_script(
        tmp_path / "guard.py",
        """
        import json, sys
        command = json.load(sys.stdin).get("args", {}).get("command", "")
        if "push --force" in command:
            print(json.dumps({"decision": "deny", "reason": "no force pushes"}))
        """,
    )
    strict = write_script(
        tmp_path / "strict.py",
        """
        import json, sys
        command = json.load(sys.stdin).get("args", {}).get("command", "")
        if command.startswith("git push"):
            print(json.dumps({"decision": "deny", "reason": "pushes only from CI"}))
        """,
    )
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: no-force-push, point: tool.approval.pre, type: decision, command: {guard}, enabled: true, priority: 10}}
          - {{name: ci-only-pushes, point: tool.approval.pre, type: decision, command: {strict}, enabled: true, shadow: true}}
        """
    )
    daemon = daemon_factory()
    dashboard = Dashboard(env, "--name", "dana")
    try:
        wait = _open(browser, dashboard)
        with daemon.client() as c:
            for command in ("git status", "git push origin main", "git push --force origin main"):
                c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": command}}, session="s-shadow")
        rows = "#events tr.row[data-point='tool.approval.pre']"
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, rows)) == 3)
        # The forced push: denied, and the shadow agreed. Found by its decision, not its place: a decide
        # with shadow hooks is published once they answered, so the rows need not be in call order.
        browser.find_element(By.CSS_SELECTOR, f"{rows} td.decision-deny").click()
        detail = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#events tr.detail"))
        runs = wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#events tr.detail tr.hook-run"))
        names = [r.find_elements(By.TAG_NAME, "td")[0].text.splitlines()[0] for r in runs]  # the name over its file
        assert names[0] == "no-force-push" and names[1].startswith("ci-only-pushes") and "shadow" in names[1]
        assert "no force pushes" in detail.text and " ms" in runs[0].text
        # The stats and the shadow guard's would-be denials, once the daemon counted them.
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#stats tr[data-hook='no-force-push']"))
        shadow = wait.until(lambda b: b.find_element(By.ID, "shadow"))
        wait.until(lambda b: "would deny" in shadow.text and "ci-only-pushes" in shadow.text)
        _screenshot(browser, "dashboard-chain.png")
    finally:
        dashboard.stop()


@pytest.mark.usefixtures("asking")
def test_a_decide_shows_what_its_agent_waited_for_a_person(daemon, dashboard, browser):  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    wait = _open(browser, dashboard)
    result: list[Any] = []

    def agent() -> None:
        with daemon.client(timeout=HANG_GUARD) as c:
            result.append(c.decide("tool.approval.pre", PAYLOAD, session="s-waits"))

    call = threading.Thread(target=agent)
    call.start()
    wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#approvals button.allow")).click()
    call.join(HANG_GUARD)
    assert result and result[0].decision == "allow"
    row = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#events tr.row td.decision-allow"))
    row = row.find_element(By.XPATH, "..")
    state = _state(dashboard)
    decide = next(e for e in state["events"] if e["seq"] == int(row.get_attribute("data-seq")))
    answered = next(e for e in state["events"] if e["point"] == "hookd.approval.answered")
    person = answered["payload"]["waited"] * 1000  # ms between the offer and the click
    cell = row.find_elements(By.TAG_NAME, "td")[7]
    shown = cell.get_attribute("data-ms")
    assert shown is not None, cell.text
    assert float(shown) == pytest.approx(decide["duration"] + person, abs=0.01)
    assert float(shown) > decide["duration"]
    assert "dana" in cell.get_attribute("title") and "chain" in cell.get_attribute("title")
    row.click()
    detail = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#events tr.detail p.wait"))
    assert "for dana to answer" in detail.text and "in the hooks' chain" in detail.text
