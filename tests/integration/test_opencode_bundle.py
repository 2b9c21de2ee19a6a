"""The hookd-client bundle shipped for the opencode plugin (hookd/agents/opencode/hookd-client.mjs) is exactly
what `npm run bundle` in clients/typescript makes from the sources today: rebuilt here, compared byte for byte.
It needs npm (to install esbuild); without npm the test is skipped, and says so."""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from hookd.agents.opencode import install as plugin

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"

pytestmark = pytest.mark.timeout(600)


def test_the_shipped_bundle_is_what_the_sources_build(tmp_path: Path) -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        message = "npm is not installed: the shipped hookd-client bundle was NOT checked against its sources"
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    if not (PACKAGE / "node_modules" / "esbuild").is_dir():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PACKAGE, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "hookd-client.mjs"
    # Run from another directory on purpose: the bytes must not depend on it.
    done = subprocess.run(["node", str(PACKAGE / "bundle.mjs"), str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.read_bytes() == plugin.BUNDLE.read_bytes(), "run `npm run bundle` in clients/typescript and commit the result"
    assert plugin.BUNDLE.read_text(encoding="utf-8").startswith(plugin.BUNDLE_MARK)
    # One module, importing nothing but Node's own.
    imports = [line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("import ")]
    assert imports and all('from "node:' in line for line in imports), imports
