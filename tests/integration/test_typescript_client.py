"""The TypeScript client's own tests (clients/typescript/test), built with tsc and run with `node --test`.

They start real daemons from this interpreter (`HOOKD_TEST_PYTHON`), each in its own temporary HOME.
The package's node_modules come from `npm ci` in clients/typescript (the Makefile's `e2e-deps`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"


@functools.cache
def build_typescript_client() -> Path:
    """Compile the client and its tests (once per test run); returns the package directory."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    tsc = PACKAGE / "node_modules" / ".bin" / "tsc"
    assert tsc.exists(), f"{PACKAGE}/node_modules is missing: run `make e2e-deps` (npm ci in clients/typescript)"
    done = subprocess.run([str(tsc), "-p", "."], cwd=PACKAGE, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return PACKAGE


@pytest.mark.timeout(900)  # a dozen daemons started and stopped, on a machine that may be busy
def test_typescript_client_against_a_real_daemon(tmp_path: Path) -> None:
    package = build_typescript_client()
    tests = sorted(str(p) for p in (package / "dist" / "test").glob("*.test.js"))
    assert tests, "no compiled tests"
    env = dict(os.environ, HOOKD_TEST_PYTHON=sys.executable, TMPDIR=str(tmp_path))
    for name in ("HOOKD_SOCKET", "XDG_RUNTIME_DIR", "NOTIFY_SOCKET"):
        env.pop(name, None)
    done = subprocess.run(["node", "--test", *tests], cwd=package, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    assert "# fail 0" in done.stdout
