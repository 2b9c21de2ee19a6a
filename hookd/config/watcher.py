"""Notices edits of hook files, including files and directories that do not exist yet.

A small stat poller rather than inotify or a watching library: the set is a
handful of files per project, many of them absent (``.hookd/`` may be created
later, editors replace files by rename), and polling handles all of that the
same way with a few ``stat`` calls every quarter second. A change is acted on
once the file has looked the same for one more poll, so a file caught half
written is not loaded; an edit takes effect within about half a second.

Drop-in directories (``hooks.d/``) are watched by their listing: a file that
appears there is watched from then on as a file that did not exist before (so
it loads once settled), and a file removed from there reads as deleted.

Linux file times tick coarsely (a jiffy), so two same-size writes within one
tick can leave the stat signature unchanged; for a file modified in the last
two seconds the poller also compares a content hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from hookd.config import hookfile

log = structlog.get_logger("hookd.watcher")

Signature = tuple[int, int, int, int]
RECENT = 2.0  # seconds: within this of a file's mtime, a same-signature rewrite is possible


def signature(path: str) -> Signature | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def content_hash(path: str) -> str | None:
    """The hash of a regular file of bounded size (see hookd/config/hookfile.py): a FIFO or a device is never read."""
    return hookfile.content_hash(path)


@dataclass(slots=True)
class Watched:
    tag: Any
    sig: Signature | None = None
    sha: str | None = None
    pending: tuple[Signature | None, str | None] | None = None


class FileWatcher:
    """Calls ``on_change(path, tag)`` when a watched file's content changed and settled."""

    def __init__(self, on_change: Callable[[str, Any], None], interval: float = 0.25, on_tick: Callable[[], None] | None = None) -> None:
        self.on_change = on_change
        self.on_tick = on_tick  # called before every poll
        self.interval = interval
        self.files: dict[str, Watched] = {}
        self.dirs: dict[str, tuple[Any, Callable[[str], list[str]], tuple[str, ...]]] = {}  # dir -> (tag, lister, listing)
        self._task: asyncio.Task[None] | None = None

    def watch(self, path: str, tag: Any) -> None:
        if path not in self.files:
            self.files[path] = Watched(tag, signature(path), content_hash(path))

    def watch_dir(self, directory: str, tag: Any, lister: Callable[[str], list[str]]) -> None:
        """Watch the files ``lister(directory)`` names, now and as they come and go."""
        if directory not in self.dirs:
            listing = tuple(lister(directory))
            self.dirs[directory] = (tag, lister, listing)
            for path in listing:
                self.watch(path, tag)

    def forget_dirs(self, directories: list[str]) -> None:
        for directory in directories:
            entry = self.dirs.pop(directory, None)
            if entry is not None:
                self.forget(list(entry[2]))

    def _scan_dirs(self) -> None:
        for directory, (tag, lister, before) in list(self.dirs.items()):
            now = tuple(lister(directory))
            if now == before:
                continue
            self.dirs[directory] = (tag, lister, now)
            for path in now:
                if path not in self.files:
                    self.files[path] = Watched(tag)  # unknown until read: its first settled look loads it

    def loaded(self, path: str, sig: Signature | None, sha: str | None) -> None:
        """What the loader read (its stat taken *before* reading), so only later edits count."""
        entry = self.files.get(path)
        if entry is not None:
            entry.sig, entry.sha, entry.pending = sig, sha, None

    def forget(self, paths: list[str]) -> None:
        for path in paths:
            self.files.pop(path, None)

    def poll(self) -> list[str]:
        """One pass over the files; returns the paths handed to ``on_change``."""
        changed = []
        if self.on_tick is not None:
            self.on_tick()
        self._scan_dirs()
        now = time.time()
        for path, entry in list(self.files.items()):
            sig = signature(path)
            if sig == entry.sig and (sig is None or now - sig[2] / 1e9 > RECENT):
                entry.pending = None
                continue
            sha = content_hash(path) if sig is not None else None
            if sig == entry.sig and sha == entry.sha:
                entry.pending = None
                continue
            if (sig, sha) != entry.pending:
                entry.pending = (sig, sha)  # settle for one more poll before acting
                continue
            entry.pending = None
            entry.sig, entry.sha = sig, sha
            changed.append(path)
            try:
                self.on_change(path, entry.tag)
            except Exception:
                log.exception("reloading a changed hook file failed", file=path)
        return changed

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                self.poll()
            except Exception:  # the watcher must outlive any one bad pass: log it and keep polling
                log.exception("polling the hook files failed; the watcher goes on")

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name="hookd-watcher")
            self._task.add_done_callback(_ended)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    @property
    def running(self) -> bool:
        return self._task is not None

    async def stopped(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _ended(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("the hook file watcher stopped: edits are no longer noticed", error=f"{type(exc).__name__}: {exc}", exc_info=exc)


def interval_from_env() -> float:
    """``$HOOKD_WATCH_INTERVAL`` seconds between polls of the hook files (0: do not watch; SIGHUP still reloads)."""
    try:
        return max(0.0, float(os.environ.get("HOOKD_WATCH_INTERVAL", "0.25")))
    except ValueError:
        log.error("HOOKD_WATCH_INTERVAL is not a number of seconds; using 0.25")
        return 0.25
