"""A plugin directory's requirements go into its own venv, by the daemon's pip or, without one, the venv's."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import subprocess
import zipfile
from pathlib import Path

import pytest

from hookd.plugins import venv


def _wheel(where: Path) -> Path:
    """A one-module wheel built by hand, so pip installs it without the network or a build step."""
    files = {
        "tinypkg.py": b"VALUE = 42\n",
        "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [
        f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}"
        for name, data in files.items()
    ]
    files["tinypkg-1.0.dist-info/RECORD"] = ("\n".join([*record, "tinypkg-1.0.dist-info/RECORD,,"]) + "\n").encode()
    wheel = where / "tinypkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return wheel


def _install(tmp_path: Path) -> str:
    directory = tmp_path / "plugins"
    directory.mkdir()
    requirements = directory / "requirements.txt"
    requirements.write_text(f"{_wheel(tmp_path)}\n")
    environ = {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    wanted = hashlib.sha256(requirements.read_bytes()).hexdigest()
    python = asyncio.run(venv.ensure(str(directory), str(requirements), wanted, environ))
    assert python is not None
    assert Path(python).is_relative_to(tmp_path / "state" / "hookd" / "plugin-envs")
    got = subprocess.run([python, "-c", "import tinypkg; print(tinypkg.VALUE)"], capture_output=True, text=True, timeout=60)
    assert got.stdout == "42\n", got.stderr
    return python


def _has_pip(python: str) -> bool:
    return subprocess.run([python, "-c", "import pip"], capture_output=True, timeout=60).returncode == 0


def test_the_daemons_pip_installs_into_a_venv_that_holds_no_pip_of_its_own(tmp_path: Path) -> None:
    assert venv._host_pip("/x/bin/python") is not None, "the test venv's pip is 22.3 or later"
    assert not _has_pip(_install(tmp_path))


def test_without_a_pip_of_the_daemons_the_venv_brings_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(venv, "_host_pip", lambda python: None)
    assert _has_pip(_install(tmp_path))
