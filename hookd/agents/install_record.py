"""What an agent's settings file was before hookd's first install into it, kept in hookd's state directory.

Uninstall needs the file's bytes from before install (to give them back exactly), whether install created
the file (then it is removed again), and which directories it created (removed too, when empty). That is
kept in ``$XDG_STATE_HOME/hookd/installs/``, one private JSON file per settings file, never next to the
settings file: nothing of hookd's lands in a repository, and the record is taken before hookd writes
anything, so it never holds the bridge's secret. Uninstall removes it. ``records`` lists every install,
for the commands that check them (``hookd doctor``, ``hookd bridge status``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os

import msgspec

from hookd.agents import safe_write

DIRECTORY = "installs"


class Record(msgspec.Struct, forbid_unknown_fields=False):
    agent: str  # claude-code, qwen, gemini
    path: str  # the settings file, absolute, as install was given it
    existed: bool  # False: install created the file
    original: str | None = None  # the file's text before install (None: it did not exist)
    mode: int | None = None  # its permissions before install
    created_dirs: list[str] = msgspec.field(default_factory=list)  # made by install, outermost first
    role: str = "settings"  # "settings": the hooks are here; "secret": only the bridge's secret (a project's local file)


def directory(state: str) -> str:
    return os.path.join(state, DIRECTORY)


def record_path(state: str, path: str) -> str:
    key = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(directory(state), key + ".json")


def load(state: str, path: str) -> Record | None:
    """The record of ``path``; None when there is none or it cannot be read (uninstall then works without it)."""
    try:
        with open(record_path(state, path), "rb") as f:
            record = msgspec.json.decode(f.read(), type=Record)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return record if record.path == os.path.abspath(path) else None


def save(state: str, record: Record) -> None:
    safe_write.write_private(record_path(state, record.path), msgspec.json.encode(record) + b"\n")


def drop(state: str, path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(record_path(state, path))
    with contextlib.suppress(OSError):
        os.rmdir(directory(state))  # only when no other install is recorded


def hand_over(state: str, created: list[str], gone: str) -> None:
    """The directories install created that could not be removed with ``gone`` (another recorded file of
    hookd's is still in them) are handed to that file's record, to be removed with it."""
    left = [d for d in created if os.path.isdir(d)]
    if not left:
        return
    for record in records(state):
        inside = os.path.abspath(record.path).startswith(left[-1].rstrip("/") + "/")
        if record.path != os.path.abspath(gone) and inside:
            record.created_dirs = [*left, *(d for d in record.created_dirs if d not in left)]
            save(state, record)
            return


def remove_created(state: str, record: Record, gone: str) -> None:
    """The folders install created for ``gone``, which is gone: removed while empty, the others handed over."""
    safe_write.remove_dirs(record.created_dirs)
    hand_over(state, record.created_dirs, gone)


def release(state: str, path: str) -> None:
    """An uninstall of ``path`` in hookd's records: the folders install created removed while empty (or handed
    over), and its record dropped."""
    record = load(state, path)
    if record is not None:
        remove_created(state, record, path)
        drop(state, path)


def records(state: str) -> list[Record]:
    """Every recorded install (the settings files hookd wrote into and has not taken out of)."""
    try:
        names = sorted(os.listdir(directory(state)))
    except OSError:
        return []
    out: list[Record] = []
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(directory(state), name), "rb") as f:
                out.append(msgspec.json.decode(f.read(), type=Record))
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            continue
    return out
