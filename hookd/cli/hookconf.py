"""hooks, enable, disable, trust, untrust: the hooks in force, and what may run."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from hookd.cli.common import add_socket, call, connect, error_text, exit_code_of, fail, plural, print_json


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "hooks",
        help="list the hooks in force",
        description="List every hook in force: scope, priority, name, point, type, state (on, off, untrusted) and the "
        "file it came from. With --project: the global hooks and that project's; without: every hook the daemon "
        "holds (global, every loaded project, sessions). Also lists hook files whose latest edit was rejected. "
        "A persistent hook has a `worker:` line (idle, running, backoff, failed: ERROR); plugin hooks are listed as "
        "DIR:EVENT with their plugin directory as the source. A session hook whose owner has gone (its connection "
        "closed; the session waits for it to attach again) says so, with when the session ends. With --global: the "
        "hooks that hold whatever the project or session (yours and the organisation's), and your global files' "
        "rejected edits.",
    )
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--project", "-p", metavar="DIR", help="project directory")
    scope.add_argument("--global", dest="global_only", action="store_true", help="the global hooks only, as `decide --global` uses")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_socket(p)
    p.set_defaults(run=run_hooks)

    for verb, on in (("enable", True), ("disable", False)):
        p = sub.add_parser(
            verb,
            help=f"{verb} a hook by name (kept across restarts)",
            description=f"{verb.capitalize()} the hooks named NAME: the global ones, or with --project those of that "
            "project (and global hooks, for that project only). The toggle overrides the file's `enabled` and "
            f"survives daemon restarts and edits of the file; toggling back to the file's value removes it. "
            "Needs a running daemon.",
        )
        p.add_argument("name", metavar="NAME")
        p.add_argument("--project", "-p", metavar="DIR", help="project directory")
        p.add_argument("--json", action="store_true", help="print JSON: {name, enabled, project, hooks}")
        add_socket(p)
        p.set_defaults(run=run_toggle, enabled=on)

    # trust and untrust take the same arguments and share one runner; only their words differ.
    trust_verbs = (
        (
            "trust",
            "allow a project's hook files and plugins to run",
            "Trust the hook files of a project (.codingcode/hooks.yaml, .hookd/hooks.yaml) and its plugin "
            "files (.hookd/plugin[s]/*.py, requirements.txt) as they are now: "
            "their SHA-256 is recorded under $XDG_STATE_HOME/hookd/. A later edit makes a file untrusted again until "
            "you trust it again. Read the files (and the scripts they run) first. DIR_OR_FILE: a project directory (default: "
            "the current directory), one hook file, or a plugin directory. Global files are always trusted; HOOKD_TRUST_ALL=1 trusts all.",
            "print JSON: [{file, sha256}]",
            True,
        ),
        (
            "untrust",
            "stop a project's hook files and plugins from running",
            "Forget the trust of a project's hook files and plugin files (DIR_OR_FILE: project directory, default "
            "the current directory, one hook file, or a plugin directory). Their hooks stay listed by `hookd hooks` but no longer run.",
            "print JSON: [{file}]",
            False,
        ),
    )
    for verb, summary, description, json_help, trusting in trust_verbs:
        p = sub.add_parser(verb, help=summary, description=description)
        p.add_argument("path", nargs="?", default=".", metavar="DIR_OR_FILE")
        p.add_argument("--json", action="store_true", help=json_help)
        add_socket(p)
        p.set_defaults(run=run_trust, trusting=trusting)


_call = call


def _state(h: Any) -> str:
    if not h.trusted:
        return "untrusted"
    state = "on" if h.enabled else "off"
    return state + " (toggled)" if h.toggled else state


def _gone(h: Any) -> str:
    """What a session hook whose owner has gone waits for: it is in force, but only until its session ends."""
    if not getattr(h, "owner_gone", False):
        return ""
    if h.expires_in is None:
        return "  (owner gone)"
    import math

    return f"  (owner gone; the session ends in {math.ceil(h.expires_in)} s unless attached again)"


GLOBAL_SCOPES = ("global", "managed", "managed_after")  # the hooks every call runs, whatever its project or session


def run_hooks(args: argparse.Namespace) -> int:
    listing = _call(args, "list_hooks", os.path.abspath(args.project) if args.project else None)
    if getattr(args, "global_only", False):
        listing = _global_only(listing)
    if args.json:
        print_json(listing)
        return 0
    out = sys.stdout
    if not listing.hooks:
        out.write("no hooks in force\n")
    for h in listing.hooks:
        where = h.owner if h.scope == "session" else h.source
        kind = "shadow" if getattr(h, "shadow", False) else h.type  # a decision hook whose answers are never applied
        out.write(f"{h.scope:<8} {h.priority:>5}  {h.name:<24} {h.point:<26} {kind:<9} {_state(h):<14} {where}{_gone(h)}\n")
        if h.worker:  # a persistent hook
            out.write(f"{'':<16}worker: {h.worker}\n")
        if h.builtin:  # hookd's own guard packs, and what its options change
            options = "".join(f"  {k}: {v}" for k, v in sorted(h.options.items()))
            out.write(f"{'':<16}builtin: {', '.join(h.builtin)}{options}\n")
    untrusted = {h.source: h.trust for h in listing.hooks if not h.trusted}
    for source, reason in untrusted.items():
        out.write(f"untrusted {source}: {reason}\n")
    for rejected in listing.rejected:
        out.write(f"rejected edit of {rejected.file} (its previous version stays in force):\n")
        for problem in rejected.problems:
            out.write(f"  {problem}\n")
    return 0


def run_toggle(args: argparse.Namespace) -> int:
    method = "enable_hook" if args.enabled else "disable_hook"
    count = _call(args, method, args.name, os.path.abspath(args.project) if args.project else None)
    if args.json:
        project = os.path.abspath(args.project) if args.project else None
        print_json({"name": args.name, "enabled": args.enabled, "project": project, "hooks": count})
        return 0
    where = f" for {os.path.abspath(args.project)}" if args.project else ""
    sys.stdout.write(f"{'enabled' if args.enabled else 'disabled'} {args.name}{where} ({plural(count, 'hook')})\n")
    return 0


def _offline(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Trust without a daemon: the same record, written here; a daemon reads it when it starts."""
    from hookd.config import trust, userconfig

    store = trust.TrustStore()
    error = store.load()
    if error:
        raise SystemExit(fail(f"{error}; fix or remove it first"))
    path = os.path.abspath(args.path)
    if not args.trusting:
        gone = store.untrust(path)
        if not gone:
            raise SystemExit(fail(f"nothing is trusted at {path}", 4))
        return [(f, "") for f in gone]
    try:
        files = trust.targets(path)
    except trust.NothingToTrust as exc:
        raise SystemExit(fail(str(exc), 4)) from None
    for f in files:
        if userconfig.scope_of(f)[0] == "global":
            raise SystemExit(fail(f"{f} is a global hook file: those are always trusted"))
    return list(store.trust(files).items())


def run_trust(args: argparse.Namespace) -> int:
    from hookd_client import HookdError

    try:
        with connect(args) as client:
            method = client.trust if args.trusting else client.untrust
            done = [(f.file, f.sha256) for f in method(os.path.abspath(args.path))]
    except HookdError as exc:
        if exc.code != "not_running":
            return fail(error_text(exc), exit_code_of(exc))
        done = _offline(args)
    if args.json:
        print_json([{"file": f, "sha256": sha} if args.trusting else {"file": f} for f, sha in done])
        return 0
    for file, sha in done:
        sys.stdout.write(f"trusted {file} (sha256 {sha[:12]})\n" if args.trusting else f"untrusted {file}\n")
    return 0


def _global_only(listing: Any) -> Any:
    """The listing cut to the global hooks, and the rejected edits of the user's global hook files."""
    import msgspec

    from hookd.config import userconfig

    mains = userconfig.global_main_files()
    dropins = tuple(userconfig.dropin_dir(f) + os.sep for f in mains)
    hooks = [h for h in listing.hooks if h.scope in GLOBAL_SCOPES]
    rejected = [r for r in listing.rejected if r.file in mains or r.file.startswith(dropins)]
    return msgspec.structs.replace(listing, hooks=hooks, rejected=rejected)
