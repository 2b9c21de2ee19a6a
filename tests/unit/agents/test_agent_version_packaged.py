"""An agent whose CLI is its npm package's own JavaScript has its version read from that package, not asked of a
start of the CLI; any other CLI is asked, and for pi both ways give the same version."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from hookd.agents import agent_version, registry

ROOT = Path(__file__).resolve().parents[3]
PI = ROOT / "tests" / "e2e" / "pi" / "node_modules" / ".bin" / "pi"


def _package(tmp_path: Path, bin_file: str = "dist/cli.js", cli_file: str = "dist/cli.js") -> tuple[Path, Path]:
    """node_modules/fake (version 1.2.3, its bin ``bin_file``) with ``cli_file`` a script printing 9.9.9 and leaving a
    mark when run, linked from node_modules/.bin/fake as npm links a bin."""
    package = tmp_path / "node_modules" / "fake"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "fake", "version": "1.2.3", "bin": {"fake": bin_file}}))
    (package / "dist" / "package.json").write_text(json.dumps({"type": "module"}))  # not the package's root
    ran = tmp_path / "ran"
    cli = package / cli_file
    cli.write_text(f"#!/bin/sh\ntouch {ran}\necho 9.9.9\n")
    cli.chmod(0o755)
    link = tmp_path / "node_modules" / ".bin" / "fake"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(cli, link.parent))
    return link, ran


def test_a_packaged_cli_is_read_from_its_package_without_being_started(tmp_path: Path) -> None:
    link, ran = _package(tmp_path)
    found = agent_version.detect("fake", explicit=str(link), packaged=True)
    assert found.version == (1, 2, 3) and found.cli == str(link)
    assert not ran.exists()


def test_a_cli_not_said_to_be_packaged_is_asked(tmp_path: Path) -> None:
    link, ran = _package(tmp_path)
    assert agent_version.detect("fake", explicit=str(link)).version == (9, 9, 9)
    assert ran.exists()


def test_a_file_the_package_does_not_name_as_its_bin_is_asked(tmp_path: Path) -> None:
    link, ran = _package(tmp_path, bin_file="dist/other.js")
    assert agent_version.packaged_version(str(link)) is None
    assert agent_version.detect("fake", explicit=str(link), packaged=True).version == (9, 9, 9)
    assert ran.exists()


def test_pi_says_the_version_its_package_holds() -> None:
    """The pi row is packaged: what `pi --version` prints is what hookd reads from pi's package.json."""
    if not PI.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{PI} is missing: run `make e2e-deps`")
        pytest.skip(f"{PI} is missing: run `make e2e-deps`")
    row = registry.agent("pi")
    assert row.version is not None and row.version.packaged
    done = subprocess.run([PI, "--version"], capture_output=True, text=True, timeout=120, env={**os.environ, **row.version.env})
    assert agent_version.packaged_version(str(PI)) == agent_version.parse(done.stdout + done.stderr) is not None
