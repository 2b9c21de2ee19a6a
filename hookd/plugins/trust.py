"""Project plugin trust: a project's plugins run only once the user trusted them.

Exactly like project hook files (hookd/trust.py, issue 3): ``hookd trust
PROJECT`` records the SHA-256 of every plugin file (*.py and requirements.txt
of .hookd/plugin/ and .hookd/plugins/) beside the hook files; an edited, added
or removed-then-restored file is untrusted until trusted again. User (global)
plugins are always trusted; ``HOOKD_TRUST_ALL=1`` trusts everything.
"""

from __future__ import annotations

import os

from .. import trust
from .discovery import relevant_files


def project_plugins_trusted(store: trust.TrustStore, directory: str) -> trust.Verdict:
    """Whether every file of a project plugin directory is trusted as it is now; the first reason it is not."""
    project = os.path.dirname(os.path.dirname(os.path.abspath(directory)))
    files = relevant_files(directory)
    if not files:
        return trust.Verdict(False, f"no plugin files in {directory}")
    for path in files:
        try:
            sha = trust.digest(str(path))
        except OSError as exc:
            return trust.Verdict(False, f"cannot read {path}: {exc}")
        verdict = store.verdict("project", str(path), sha, project)
        if not verdict.trusted:
            return verdict
    return trust.Verdict(True, "trusted" if not store.trust_all else f"{trust.TRUST_ALL_ENV}=1")
