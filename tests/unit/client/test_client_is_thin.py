"""The client distribution depends on msgspec only: importing it pulls in nothing heavy."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from ...conftest import ROOT


def test_importing_hookd_client_imports_no_daemon_dependency():
    code = (
        "import sys, hookd_client, hookd_client.worker if False else None\n"
        "bad = [m for m in ('uvloop', 'structlog', 'yaml', 'hookd') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    code = "import sys, hookd_client\nbad = [m for m in ('uvloop', 'structlog', 'yaml', 'hookd') if m in sys.modules]\nprint(','.join(bad))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_client_distribution_requires_msgspec_only():
    meta = tomllib.loads((ROOT / "client" / "pyproject.toml").read_text())
    assert [d.split(">")[0].split("=")[0].strip() for d in meta["project"]["dependencies"]] == ["msgspec"]
