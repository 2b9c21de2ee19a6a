"""bench/warm_skeleton.patch, the device bench/analysis.md measures a warm decide's bare plumbing
with, still applies to the tree it describes (a patch that no longer applies measures nothing)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PATCH = ROOT / "bench" / "warm_skeleton.patch"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_skeleton_patch_applies_to_a_copy(tmp_path: Path) -> None:
    touched = re.findall(r"^diff --git a/(\S+) b/", PATCH.read_text(), flags=re.MULTILINE)
    assert touched, "the patch names no file"
    for name in touched:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}  # applied here, never to a repository above
    done = subprocess.run(["git", "apply", str(PATCH)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # Applied, so the copy differs from the tree: the checkout itself was never touched.
    for name in touched:
        assert (tmp_path / name).read_text() != (ROOT / name).read_text()
