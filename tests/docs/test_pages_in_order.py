"""A reader who follows docs/observe.md and then docs/replay.md, in one home, ends with every hook
file the two pages had them write loaded: neither page breaks what the other set up.

tests/docs/test_samples.py runs each page in a world of its own; here the two pages that both have
the reader write a global drop-in guarding `git push --force` share one world, in reading order,
and `hookd check` and the daemon's hook list are asked at the end.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import DaemonProcess
from .samples import ROOT, samples
from .test_samples import check_yaml, home_path, make_world, run_python, run_sh

PAGES = [ROOT / "docs" / "observe.md", ROOT / "docs" / "replay.md"]


@pytest.mark.timeout(900)
def test_observe_then_replay_in_one_home_leaves_every_file_they_write_in_force(tmp_path: Path) -> None:
    world = make_world(tmp_path / "world")
    cwd = home_path(world, "src/app")
    daemon: DaemonProcess | None = None
    ran: set[str] = set()
    try:
        for page in PAGES:
            page_samples = [s for s in samples(page) if s.mark != "not-run"]
            for s in page_samples:
                if s.mark == "file":
                    path = home_path(world, s.arg)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(s.text)
                    if s.lang == "yaml":
                        check_yaml(s, path, world, cwd)
            if daemon is None:
                daemon = DaemonProcess(world).start()
            for s in page_samples:
                if s.lang == "sh":
                    run_sh(s, world, cwd)
            scratch = tmp_path / page.stem
            scratch.mkdir()
            run_python([s for s in page_samples if s.lang == "python" and s.mark != "file"], world, cwd, ran, scratch)
        # Every global file the pages wrote is valid beside the others (a name two files define refuses one whole) ...
        check = subprocess.run(["hookd", "check"], cwd=cwd, env=world.env, capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stdout + check.stderr
        # ... and in force: each hook each page defined is loaded, none from a rejected file.
        listed = subprocess.run(["hookd", "hooks", "--json"], cwd=cwd, env=world.env, capture_output=True, text=True, timeout=60)
        assert listed.returncode == 0, listed.stderr
        out = json.loads(listed.stdout)
        names = {h["name"] for h in out["hooks"]}
        assert {"no-force-push", "log-commands", "no-curl-sh", "audit-force-push"} <= names, sorted(names)
        assert not out.get("rejected"), out.get("rejected")
    finally:
        if daemon is not None:
            daemon.stop()
