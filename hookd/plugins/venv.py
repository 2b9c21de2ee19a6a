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
import json
import os
import shutil
import sys
import time
from collections.abc import Callable

import structlog

from hookd.config.statefiles import state_home

log = structlog.get_logger("hookd.plugins.venv")

INSTALL_TIMEOUT = 900.0
STAMP = "hookd-requirements.sha256"
FAILED = ".failed.json"  # beside the venv: the requirements hash whose install failed, and pip's words
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


def _tail(text: str, limit: int = 3000) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


Progress = Callable[[str], None]


class _Output:
    """What a pip run printed: the last few KiB, and each complete line to ``progress`` as it comes."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.kept = ""
        self.partial = ""

    def feed(self, chunk: bytes) -> None:
        text = self.partial + chunk.decode("utf-8", "replace")
        *lines, self.partial = text.split("\n")
        self.kept = (self.kept + text[: len(text) - len(self.partial)])[-4096:]
        if self.progress is not None:
            for line in reversed(lines):
                if line.strip():
                    self.progress(line.strip()[:300])
                    break

    def text(self) -> str:
        return self.kept + self.partial


async def _run(argv: list[str], cwd: str, what: str, progress: Progress | None = None) -> None:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    out = _Output(progress)

    async def pump() -> None:
        assert proc.stdout is not None
        while chunk := await proc.stdout.read(65536):
            out.feed(chunk)
        await proc.wait()

    try:
        async with asyncio.timeout(INSTALL_TIMEOUT):
            await pump()
    except asyncio.CancelledError:  # the directory was forgotten or the daemon stops: no pip left behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        with contextlib.suppress(Exception):
            await asyncio.shield(proc.wait())
        raise
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        await proc.wait()
        raise InstallFailed(f"{what} did not finish within {INSTALL_TIMEOUT:g} s") from None
    if proc.returncode != 0:
        raise InstallFailed(f"{what} failed with status {proc.returncode}: {_tail(out.text())}")


def site_packages(python: str) -> str:
    """The site-packages directory of the venv whose python is ``python`` (made by this interpreter)."""
    env_dir = os.path.dirname(os.path.dirname(python))
    return os.path.join(env_dir, "lib", f"python{sys.version_info.major}.{sys.version_info.minor}", "site-packages")


def _host_pip(python: str) -> tuple[str, ...] | None:
    """pip as the daemon's interpreter runs it, installing into the venv of ``python`` (``--python``, pip
    22.3 and later); None when this interpreter has no such pip, and the venv brings its own."""
    from importlib import metadata  # only on an install: it costs the daemon's start otherwise

    try:
        major, minor = (int(part) for part in metadata.version("pip").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return None
    if (major, minor) < (22, 3) or importlib.util.find_spec("pip") is None:
        return None
    return (sys.executable, "-m", "pip", "--python", python)


def remembered_failure(env_dir: str, wanted: str) -> str | None:
    """pip's words from the last failed install of exactly these requirements, if that is how it ended."""
    try:
        with open(env_dir + FAILED, encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    if isinstance(record, dict) and record.get("sha256") == wanted and isinstance(record.get("message"), str):
        return f"{record['message']} (remembered from {record.get('at', 'an earlier attempt')})"
    return None


def _remember(env_dir: str, wanted: str, message: str) -> None:
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(env_dir), exist_ok=True)
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(env_dir + FAILED, "w", encoding="utf-8") as f:
            json.dump({"sha256": wanted, "message": message, "at": at}, f)


async def ensure(
    directory: str,
    requirements: str | None,
    wanted: str | None,
    environ: dict[str, str] | None = None,
    *,
    retry: bool = False,
    cwd: str | None = None,
    progress: Progress | None = None,
) -> str | None:
    """The python to run the directory's host with: None (the daemon's own) without requirements.

    ``requirements`` is the verified copy of the directory's requirements.txt and
    ``wanted`` its sha256. An install of the same hash that failed before fails
    again at once, with the words it failed with, unless ``retry`` (an explicit
    reload): a broken requirements.txt costs one attempt, not one per start.
    Raises InstallFailed with pip's own words when the installation fails.
    """
    if wanted is None or requirements is None:
        return None
    env_dir = venv_dir(directory, environ)
    python = os.path.join(env_dir, "bin", "python")
    stamp = os.path.join(env_dir, STAMP)
    with contextlib.suppress(OSError), open(stamp, encoding="ascii") as f:
        if f.read().strip() == wanted and os.path.exists(python):
            return python
    if not retry and (failed := remembered_failure(env_dir, wanted)) is not None:
        raise InstallFailed(failed)
    log.info("installing plugin requirements", directory=directory, venv=env_dir)
    where = cwd or directory
    try:
        if os.path.isdir(env_dir):
            shutil.rmtree(env_dir, ignore_errors=True)
        if progress is not None:
            progress("creating the virtualenv")
        pip = _host_pip(python)
        # With the daemon's own pip the venv needs none of its own: copying pip into it took about 2.5 CPU
        # seconds of a plugin's first install, pip's install into it a fraction of that.
        await _run([sys.executable, "-m", "venv", *(("--without-pip",) if pip else ()), env_dir], where, "creating the virtualenv")
        await _run(
            [
                *(pip or (python, "-m", "pip")),
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--progress-bar",
                "off",
                "-r",
                requirements,
            ],
            where,
            f"pip install -r {os.path.join(directory, 'requirements.txt')}",
            progress,
        )
    except InstallFailed as exc:
        _remember(env_dir, wanted, str(exc))
        raise
    with open(stamp, "w", encoding="ascii") as f:
        f.write(wanted)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(env_dir + FAILED)
    log.info("plugin requirements installed", directory=directory)
    return python
