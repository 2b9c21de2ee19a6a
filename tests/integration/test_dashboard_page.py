"""The dashboard's page as a person reads it, in a real headless Chromium: at 1280, 1400 and 1920
px wide no card overflows; every stats row says which hook it is; the header counts the sessions
it lists; times read as `hookd tail` prints them; ids and internal events keep to one line; a
decide shows what its agent waited (test_dashboard.py, where a person answers in the page).

One busy scene (module-scoped: a daemon, its hook files, five agents' sessions, a file deleted
and one that does not load, a call waiting for a person) is read by the tests that only look at
it. Its screenshots go under the test's temporary directory.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookd.cli.tailfmt import when

from ..conftest import DaemonProcess, make_env, write_script
from .test_approvals import PAYLOAD
from .test_dashboard import HANG_GUARD, Dashboard, _open, launch_chromium
from .test_user_config import wait_until

WIDTHS = (1280, 1400, 1920)
# Five agents' sessions, named as agents name them (UUIDs: they have hyphens to break at).
SESSIONS = (
    ("3f2b9c1e-8d4a-4c7b-9e1f-5a6b7c8d9e0f", "claude-code"),
    ("a91c07d2-44be-4f0e-b7c3-2d8e6f1a9b54", "codex"),
    ("5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b", "gemini-cli"),
    ("c0ffee00-1234-4abc-9def-0123456789ab", "opencode"),
    ("d15ea5e0-7777-4888-9999-aaaabbbbcccc", "qwen-code"),
)
COMMANDS = ("git status", "cat .env", "git push --force origin main", "sudo make install", "git push origin main")

# A script every rule runs: argv[1] names the words that make it answer, argv[2] the answer.
RULE = """
import json, sys
call = json.load(sys.stdin)
command = call.get("payload", call).get("args", {}).get("command", "")
if sys.argv[1] in command:
    print(json.dumps({"decision": sys.argv[2], "reason": sys.argv[3]}))
"""

# Every card, every box that scrolls, and the document: what overflows its width, and by how much.
OVERFLOWS = """
const out = [];
const name = (node) => {
  const section = node.closest("section");
  const classes = [...node.classList].map((c) => "." + c).join("");
  return `${node.tagName.toLowerCase()}${node.id ? "#" + node.id : ""}${classes}${section ? " in #" + section.id : ""}`;
};
const over = (node, label) => {
  if (node.scrollWidth > node.clientWidth + 1) out.push(`${label}: scrollWidth ${node.scrollWidth} > clientWidth ${node.clientWidth}`);
};
const page = document.documentElement;
over(page, "the document");
for (const card of document.querySelectorAll("main section")) {
  over(card, "#" + card.id);
  const box = card.getBoundingClientRect();
  if (box.left < 0 || box.right > page.clientWidth + 1) {
    out.push(`#${card.id} spans ${box.left}..${box.right}, the window ${page.clientWidth}`);
  }
}
for (const node of document.querySelectorAll("main *")) {
  const x = getComputedStyle(node).overflowX;
  if (x === "auto" || x === "scroll") over(node, name(node));
}
return out;
"""

# The page's ids and internal events as they show: each one's text, its title (what hover shows)
# and how many lines it takes (its height over its line height). Read in one go: rows re-render.
ONE_LINE = """
const lines = (node) => {
  const style = getComputedStyle(node);
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
  const inner = node.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)
    - parseFloat(style.borderTopWidth) - parseFloat(style.borderBottomWidth);
  return inner / line;
};
const shown = (cell) => {
  const titled = cell.querySelector("[title]");
  return { text: cell.textContent, title: titled ? titled.title : null, lines: lines(titled || cell) };
};
const ids = [];
for (const row of document.querySelectorAll("#events tr.row")) if (row.cells[4].textContent) ids.push(shown(row.cells[4]));
for (const row of document.querySelectorAll("#sessions tbody tr")) ids.push(shown(row.cells[0]));
const internal = [...document.querySelectorAll("#events tr.row")]
  .filter((row) => row.cells[2].textContent === "internal")
  .map((row) => ({ text: row.cells[8].textContent, lines: lines(row.cells[8]) }));
return { ids, internal };
"""

# Each event row's seq and time, each session's last seen, as they show.
TIMES = """
return {
  events: [...document.querySelectorAll("#events tr.row")].map((row) => [Number(row.dataset.seq), row.cells[1].textContent]),
  sessions: [...document.querySelectorAll("#sessions tbody tr")].map((row) => row.cells[5].textContent),
};
"""


@dataclass
class Scene:
    root: Path
    daemon: DaemonProcess
    dashboard: Dashboard
    browser: Any
    wait: Any
    old_file: Path
    new_file: Path
    broken_file: Path

    def state(self) -> dict[str, Any]:
        status, _, body = self.dashboard.request("GET", "/api/state", headers={"Cookie": self.dashboard.cookie})
        assert status == 200
        return json.loads(body)  # type: ignore[no-any-return]


def _viewport(browser: Any, width: int, height: int = 1000) -> None:
    """Make the page's window ``width`` x ``height`` CSS pixels inside (the window's frame aside)."""
    browser.set_window_size(width, height)
    inner = browser.execute_script("return [window.innerWidth, window.innerHeight]")
    if inner != [width, height]:
        browser.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    assert browser.execute_script("return window.innerWidth") == width


def _rule(root: Path, name: str, words: str, answer: str, reason: str, *extra: str) -> str:
    script = root / "rule.py"
    if not script.exists():
        write_script(script, RULE)
    fields = ", ".join([f"args: {json.dumps([words, answer, reason])}", "enabled: true", *extra])
    return f"  - {{name: {name}, point: tool.approval.pre, type: decision, command: {script}, {fields}}}\n"


def _hooks_from(daemon: DaemonProcess, name: str) -> list[str]:
    with daemon.client() as c:
        return [h.source for h in c.list_hooks().hooks if h.name == name]


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    root = tmp_path_factory.mktemp("dashboard-scene")
    env = make_env(root)
    env.write_global_hooks(
        "hooks:\n"
        + _rule(root, "rm-needs-a-person", "rm ", "ask", "rm needs a person")
        + _rule(root, "no-sudo", "sudo ", "deny", "no sudo")
        + _rule(root, "no-force-push-to-protected-branches", "push --force", "deny", "no force pushes to main")
        + _rule(root, "ci-only-pushes", "git push", "deny", "pushes only from CI", "shadow: true")
    )
    dropins = env.config / "hookd" / "hooks.d"
    dropins.mkdir(parents=True)
    old_file, new_file, broken_file = dropins / "old-guards.yaml", dropins / "new-guards.yaml", dropins / "broken.yaml"
    old_file.write_text("hooks:\n" + _rule(root, "guard-secrets", ".env", "deny", "secrets stay out of the transcript"))
    broken_file.write_text("hooks:\n  - {name: half-written, point: tool.approval.pre}\n")  # no type, command, enabled
    daemon = DaemonProcess(env).start()
    dashboard = Dashboard(env, "--name", "dana")
    browser = launch_chromium(root, WIDTHS[0])
    waiting: list[threading.Thread] = []
    origin = {"Cookie": dashboard.cookie, "Origin": f"http://127.0.0.1:{dashboard.port}"}
    try:
        wait = _open(browser, dashboard)  # the page is open: the dashboard answers approvals
        scene = Scene(root, daemon, dashboard, browser, wait, old_file, new_file, broken_file)
        with daemon.client() as c:
            for i, (session, agent) in enumerate(SESSIONS):
                project = str(root / "work" / "clients" / f"a-client-with-a-long-name-{i}" / "service")
                Path(project).mkdir(parents=True)
                payload = {"toolName": "execute_command", "agent": agent}
                c.emit("tool.execute.before", {**payload, "args": {"command": "ls"}}, session=session, project=project)
                for command in (COMMANDS[0], COMMANDS[1 + i % 4]):
                    c.decide("tool.approval.pre", {**payload, "args": {"command": command}}, session=session, project=project)
            # The file of one guard goes, and a file of another name brings a guard of the same name.
            old_file.unlink()
            new_file.write_text("hooks:\n" + _rule(root, "guard-secrets", ".env", "deny", "secrets stay out of the transcript"))
            wait_until(lambda: _hooks_from(daemon, "guard-secrets") == [str(new_file)], timeout=HANG_GUARD)
            c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "cat .env"}}, session=SESSIONS[0][0])

        # A call waits for a person while the page is read.
        def agent() -> None:
            with daemon.client(timeout=HANG_GUARD) as c:
                c.decide("tool.approval.pre", PAYLOAD, session=SESSIONS[4][0])

        waiting.append(threading.Thread(target=agent, daemon=True))
        waiting[0].start()
        from selenium.webdriver.common.by import By

        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#approvals .offer"))
        newest = max(e["seq"] for e in scene.state()["events"])
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, f"#events tr.row[data-seq='{newest}']"))
        # The stats of the calls made since the file went, and (polled with them) the hooks in force now.
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#stats tr[data-hook='guard-secrets']")) == 2)
        yield scene
    finally:
        for thread in waiting:  # the waiting call: answered, so it ends
            status, _, body = dashboard.request("GET", "/api/state", headers=origin)
            for offer in json.loads(body)["pending"] if status == 200 else []:
                dashboard.request("POST", f"/api/approvals/{offer['offer']}", b'{"decision": "deny"}', origin)
            thread.join(HANG_GUARD)
        browser.quit()
        dashboard.stop()
        daemon.kill()


def _open_details(scene: Scene) -> None:
    """Open a decide's chain (a guard that denied, the file that did not load) and an internal event's payload."""
    from selenium.webdriver.common.by import By

    browser = scene.browser
    if not browser.find_elements(By.CSS_SELECTOR, "#events tr.detail"):
        browser.find_element(By.CSS_SELECTOR, "#events tr.row td.decision-deny").click()
        browser.find_element(By.CSS_SELECTOR, "#events tr.row[data-point='hookd.config.reloaded']").click()
        scene.wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#events tr.detail")) == 2)


def test_no_card_overflows_at_1280_1400_or_1920_px(scene: Scene) -> None:
    _open_details(scene)
    shots = scene.root / "screenshots"
    shots.mkdir(exist_ok=True)
    for width in WIDTHS:
        _viewport(scene.browser, width)
        overflows = scene.browser.execute_script(OVERFLOWS)
        scene.browser.execute_script("window.scrollTo(0, 0); for (const s of document.querySelectorAll('.scroll')) s.scrollTop = 0;")
        shot = shots / f"dashboard-{width}.png"
        assert scene.browser.save_screenshot(str(shot)) and shot.stat().st_size > 0
        assert overflows == [], f"at {width} px wide (screenshot: {shot})"
        # Room to read: no card squeezed to a strip, and the events' reasons keep a column of their own.
        widths = scene.browser.execute_script("return [...document.querySelectorAll('main section')].map((s) => s.clientWidth)")
        assert min(widths) >= 360, (width, widths)
        reasons = scene.browser.execute_script("return document.querySelector('#events tr.row td:last-child').clientWidth")
        assert reasons >= 200, (width, reasons)  # about 30 characters, with every other column at its widest


def test_each_stats_row_says_which_hook_it_is(scene: Scene) -> None:
    from selenium.webdriver.common.by import By

    _viewport(scene.browser, 1280)
    rows = scene.browser.find_elements(By.CSS_SELECTOR, "#stats tr[data-hook='guard-secrets']")
    assert len(rows) == 2
    by_state = {r.get_attribute("data-state"): r for r in rows}
    assert set(by_state) == {"removed", "in force"}
    gone, live = by_state["removed"].text, by_state["in force"].text
    assert gone != live
    assert "removed" in gone and "old-guards.yaml" in gone and "new-guards.yaml" not in gone
    assert "removed" not in live and "new-guards.yaml" in live
    assert by_state["removed"].get_attribute("data-source") == str(scene.old_file)
    # The * row: every hook of the file that did not load, and why none of them ran.
    every = scene.browser.find_element(By.CSS_SELECTOR, "#stats tr[data-hook='*']")
    assert "every hook of" in every.text and "broken.yaml" in every.text and "not load" in every.text
    assert "its file is invalid" in every.text and str(scene.broken_file) in every.get_attribute("title")
    # The same file where a decide's chain names it.
    _open_details(scene)
    chain = scene.browser.find_element(By.CSS_SELECTOR, "#events tr.detail").text
    assert "every hook of" in chain and "broken.yaml" in chain and "not run (its file is invalid)" in chain


def test_the_header_counts_the_sessions_it_lists(scene: Scene) -> None:
    from selenium.webdriver.common.by import By

    listed = scene.browser.find_elements(By.CSS_SELECTOR, "#sessions tbody tr")
    assert sorted(r.get_attribute("data-session") for r in listed) == sorted(s for s, _ in SESSIONS)
    header = scene.browser.find_element(By.TAG_NAME, "header").text
    counts = re.findall(r"(\d+) sessions?\b", header)
    assert counts == [str(len(SESSIONS))], header
    assert scene.browser.find_element(By.ID, "sessions-count").text == str(len(SESSIONS))


def test_times_read_as_hookd_tail_prints_them(scene: Scene) -> None:
    times = {e["seq"]: e["time"] for e in scene.state()["events"]}
    shown = scene.browser.execute_script(TIMES)
    assert len(shown["events"]) >= 20 and len(shown["sessions"]) == len(SESSIONS)
    stamp = r"(\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\.\d{3}"
    for seq, text in shown["events"]:
        assert re.fullmatch(stamp, text) and text == when(times[seq]), (seq, text)
    assert all(re.fullmatch(stamp, text) for text in shown["sessions"]), shown["sessions"]


def test_ids_and_internal_events_keep_to_one_line(scene: Scene) -> None:
    from selenium.webdriver.common.by import By

    _viewport(scene.browser, 1280)
    shown = scene.browser.execute_script(ONE_LINE)
    assert len(shown["ids"]) >= 15 and len(shown["internal"]) >= 3
    full = {s for s, _ in SESSIONS}
    for cell in shown["ids"]:
        assert cell["title"] in full, cell  # the whole id on hover, however much of it shows
        assert cell["lines"] < 1.5, cell
    for cell in shown["internal"]:
        assert cell["text"] and cell["lines"] < 1.5, cell
    # One click shows an internal event's whole payload.
    _open_details(scene)
    detail = scene.browser.find_element(By.CSS_SELECTOR, "#events tr.row[data-point='hookd.config.reloaded'] + tr.detail pre")
    assert json.loads(detail.text)["file"]
