"""Who answers from the page: the name approvals decided there carry when ``--name`` is not given."""

from __future__ import annotations

import contextlib
import os

FALLBACK = "dashboard"  # only when the system knows no name for this user at all


def login_name() -> str:
    """The user's login name: ``$USER``, then ``$LOGNAME``, then the password database's entry for
    this process's user, then the terminal's login record (``os.getlogin``).

    A service manager or ``env -i`` may start the dashboard with no ``USER`` in its environment;
    the answer still names the person, not the program."""
    for variable in ("USER", "LOGNAME"):
        value = os.environ.get(variable, "").strip()
        if value:
            return value
    with contextlib.suppress(ImportError, KeyError, OSError):
        import pwd

        name = pwd.getpwuid(os.getuid()).pw_name
        if name:
            return name
    with contextlib.suppress(OSError):
        name = os.getlogin()
        if name:
            return name
    return FALLBACK
