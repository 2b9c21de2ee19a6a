"""`hookd bridge install codex` and `uninstall codex`, called from hookd/cli/bridge.py.

Trusting the hooks is part of install: Codex runs no hook it was not told to trust, and says nothing
about one it skips, so hooks installed but not trusted guard nothing. Install asks Codex itself to
trust exactly the hooks it wrote (trust.py); when that cannot be done it exits 1 naming the step.
``--no-trust`` skips it, with a warning on stderr and exit 1 unless ``--accept-untrusted`` is given
too (automation that runs ``codex exec --dangerously-bypass-hook-trust``).
"""

from __future__ import annotations

import argparse
import shutil
import sys

from hookd.agents.codex import install


def _path(args: argparse.Namespace) -> str:
    if getattr(args, "settings", None):
        return str(args.settings)
    return install.config_path(getattr(args, "scope", None) or "user")


def options_for(args: argparse.Namespace) -> install.Options:
    """What to install: the shim and the daemon's HTTP endpoint (as for Claude Code's command-only events),
    else, with --command or --no-shim or without a C compiler, the Python bridge. Raises TimeoutRefused."""
    from hookd.cli.bridge_route import checked_bridge_args, checked_timeout, route

    timeout = checked_timeout(args, "Codex")
    fail_closed = bool(getattr(args, "fail_closed", False))
    extra = checked_bridge_args(args)
    command = getattr(args, "command", None)
    if command is not None:
        return install.default_options(timeout, fail_closed, extra, hookd=command)
    how = route(args, timeout)
    return install.default_options(timeout, fail_closed, extra)._replace(shim=how.shim, port=how.port, token_file=how.token_file)


def codex_cli(args: argparse.Namespace) -> str | None:
    """The Codex that trusts the hooks: --trust CODEX, else --agent-cli, else `codex` on PATH."""
    named = getattr(args, "trust", None) or getattr(args, "agent_cli", None)
    return shutil.which(named or "codex")


def run_install(args: argparse.Namespace) -> int:
    from hookd.agents import deadlines, safe_write
    from hookd.cli.common import fail
    from hookd.config.endpoint_files import EndpointFileError

    if getattr(args, "no_trust", False) and getattr(args, "trust", None) is not None:
        return fail("--trust and --no-trust contradict each other; give one")
    try:
        options = options_for(args)
        path = _path(args)
        result = install.install(path, options)
    except (install.InstallError, deadlines.TimeoutRefused, EndpointFileError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    if getattr(args, "no_trust", False):
        sys.stderr.write(
            "hookd: WARNING: the hooks are installed but NOT trusted (--no-trust), so Codex runs none of them and "
            "nothing is guarded until they are: " + install.TRUST_NOTE + "\n"
        )
        return 0 if getattr(args, "accept_untrusted", False) else 1
    codex = codex_cli(args)
    if codex is None:
        named = getattr(args, "trust", None) or getattr(args, "agent_cli", None)
        why = f"{named!r} is not an executable" if named else "no `codex` on PATH (give it with --agent-cli PATH)"
        return fail(f"the hooks are installed in {path} but not trusted, so Codex runs none of them: {why}. " + install.TRUST_NOTE)
    from hookd.agents.codex import trust

    try:
        trusted = trust.trust(codex, path, install.commands(options))
    except trust.TrustError as exc:
        return fail(
            f"the hooks are installed in {path} but trusting them through Codex failed, so Codex runs none of them: {exc}. "
            + install.TRUST_NOTE
        )
    sys.stdout.write(f"trusted through Codex ({codex} app-server): {trusted} hookd hooks in {path}\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.agents import safe_write
    from hookd.cli.common import fail

    try:
        result = install.uninstall(_path(args))
    except (install.InstallError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
