"""A plugin directory's dependencies: requirements.txt -> its own virtualenv.

The seed installs package.json dependencies at start; hookd installs a plugin
directory's requirements.txt into a virtualenv dedicated to that directory, on
first load and whenever the file's hash changes. Nothing is installed for a
directory without requirements. The plugin host also needs hookd_client (for
``Block``), msgspec and the host module itself; those come from a small
directory of links to the daemon's own copies, put on the host's PYTHONPATH,
so a plugin's requirements never have to name them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import os
import shutil
import sys

import structlog

from ..statefiles import state_home
from .discovery import REQUIREMENTS, requirements_hash

log = structlog.get_logger("hookd.plugins.venv")

INSTALL_TIMEOUT = 900.0
STAMP = "hookd-requirements.sha256"
HOST_PACKAGES = ("hookd", "hookd_client", "msgspec")


class InstallFailed(Exception):
    pass


def venv_dir(directory: str, environ: dict[str, str] | None = None) -> str:
    key = hashlib.sha256(os.path.abspath(directory).encode()).hexdigest()[:16]
    return os.path.join(state_home(environ), "plugin-envs", f"{os.path.basename(directory)}-{key}")


def host_lib(environ: dict[str, str] | None = None) -> str:
    """A directory holding links to the packages the host needs, for a venv's PYTHONPATH."""
    lib = os.path.join(state_home(environ), "plugin-lib")
    os.makedirs(lib, exist_ok=True)
    for name in HOST_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        target = next(iter(spec.submodule_search_locations))
        link = os.path.join(lib, name)
        if os.path.realpath(link) != os.path.realpath(target):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(link)
            os.symlink(target, link)
    return lib


def _tail(data: bytes, limit: int = 3000) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text if len(text) <= limit else "..." + text[-limit:]


async def _run(argv: list[str], cwd: str, what: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), INSTALL_TIMEOUT)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        await proc.wait()
        raise InstallFailed(f"{what} did not finish within {INSTALL_TIMEOUT:g} s") from None
    if proc.returncode != 0:
        raise InstallFailed(f"{what} failed with status {proc.returncode}: {_tail(out)}")


async def ensure(directory: str, environ: dict[str, str] | None = None) -> str | None:
    """The python to run the directory's host with: None (the daemon's own) without requirements.

    Raises InstallFailed with pip's own words when the installation fails.
    """
    wanted = requirements_hash(directory)
    if wanted is None:
        return None
    env_dir = venv_dir(directory, environ)
    python = os.path.join(env_dir, "bin", "python")
    stamp = os.path.join(env_dir, STAMP)
    with contextlib.suppress(OSError), open(stamp, encoding="ascii") as f:
        if f.read().strip() == wanted and os.path.exists(python):
            return python
    log.info("installing plugin requirements", directory=directory, venv=env_dir)
    if os.path.isdir(env_dir):
        shutil.rmtree(env_dir, ignore_errors=True)
    await _run([sys.executable, "-m", "venv", env_dir], directory, "creating the virtualenv")
    req = os.path.join(directory, REQUIREMENTS)
    await _run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--quiet", "-r", req],
        directory,
        f"pip install -r {req}",
    )
    with open(stamp, "w", encoding="ascii") as f:
        f.write(wanted)
    log.info("plugin requirements installed", directory=directory)
    return python
