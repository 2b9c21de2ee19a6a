"""Every code sample of README.md and docs/*.md runs as written.

Each page gets its own world: a temporary HOME (with ``~/.config``, ``~/.local/state``
and a runtime directory), a project ``~/src/app`` with a hook file, hookd on PATH,
and a real daemon started there. Then, in the project directory:

- ``sh`` samples run with ``bash -euo pipefail`` and must exit 0;
- ``python`` samples run in order in one interpreter and one namespace;
- ``yaml`` samples must pass ``hookd check``;
- ``json`` samples must parse (as one document or as JSON lines).

Markers (tests/docs/samples.py) exempt a sample with a reason, or make it a file of
the world. The last assertion of each page: every sample not marked not-run ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import DaemonProcess, Env
from .samples import CODE, PAGES, ROOT, Sample, samples

RUN_PYTHON = Path(__file__).with_name("run_python.py")
TIMEOUT = 60  # per sample: a hang guard

PROJECT_HOOKS = """\
hooks:
  - name: guard
    point: tool.approval.pre
    type: decision
    command: sh
    args: ["-c", "cat >/dev/null"]   # abstains
    enabled: true
"""


def make_world(root: Path) -> Env:
    """A user as the docs picture one: hookd on PATH, the XDG defaults under HOME, no test shortcuts."""
    home = root / "home"
    env = dict(os.environ)
    for name in ("HOOKD_SOCKET", "HOOKD_TRUST_ALL", "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env.pop(name, None)
    run = root / "run"
    run.mkdir(parents=True)
    run.chmod(0o700)
    env.update(
        HOME=str(home),
        XDG_RUNTIME_DIR=str(run),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
        PYTHONUNBUFFERED="1",
    )
    project = home / "src" / "app"
    (project / ".hookd" / "plugins").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(PROJECT_HOOKS)
    (project / ".hookd" / "plugins" / "noop.py").write_text("def Noop(ctx):\n    return {}\n")
    # The user's global file is the README's main example (a page may write its own).
    global_hooks = home / ".config" / "hookd" / "hooks.yaml"
    global_hooks.parent.mkdir(parents=True)
    global_hooks.write_text(readme_hooks_file())
    world = Env(root, env)
    return world


def readme_hooks_file() -> str:
    marked = [s for s in samples(ROOT / "README.md") if s.mark == "file" and s.arg == "~/.config/hookd/hooks.yaml"]
    assert len(marked) == 1, "README.md shows one global hooks.yaml, marked <!-- file: ~/.config/hookd/hooks.yaml -->"
    return marked[0].text


def home_path(world: Env, path: str) -> Path:
    return Path(path.replace("~", world.env["HOME"], 1)) if path.startswith("~") else Path(world.env["HOME"]) / path


def code_pages() -> list[Path]:
    return [p for p in PAGES if any(s.lang in CODE for s in samples(p))]


def run_sh(sample: Sample, world: Env, cwd: Path) -> None:
    r = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", sample.text], cwd=cwd, env=world.env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert r.returncode == 0, f"{sample.where}: exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"


def check_yaml(sample: Sample, path: Path, world: Env, cwd: Path) -> None:
    r = subprocess.run(["hookd", "check", str(path)], cwd=cwd, env=world.env, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, f"{sample.where}: `hookd check` refused the sample\n{r.stdout}{r.stderr}"


def check_toml(sample: Sample, where: Path) -> None:
    """A TOML sample is hookd's team settings file: it must read as one, every setting accepted
    (in ``where``, beside a private credentials file of the name it gives)."""
    import tomllib

    from hookd.team.settings import TeamConfigError, parse

    where.mkdir(parents=True, exist_ok=True)
    creds = tomllib.loads(sample.text).get("credentials")
    if isinstance(creds, str) and not Path(creds).is_absolute():
        (where / creds).write_text("a-token\n")
        (where / creds).chmod(0o600)
    try:
        parse(sample.text, str(where / "team.toml"))
    except TeamConfigError as exc:
        raise AssertionError(f"{sample.where}: not a valid team settings file: {exc}") from None


def check_json(sample: Sample) -> None:
    try:
        json.loads(sample.text)
    except ValueError:
        for n, line in enumerate(sample.text.splitlines()):
            if line.strip():
                try:
                    json.loads(line)
                except ValueError as exc:
                    raise AssertionError(f"{sample.where}: line {n + 1} is not JSON: {exc}") from None


def run_python(blocks: list[Sample], world: Env, cwd: Path, ran: set[str], tmp: Path) -> None:
    if not blocks:
        return
    spec = tmp / "python-samples.json"
    log = tmp / "python-ran.txt"
    spec.write_text(json.dumps([{"where": s.where, "text": s.text, "compile_only": s.mark == "file"} for s in blocks]))
    r = subprocess.run(
        [sys.executable, str(RUN_PYTHON), str(spec), str(log)],
        cwd=cwd,
        env=world.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    if log.exists():
        ran.update(log.read_text().split())
    assert r.returncode == 0, f"Python samples failed\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"


@pytest.mark.timeout(900)
@pytest.mark.parametrize("page", code_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_sample_of_the_page_runs(page: Path, tmp_path: Path) -> None:
    world = make_world(tmp_path / "world")
    cwd = home_path(world, "src/app")
    page_samples = [s for s in samples(page) if s.lang in CODE]
    ran: set[str] = set()
    # Files first: the page's other samples may use them, and the daemon loads them at start.
    for s in page_samples:
        if s.mark == "file":
            path = home_path(world, s.arg)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(s.text)
            if s.lang == "yaml":
                check_yaml(s, path, world, cwd)
                ran.add(s.where)
            elif s.lang != "python":
                ran.add(s.where)
    daemon = DaemonProcess(world).start()
    failures: list[str] = []  # every failing sample of the page, not only the first
    try:
        python: list[Sample] = []
        for s in page_samples:
            if s.mark == "not-run" or (s.mark == "file" and s.lang != "python"):
                continue
            try:
                if s.lang == "python":
                    python.append(s)
                    continue
                if s.lang == "sh":
                    run_sh(s, world, cwd)
                elif s.lang == "yaml":
                    path = tmp_path / f"sample-{s.line}.yaml"
                    path.write_text(s.text)
                    check_yaml(s, path, world, cwd)
                elif s.lang == "json":
                    check_json(s)
                elif s.lang == "toml":
                    check_toml(s, tmp_path / f"sample-{s.line}")
                ran.add(s.where)
            except AssertionError as exc:
                failures.append(str(exc))
        try:
            run_python(python, world, cwd, ran, tmp_path)
        except AssertionError as exc:
            failures.append(str(exc))
    finally:
        daemon.stop()
    assert not failures, "\n\n".join(failures)
    expected = {s.where for s in page_samples if s.mark != "not-run"}
    assert expected - ran == set(), "samples that did not run"


def test_every_page_with_samples_is_covered() -> None:
    """Each fenced block is code that runs, marked not-run with a reason, or text: the parser refuses anything else."""
    total = sum(len(samples(p)) for p in PAGES)
    assert total > 0
    assert code_pages()
