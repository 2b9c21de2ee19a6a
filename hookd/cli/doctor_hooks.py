"""The checks of `hookd doctor` on what the daemon runs: rejected and untrusted hook files, hook
commands that cannot start, plugin directories, the agents' bridges and the systemd unit. Like
doctor_checks, they only read."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hookd.cli.common import plural
from hookd.cli.doctor_checks import Check, Daemon, Status

# ------------------------------------------------------------------ hook files


def rejected_checks(d: Daemon) -> Iterator[Check]:
    if d.hooks is None:
        return
    rejected = list(d.hooks.rejected)
    for r in rejected:
        first = r.problems[0] if r.problems else "rejected"
        more = f" (and {len(r.problems) - 1} more)" if len(r.problems) > 1 else ""
        yield Check(
            "hook file",
            "fail",
            f"{r.file} was rejected: {first}{more}; its hooks are not the ones in the file",
            f"`hookd check {shlex.quote(r.file)}`, fix it and save",
        )
    if not rejected:
        yield Check("hook files", "ok", "no rejected hook file")


def untrusted_checks(d: Daemon, cwd: str) -> Iterator[Check]:
    if d.here is None:
        return
    files: dict[str, tuple[int, str]] = {}
    for h in d.here.hooks:
        if h.scope == "project" and not h.trusted:
            count, _ = files.get(h.source, (0, ""))
            files[h.source] = (count + 1, h.trust)
    for source, (count, why) in files.items():
        yield Check(
            "trust",
            "warn",
            f"{source}: {plural(count, 'hook')} will not run, the file is not trusted ({why})",
            f"read it and the scripts it runs, then `hookd trust {shlex.quote(cwd)}`",
        )
    if not files:
        yield Check("trust", "ok", f"no untrusted project hook file in {cwd}")


# ------------------------------------------------------------------ commands on the daemon's PATH


def _specs(source: str) -> dict[str, Any]:
    from hookd.config import userconfig

    try:
        loaded = userconfig.read(source)
    except userconfig.ConfigInvalid:
        return {}
    return {s.name: s for s in loaded.specs} if loaded is not None else {}


def _workdir(hook: Any, spec: Any, home: str) -> str:
    base = hook.owner if hook.scope == "project" else home
    return os.path.normpath(os.path.join(base, os.path.expanduser(spec.cwd))) if spec.cwd else base


def command_checks(d: Daemon) -> Iterator[Check]:
    if d.hooks is None:
        return
    env = d.environ
    assumed = ""
    if env is None:
        env = dict(os.environ)
        assumed = f" (the daemon's environment is not readable: assumed this shell's PATH, {env.get('PATH', '')})"
    home = env.get("HOME") or os.path.expanduser("~")
    specs: dict[str, dict[str, Any]] = {}
    checked = 0
    for h in d.hooks.hooks:
        if not h.source.startswith("/") or h.scope == "session":
            continue  # session and plugin hooks: the client or the plugin host runs them
        spec = specs.setdefault(h.source, _specs(h.source)).get(h.name)
        if spec is None or spec.builtin:
            continue  # a built-in hook runs hookd's own packs: no program to look up
        checked += 1
        path = spec.env.get("PATH", env.get("PATH", os.defpath))
        if "/" in spec.command:
            exe = os.path.normpath(os.path.join(_workdir(h, spec, home), os.path.expanduser(spec.command)))
            if not os.path.isfile(exe):
                yield Check("command", "fail", f"hook {h.name!r} ({h.source}): {exe} does not exist", "fix `command` in the file")
            elif not os.access(exe, os.X_OK):
                yield Check("command", "fail", f"hook {h.name!r} ({h.source}): {exe} is not executable", f"`chmod +x {shlex.quote(exe)}`")
        elif shutil.which(spec.command, path=path) is None:
            yield Check(
                "command",
                "fail",
                f"hook {h.name!r} ({h.source}): {spec.command!r} is not on the daemon's PATH {path}{assumed}",
                "write its absolute path in `command`, or add its directory to the daemon's PATH "
                "(systemd: `systemctl --user set-environment PATH=...` then restart hookd)",
            )
    where = "the daemon's PATH" if not assumed else "this shell's PATH (the daemon's environment is not readable)"
    yield Check("commands", "ok" if not assumed else "warn", f"{plural(checked, 'command hook')} looked up on {where}")


# ------------------------------------------------------------------ plugin environments


def _plugin_events(socket: str) -> dict[str, Any]:
    """The newest hookd.plugin.loaded / hookd.plugin.error event per directory, from the daemon's history."""
    from hookd_client import Client, HookdError
    from hookd_client.messages import Event, Live

    latest: dict[str, Any] = {}
    try:
        sub = Client(socket, name="hookd-doctor", connect=False).subscribe(["hookd.plugin.*"], since=0, follow=False, timeout=10)
        with sub:
            for item in sub:
                if isinstance(item, Live):
                    break
                if not isinstance(item, Event):
                    continue
                # A handler's own error is not the directory's: only trust, installing, loading and the host count.
                fault = item.point == "hookd.plugin.error" and item.payload.get("kind") in ("install", "host", "load", "untrusted")
                if item.point == "hookd.plugin.loaded" or fault:
                    directory = item.payload.get("directory")
                    if isinstance(directory, str):
                        latest[directory] = item
    except (HookdError, OSError):
        pass
    return latest


def plugin_checks(d: Daemon, cwd: str) -> Iterator[Check]:
    from hookd.config import plugin_dirs as discovery
    from hookd.plugins.venv import STAMP, venv_dir

    env = d.environ if d.environ is not None else dict(os.environ)
    dirs = [
        p
        for p in [*discovery.global_dirs(env), *discovery.project_dirs(cwd)]
        if any(f.suffix == ".py" for f in discovery.relevant_files(p))
    ]
    if not dirs:
        yield Check("plugins", "ok", "no plugin directory (global or in this project)")
        return
    events = _plugin_events(d.socket) if d.status is not None else {}
    for directory in dirs:
        last = events.get(directory)
        if last is not None and last.payload.get("kind") == "untrusted":
            yield Check("plugins", "warn", f"{directory}: not loaded, not trusted", f"read it, then `hookd trust {shlex.quote(directory)}`")
            continue
        failed = last is not None and last.point == "hookd.plugin.error"
        wanted = discovery.requirements_hash(directory)
        if wanted is not None:
            env_dir = venv_dir(directory, env)
            try:
                stamp = Path(env_dir, STAMP).read_text(encoding="ascii").strip()
            except OSError:
                stamp = ""
            if stamp != wanted:
                why = last.payload.get("message", "") if failed else "not installed yet"
                status: Status = "fail" if failed else "warn"
                yield Check(
                    "plugins",
                    status,
                    f"{directory}: requirements.txt: {why} ({env_dir})",
                    "fix requirements.txt and save a plugin file to retry",
                )
                continue
        if failed:
            message = " ".join(str(last.payload.get("message", "")).split())[:300]
            yield Check("plugins", "fail", f"{directory}: {message}", "fix it and save a plugin file to reload")
        elif last is not None:
            yield Check("plugins", "ok", f"{directory}: loaded" + (" (requirements installed)" if wanted else ""))
        else:
            note = "requirements installed; " if wanted else ""
            yield Check(
                "plugins",
                "warn",
                f"{directory}: {note}no load recorded by the daemon (untrusted, or not loaded yet)",
                "`hookd plugins` says whether it may run",
            )


# ------------------------------------------------------------------ the agent bridge and the systemd unit


def _runnable(argv0: str, path: str) -> str | None:
    """None when argv0 can be run; else why not."""
    if "/" in argv0:
        if not os.path.isfile(argv0):
            return f"{argv0} does not exist"
        return None if os.access(argv0, os.X_OK) else f"{argv0} is not executable"
    return None if shutil.which(argv0, path=path) else f"{argv0!r} is not on PATH"


def unit_check() -> Check:
    from hookd.edge import units

    try:
        path, texts = units.installed_service()
    except FileNotFoundError:
        return Check("systemd unit", "ok", f"no hookd.service in {units.user_unit_dir()} (optional: `hookd install-systemd`)")
    except OSError as exc:
        return Check("systemd unit", "warn", f"cannot read the user unit: {exc}", "check the file's permissions")
    argv = units.exec_start(texts)
    if not argv:
        return Check(
            "systemd unit", "fail", f"{path} has no readable ExecStart=", "`hookd install-systemd`, then `systemctl --user daemon-reload`"
        )
    # systemd resolves a bare name in its own fixed search path, not the user's PATH.
    why = _runnable(argv[0], "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin")
    if why:
        return Check(
            "systemd unit",
            "fail",
            f"{path}: ExecStart runs {argv[0]}, but {why}",
            "`hookd install-systemd` (writes this hookd's absolute path), then `systemctl --user daemon-reload`",
        )
    return Check("systemd unit", "ok", f"{path}: ExecStart runs {' '.join(argv)}")
