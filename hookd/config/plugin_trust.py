"""Project plugin trust: a project's plugins run only once the user trusted them.

Exactly like project hook files (hookd/config/trust.py): ``hookd trust PROJECT``
records the SHA-256 of every plugin file (every ``*.py`` at any depth and
requirements.txt of .hookd/plugin/ and .hookd/plugins/, see discovery.py)
beside the hook files; an edited, added or removed-then-restored file is
untrusted until trusted again. User (global) plugins are always trusted;
``HOOKD_TRUST_ALL=1`` trusts everything.

The loader judges the bytes it is about to run, not the files as they are when
the verdict is asked for: it reads a snapshot (snapshot.py) and asks inside
:func:`judging`, which makes :func:`project_plugins_trusted` use the snapshot's
hashes instead of reading the disk again. That keeps the daemon's gate
(``directory -> Verdict``) as it is while closing the gap between check and load.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator, Mapping

from hookd.config import trust
from hookd.config.plugin_dirs import relevant_files
from hookd.core import intake

# Absolute file path -> sha256 of the bytes the loader holds; None: hash the disk.
_JUDGING: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar("plugin_trust_judging", default=None)


@contextlib.contextmanager
def judging(digests: Mapping[str, str]) -> Iterator[None]:
    """Verdicts asked for inside this block are about exactly ``digests`` (path -> sha256)."""
    token = _JUDGING.set(dict(digests))
    try:
        yield
    finally:
        _JUDGING.reset(token)


def project_plugins_trusted(store: trust.TrustStore, directory: str) -> trust.Verdict:
    """Whether every file of a project plugin directory is trusted as it is now (or as the
    snapshot being judged holds it); the first reason it is not."""
    project = os.path.dirname(os.path.dirname(os.path.abspath(directory)))
    digests = _JUDGING.get()
    if digests is None:
        digests = {}
        for path in relevant_files(directory):
            try:
                digests[str(path)] = trust.digest(str(path))
            except OSError as exc:
                return trust.Verdict(False, f"cannot read {intake.safe_text(str(path))}: {exc}")
    if not digests:
        return trust.Verdict(False, f"no plugin files in {intake.safe_text(directory)}")
    for path, sha in sorted(digests.items()):
        verdict = store.verdict("project", path, sha, project)
        if not verdict.trusted:
            return verdict
    return trust.Verdict(True, "trusted" if not store.trust_all else f"{trust.TRUST_ALL_ENV}=1")
