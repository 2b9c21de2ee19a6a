"""Add the bridge to a Claude Code settings file, and take it out again.

By default every Claude Code event reaches hookd with no process per event: an
HTTP hook to the daemon's loopback endpoint wherever Claude Code accepts one,
the compiled shim (or, with no C compiler, the Python bridge) for the events
that take only commands. The endpoint's secret goes in the file's ``env``
block, which Claude Code hands to its HTTP hooks through ``$HOOKD_BRIDGE_TOKEN``
(``allowedEnvVars``); the file is then made readable by its owner alone.
``--command`` installs the Python bridge as a command for every mapped event instead.

The file belongs to the user: every other setting and hook stays, the file
keeps its indentation, and a backup of the original bytes is written before
the first change, readable only by its owner. A settings file that is a
symlink (dotfile managers do this) is updated at its target and stays a link.
Uninstall removes only the matcher groups install added
(recognised by their exact shape) plus the containers install created; when
the result equals the backup, the backup's bytes are put back, so an install
followed by an uninstall leaves the file byte-identical.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from .claude_code import EXIT_2_ONLY, INSTALLED_EVENTS

BRIDGE_ARGS = "bridge claude-code"
BACKUP_SUFFIX = ".hookd-backup"
SHIM_NAME = "claude-shim"
TOKEN_ENV = "HOOKD_BRIDGE_TOKEN"
# Claude Code's default hook timeout: the bridge never gives up before the hooks behind it would.
DEFAULT_TIMEOUT = 600
# Every event Claude Code fires (its settings schema lists them), in its order.
CLAUDE_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit",
    "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "PreCompact", "PostCompact", "PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup",
    "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate",
    "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded", "MessageDisplay",
    "PreSkillShellCommand",
)  # fmt: skip
# A hook on these replaces what Claude Code does itself (creating and removing git worktrees), so the
# bridge is not installed there: it would break worktrees for everyone who has no hook of their own.
NOT_INSTALLED = {
    "WorktreeCreate": "a WorktreeCreate hook replaces Claude Code's own worktree creation",
    "WorktreeRemove": "a WorktreeRemove hook replaces Claude Code's own worktree removal",
}
EVENTS = tuple(e for e in dict.fromkeys((*CLAUDE_EVENTS, *INSTALLED_EVENTS)) if e not in NOT_INSTALLED)
# Claude Code skips HTTP hooks on these ("HTTP hooks are not supported for SessionStart"): they get a command.
COMMAND_ONLY = frozenset({"SessionStart", "Setup"})
# Claude Code blocks these only when a command hook exits 2, which an HTTP hook cannot do: the shim
# (or the Python bridge) runs there, so that a hookd deny blocks them as a direct hook's exit 2 would.
COMMAND_EVENTS = COMMAND_ONLY | EXIT_2_ONLY
# Installed whatever hooks hookd has: SessionStart attaches the session and forwards the agent's
# environment; UserPromptSubmit and Stop come once a turn, so a session that started before a hook was
# added on an event it does not call hookd for is told so at its next turn (hookd/bridges/installed.py).
ALWAYS = frozenset({"SessionStart", "UserPromptSubmit", "Stop"})
# The agent's environment the HTTP hooks forward to hookd (Claude Code fills only the variables listed).
FORWARDED_ENV = ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "PATH", "HOME")
_OUR_URL = re.compile(r"http://127\.0\.0\.1:[0-9]{1,5}/(claude-code|qwen)/[A-Za-z0-9]{1,64}(\?events=[A-Za-z,]{1,2000})?")
# The agents that speak Claude Code's settings format, each answered on its own path (``/AGENT/EVENT``).
AGENTS = ("claude-code", "qwen")
_HTTP_KEYS = frozenset({"type", "url", "headers", "allowedEnvVars", "timeout", "onFailure"})
_COMMAND_KEYS = frozenset({"type", "command", "timeout"})
SCOPES = {"user": "~/.claude/settings.json", "project": ".claude/settings.json", "local": ".claude/settings.local.json"}


class SettingsError(Exception):
    pass


def path_for(scope: str) -> str:
    return os.path.abspath(os.path.expanduser(SCOPES[scope]))


def default_hookd() -> str:
    """How the agent should start this hookd: an absolute path, since agents do not share our PATH."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "hookd" and os.path.isfile(argv0):
        return shlex.quote(os.path.abspath(argv0))
    found = shutil.which("hookd")
    if found:
        return shlex.quote(os.path.abspath(found))
    return f"{shlex.quote(sys.executable)} -m hookd"


def bridge_command(command: str | None, extra: str = "") -> str:
    cmd = f"{command or default_hookd()} {BRIDGE_ARGS}"
    return f"{cmd} {extra.strip()}" if extra.strip() else cmd


def group_for(command: str) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": command}]}


class Route(NamedTuple):
    """How the installed hooks reach hookd: HTTP on ``port`` where Claude Code accepts it, else ``command_for``."""

    port: int
    token: str
    token_file: str
    shim: str | None  # the compiled shim; None: the Python bridge (``fallback``) runs the command-only events
    fallback: str
    timeout: int = DEFAULT_TIMEOUT
    fail_closed: bool = False
    # The events to install (None: all of EVENTS). Each installed hook names the set it belongs to, so
    # the daemon can tell a session that read an older set which of hookd's hooks it cannot run.
    events: tuple[str, ...] | None = None
    # The agent the hooks are installed for: its calls name it, and its tools are read with its table.
    agent: str = "claude-code"

    def installed(self) -> tuple[str, ...]:
        if self.events is None:
            return EVENTS
        wanted = set(self.events) | ALWAYS
        return tuple(e for e in EVENTS if e in wanted)

    def _set_query(self) -> str:
        return "" if self.events is None else "?events=" + ",".join(self.installed())

    def http_hook(self, event: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer ${TOKEN_ENV}"}
        headers.update({f"X-Hookd-Env-{name}": f"${name}" for name in FORWARDED_ENV})
        hook: dict[str, Any] = {
            "type": "http",
            "url": f"http://127.0.0.1:{self.port}/{self.agent}/{event}{self._set_query()}",
            "headers": headers,
            "allowedEnvVars": [TOKEN_ENV, *FORWARDED_ENV],
            "timeout": self.timeout,
        }
        if self.fail_closed and event == "PreToolUse":
            # Claude Code blocks the tool call when the request fails (hookd down): --fail-closed for HTTP.
            hook["onFailure"] = "block"
        return hook

    def command_for(self, event: str) -> str:
        closed = " --fail-closed" if self.fail_closed else ""
        if self.shim:
            events = f" --events {','.join(self.installed())}" if self.events is not None else ""
            agent = f" --agent {self.agent}" if self.agent != "claude-code" else ""
            return (
                f"{shlex.quote(self.shim)} {event} {self.port} {shlex.quote(self.token_file)} --timeout {self.timeout}"
                f"{closed}{agent}{events}"
            )
        return f"{self.fallback} bridge {self.agent} --timeout {self.timeout}{closed}"

    def group(self, event: str) -> dict[str, Any]:
        if event in COMMAND_EVENTS:
            return {"hooks": [{"type": "command", "command": self.command_for(event), "timeout": self.timeout}]}
        return {"hooks": [self.http_hook(event)]}


def _our_command(command: Any) -> bool:
    if not isinstance(command, str):
        return False
    if re.search(r"(^|\s)bridge (" + "|".join(map(re.escape, AGENTS)) + r")(\s|$)", command):
        return True
    try:
        argv0 = shlex.split(command)[0]
    except (ValueError, IndexError):
        return False
    return os.path.basename(argv0) == SHIM_NAME


def is_ours(group: Any) -> bool:
    """A matcher group exactly as install writes it."""
    if not isinstance(group, dict) or set(group) != {"hooks"} or not isinstance(group["hooks"], list) or len(group["hooks"]) != 1:
        return False
    hook = group["hooks"][0]
    if not isinstance(hook, dict):
        return False
    if hook.get("type") == "command":
        return set(hook) <= _COMMAND_KEYS and _our_command(hook.get("command"))
    if hook.get("type") == "http":
        url = hook.get("url")
        return set(hook) <= _HTTP_KEYS and isinstance(url, str) and _OUR_URL.fullmatch(url) is not None
    return False


@dataclass(frozen=True, slots=True)
class Style:
    indent: int | str | None = 2
    newline: bool = True

    @classmethod
    def of(cls, text: str) -> Style:
        m = re.search(r"\n([ \t]+)\S", text)
        indent: int | str | None = None
        if m:
            ws = m.group(1)
            indent = len(ws) if set(ws) == {" "} else ws
        return cls(indent, text.endswith("\n"))

    def dump(self, doc: Any) -> str:
        separators = (",", ": ") if self.indent is not None else (",", ":")
        return json.dumps(doc, indent=self.indent, ensure_ascii=False, separators=separators) + ("\n" if self.newline else "")


def _read(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None


def _parse(data: bytes | None, path: str) -> dict[str, Any]:
    if data is None or not data.strip():
        return {}
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path} is not UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix it first, nothing was changed") from None
    if not isinstance(doc, dict):
        raise SettingsError(f"{path} must hold a JSON object, not {type(doc).__name__}")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise SettingsError(f"{path}: 'hooks' must map event names to lists of matcher groups; nothing was changed")
    return doc


def _target(path: str) -> Path:
    """Where the bytes of ``path`` live: a symlinked settings file is updated at its target, and stays a link."""
    return Path(os.path.realpath(path))


def _replace(target: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``target`` atomically: a private temporary file next to it, given ``mode``, then renamed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates the file with O_EXCL and mode 0600: no one else can open it before the chmod below.
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write(path: str, data: bytes, mode: int | None = None) -> None:
    target = _target(path)
    if mode is None:
        try:
            mode = target.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644 & ~_umask()
    _replace(target, data, mode)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _backup(path: str, data: bytes) -> str:
    """Keep ``data`` (the file before install) next to ``path``, with the original's mode: readable by no one
    the original was not."""
    backup = path + BACKUP_SUFFIX
    mode = _target(path).stat().st_mode & 0o777
    # A fresh temporary file (O_EXCL, 0600) renamed over the backup: an existing backup or a link planted
    # at its name is replaced, never written through.
    _replace(Path(backup), data, mode)
    return backup


def _ours(doc: dict[str, Any], ours: Callable[[Any], bool] = is_ours) -> int:
    return sum(1 for groups in doc.get("hooks", {}).values() for g in groups if ours(g))


def _strip(doc: dict[str, Any], before: dict[str, Any] | None, ours: Callable[[Any], bool] = is_ours) -> None:
    """Take out of ``doc`` what install put in: our groups, the secret, and the containers install created."""
    before_hooks = before.get("hooks", {}) if before is not None and "hooks" in before else None
    hooks = doc.get("hooks", {})
    for event in list(hooks):
        hooks[event] = [g for g in hooks[event] if not ours(g)]
        if not hooks[event] and (before_hooks is None or event not in before_hooks):
            del hooks[event]
    if "hooks" in doc and not hooks and before_hooks is None:
        del doc["hooks"]
    env = doc.get("env")
    if isinstance(env, dict) and TOKEN_ENV in env:
        del env[TOKEN_ENV]
        if not env and (before is None or "env" not in before):
            del doc["env"]


class Layout(NamedTuple):
    """Another agent's settings file in Claude Code's layout: the events to hook, the matcher group
    each gets, how to recognise one (for uninstall), and how to describe the install."""

    events: tuple[str, ...]
    group: Callable[[str], dict[str, Any]]
    ours: Callable[[Any], bool]
    description: str


def install(path: str, command: str | None = None, route: Route | None = None, layout: Layout | None = None) -> str:
    """Install ``route`` (HTTP hooks + shim), or with ``command`` the Python bridge command for every mapped event.

    With ``layout`` (another agent's file): its groups for its events, plus ``route``'s secret when given."""
    original = _read(path)
    doc = _parse(original, path)
    if command is None and route is None and layout is None:
        raise SettingsError("nothing to install: no command and no route")
    ours = layout.ours if layout is not None else is_ours
    backup_path = path + BACKUP_SUFFIX
    installed = _ours(doc, ours)
    wanted = json.loads(json.dumps(doc))
    if installed:
        # Installed before: replaced by this install's hooks (a new port, secret or shim).
        earlier = _read(backup_path)
        _strip(wanted, _parse(earlier, backup_path) if earlier is not None else None, ours)
    hooks = wanted.setdefault("hooks", {})
    events = layout.events if layout is not None else INSTALLED_EVENTS if route is None else route.installed()
    for event in events:
        if layout is not None:
            hooks.setdefault(event, []).append(layout.group(event))
        else:
            hooks.setdefault(event, []).append(group_for(command) if route is None else route.group(event))  # type: ignore[arg-type]
    if route is not None:
        env = wanted.setdefault("env", {})
        if not isinstance(env, dict):
            raise SettingsError(f"{path}: 'env' must be an object; nothing was changed")
        env[TOKEN_ENV] = route.token
    if installed and wanted == doc:
        return f"the hookd bridge is already in {path} ({installed} events); nothing changed"
    style = Style.of(original.decode("utf-8")) if original and original.strip() else Style()
    if original is not None and not (installed and os.path.exists(backup_path)):
        _backup(path, original)
    # The file now holds the endpoint's secret: readable by its owner alone.
    _write(path, style.dump(wanted).encode("utf-8"), 0o600 if route is not None else None)
    backup = f"; backup of the previous file: {backup_path}" if original is not None else ""
    how = layout.description if layout is not None else command if route is None else _describe(route)
    return f"installed the hookd bridge in {path} for {len(events)} events ({how}){backup}"


def resync(path: str, route: Route) -> str | None:
    """Rewrite the bridge in ``path`` for ``route``'s events, if the bridge is still there (a file the user
    took it out of, or removed, is left alone). None when nothing changed."""
    current = _read(path)
    if current is None or not _ours(_parse(current, path)):
        return None
    result = install(path, route=route)
    return None if _read(path) == current else result


def _describe(route: Route) -> str:
    commands = ", ".join(sorted(COMMAND_EVENTS))
    runner = f"the shim {route.shim}" if route.shim else f"the Python bridge ({route.fallback} {BRIDGE_ARGS})"
    return f"HTTP hooks on 127.0.0.1:{route.port}; {runner} for {commands}; timeout {route.timeout} s"


def uninstall(path: str, ours: Callable[[Any], bool] = is_ours) -> str:
    current = _read(path)
    if current is None:
        return f"{path} does not exist; nothing to uninstall"
    doc = _parse(current, path)
    removed = _ours(doc, ours)
    if not removed:
        return f"the hookd bridge is not in {path}; nothing changed"
    backup_path = path + BACKUP_SUFFIX
    backup = _read(backup_path)
    before = _parse(backup, backup_path) if backup is not None else None
    _strip(doc, before, ours)
    if backup is not None and doc == before:
        _write(path, backup, Path(backup_path).stat().st_mode & 0o777)
        os.unlink(backup_path)
        return f"removed the hookd bridge from {path} ({removed} events); the file is as it was before install"
    if backup is None and not doc:
        os.unlink(_target(path))
        return f"removed the hookd bridge: {path} held nothing else and install had created it, so it was deleted"
    _write(path, Style.of(current.decode("utf-8")).dump(doc).encode("utf-8"))
    kept = f"; the pre-install backup stays at {backup_path}" if backup is not None else ""
    return f"removed the hookd bridge from {path} ({removed} events); other changes made since install were kept{kept}"
