"""Giving freed memory back to the system after a burst of large buffers.

glibc's allocator raises its mmap threshold each time it frees a large mapped block, so after the
first few large reads, buffers of a megabyte or so come from the heap, and freeing them does not
shrink the process: a daemon that held 200 MiB of partial frames kept that much resident after
their connections closed. ``malloc_trim`` returns the heap's free pages. Where the C library has
no ``malloc_trim`` (musl, other systems) this does nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import structlog

log = structlog.get_logger("hookd.edge")


@functools.cache  # looked up at the first trim, not at start: a daemon that never trims never loads ctypes
def _load() -> Callable[[int], int] | None:
    # The process's own symbols, the C library's among them: no library search, which on Linux
    # (ctypes.util.find_library) starts ldconfig, a process, and did so at every daemon start.
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


def trim() -> bool:
    """Return the heap's free pages to the system; whether any were returned."""
    malloc_trim = _load()
    if malloc_trim is None:
        return False
    try:
        return bool(malloc_trim(0))
    except OSError as exc:  # never expected; the memory then stays, which is all it costs
        log.warning("could not return freed memory to the system", error=str(exc))
        return False
