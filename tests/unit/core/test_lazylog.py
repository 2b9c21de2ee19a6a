"""LazyLogger: a module logs through structlog as before, and a short command that never logs never loads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from structlog.testing import capture_logs

from hookd.core.lazylog import LazyLogger


def test_a_line_goes_to_structlog_with_its_fields() -> None:
    with capture_logs() as logs:
        LazyLogger("hookd.test").warning("journal file not synced", path="/x", error="EIO")
    assert logs == [{"event": "journal file not synced", "path": "/x", "error": "EIO", "log_level": "warning"}]


def _loaded_by(tmp_path: Path, *argv: str) -> list[str]:
    code = (
        "import json, sys\nfrom hookd.cli import main\nmain(sys.argv[1:])\n"
        "sys.stderr.write('\\nLOADED ' + json.dumps(sorted(m for m in ('structlog', 'asyncio') if m in sys.modules)))"
    )
    env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_STATE_HOME=str(tmp_path / "s"))
    env["HOOKD_SOCKET"] = str(tmp_path / "no-daemon.sock")
    (tmp_path / "c" / "hookd").mkdir(parents=True)
    (tmp_path / "c" / "hookd" / "hooks.yaml").write_text("hooks:\n  - name: g\n    point: tool.approval.pre\n    command: /bin/true\n")
    done = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True, timeout=120)
    return json.loads(done.stderr.rsplit("LOADED ", 1)[1])  # type: ignore[no-any-return]


def test_hookd_check_loads_neither_structlog_nor_asyncio(tmp_path: Path) -> None:
    assert _loaded_by(tmp_path, "check") == []


def test_hookd_tail_of_the_journal_loads_neither(tmp_path: Path) -> None:
    assert _loaded_by(tmp_path, "tail", "--no-follow") == []
