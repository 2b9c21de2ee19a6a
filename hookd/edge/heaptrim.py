"""Giving freed memory back to the system after a burst of large buffers.

glibc's allocator raises its mmap threshold each time it frees a large mapped block, so after the
first few large reads, buffers of a megabyte or so come from the heap, and freeing them does not
shrink the process: a daemon that held 200 MiB of partial frames kept that much resident after
their connections closed. ``malloc_trim`` returns the heap's free pages. Where the C library has
no ``malloc_trim`` (musl, other systems) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

import structlog

log = structlog.get_logger("hookd.edge")


def _load() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_trim = _load()


def available() -> bool:
    return _trim is not None


def trim() -> bool:
    """Return the heap's free pages to the system; whether any were returned."""
    if _trim is None:
        return False
    try:
        return bool(_trim(0))
    except OSError as exc:  # never expected; the memory then stays, which is all it costs
        log.warning("could not return freed memory to the system", error=str(exc))
        return False
