"""The verified copy of a plugin directory that its host runs from.

Trust is granted to bytes, so the daemon reads each file that counts (see
discovery.py) once, hashes those bytes, has trust judge the hashes, and writes
the same bytes into a private directory under the state directory (0700, the
daemon's own). The host imports only from that copy, so a file edited after
the check, or a module nobody hashed, can never run in a trusted host. The copy
is hashed again after it is written, and removed when its host is retired.

Reading is bounded (file count, bytes per file and in all) and never blocks on
a FIFO. These functions do file I/O: the manager runs them off the event loop.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
import secrets
import shutil
import stat
from dataclasses import dataclass, field

from hookd.config import plugin_dirs as discovery
from hookd.config.statefiles import state_home

MAX_FILE_BYTES = 4 << 20
MAX_TOTAL_BYTES = 32 << 20
RUN_DIR = "plugin-run"


class Unreadable(Exception):
    """The directory cannot be copied as it is (too big, a file vanished or changed type)."""


@dataclass(slots=True)
class Snapshot:
    directory: str
    files: dict[str, bytes] = field(default_factory=dict)  # path relative to the directory -> content
    digests: dict[str, str] = field(default_factory=dict)  # same paths -> sha256 of that content
    unfit: list[str] = field(default_factory=list)

    @property
    def has_code(self) -> bool:
        return any(rel.endswith(".py") for rel in self.files)

    @property
    def requirements(self) -> str | None:
        """The sha256 of requirements.txt, None without one."""
        return self.digests.get(discovery.REQUIREMENTS)

    def paths(self) -> dict[str, str]:
        """Absolute path of each original file -> its sha256: what trust judges."""
        return {os.path.join(self.directory, rel): sha for rel, sha in self.digests.items()}


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable(f"{path} is not a regular file")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise Unreadable(f"{path} is over {MAX_FILE_BYTES >> 20} MiB")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def take(directory: str) -> Snapshot:
    """Read and hash every file that counts. Raises Unreadable."""
    found = discovery.scan(directory)
    if found.too_many:
        raise Unreadable(f"{directory} holds more than {discovery.MAX_FILES} plugin files")
    snap = Snapshot(directory, unfit=list(found.unfit))
    total = 0
    for rel in found.files:
        try:
            data = _read(os.path.join(directory, rel))
        except FileNotFoundError:
            continue  # removed since the walk: the poller sees it and loads again
        except OSError as exc:
            raise Unreadable(f"cannot read {os.path.join(directory, rel)}: {exc}") from None
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            raise Unreadable(f"{directory} holds more than {MAX_TOTAL_BYTES >> 20} MiB of plugin files")
        snap.files[rel] = data
        snap.digests[rel] = hashlib.sha256(data).hexdigest()
    return snap


def run_root(environ: dict[str, str] | None = None) -> str:
    return os.path.join(state_home(environ), RUN_DIR)


def sweep(environ: dict[str, str] | None = None) -> None:
    """Remove the copies left by daemons that are gone (a crash skips the cleanup)."""
    root = run_root(environ)
    with contextlib.suppress(OSError):
        for name in os.listdir(root):
            pid = name.partition("-")[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True, slots=True)
class Copy:
    root: str  # removed as a whole when the host is retired
    files: str  # the host imports from here
    cwd: str  # an empty directory: the host's working directory

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def materialize(snap: Snapshot, environ: dict[str, str] | None = None) -> Copy:
    """Write the snapshot's bytes into a new private directory, and check the copy's hashes."""
    base = run_root(environ)
    os.makedirs(base, mode=0o700, exist_ok=True)
    os.chmod(base, 0o700)
    root = os.path.join(base, f"{os.getpid()}-{secrets.token_hex(6)}")
    os.mkdir(root, 0o700)
    copy = Copy(root, os.path.join(root, "files"), os.path.join(root, "cwd"))
    try:
        os.mkdir(copy.files, 0o700)
        os.mkdir(copy.cwd, 0o700)
        for rel, data in snap.files.items():
            target = os.path.join(copy.files, rel)
            os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        for rel, sha in snap.digests.items():
            with open(os.path.join(copy.files, rel), "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != sha:
                    raise Unreadable(f"the private copy of {rel} does not hash as the original did")
    except BaseException:
        copy.remove()
        raise
    return copy


def declared_events(snap: Snapshot) -> set[str]:
    """Event names a directory's code writes as string keys of a dict display (``{"tool.execute.before": f}``).

    A static guess, made without running anything: it names the guards of a
    directory whose host is not loaded (still installing, or failed), so a call
    can list them as not run. The host's own answer replaces it once loaded.
    """
    found: set[str] = set()
    for rel, data in snap.files.items():
        if not rel.endswith(".py"):
            continue
        try:
            tree = ast.parse(data, filename=rel)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for key in node.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        found.add(key.value)
    return found
