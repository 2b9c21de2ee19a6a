"""`hookd bridge install copilot` / `uninstall copilot`: a hook file of hookd's own in Copilot CLI's hooks folder.

Copilot CLI loads every `*.json` in `~/.copilot/hooks/` (``$COPILOT_HOME/hooks``) and, once the folder is
trusted, in a repository's `.github/hooks/`. Install writes one file there, `hookd.json`, that is wholly
hookd's: per Copilot event one command hook running the compiled shim (hookd/agents/shim_hook.py), which posts
the event to the daemon's ``/copilot/EVENT`` endpoint. Nothing of the user's is edited, so uninstall removes exactly that
file (and the folders install created, when they are empty), and refuses when the file holds a hook that
is not hookd's. Each hook gives up a margin before Copilot would (its ``timeoutSec``): Copilot lets a tool
run when its hook times out. With --fail-closed, the preToolUse hook also denies by itself when the shim
is missing, so that no path lets a tool call through unasked.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hookd.agents import agent_dirs, install_record, safe_write, shim_hook
from hookd.agents.copilot.protocol import AGENT, DIALECT, INSTALLED_EVENTS

FILE_NAME = "hookd.json"
DEFAULT_TIMEOUT = 600  # seconds: what install writes as each hook's `timeoutSec` unless told otherwise
MARK = f"--agent {AGENT}"  # in every command install writes


InstallError = shim_hook.InstallError
Options = shim_hook.Options


# hookd's hook file: the user's in Copilot's folder ($COPILOT_HOME, else ~/.copilot), or the repository's.
FOLDERS = agent_dirs.Folders("COPILOT_HOME", (".copilot",), ("hooks", FILE_NAME), (".github", "hooks", FILE_NAME))
home = FOLDERS.agent  # Copilot's configuration folder


def path_for(scope: str, environ: dict[str, str] | None = None, cwd: str | None = None) -> str:
    if scope not in ("user", "project"):
        raise InstallError(f"Copilot CLI has no {scope} hooks: use --user (default), --project or --settings FILE")
    return FOLDERS.path(scope, environ, cwd)


def command(options: Options, event: str) -> str:
    """The hook command: the shim for ``event``, giving up a margin before Copilot's ``timeoutSec``."""
    return shim_hook.command(options, DIALECT, event, json.dumps)


def document(options: Options) -> dict[str, Any]:
    """hookd.json: one command hook per Copilot event."""
    hooks = {event: [{"type": "command", "bash": command(options, event), "timeoutSec": options.timeout}] for event in INSTALLED_EVENTS}
    return {"version": 1, "hooks": hooks}


def text(options: Options) -> str:
    return json.dumps(document(options), indent=2) + "\n"


def foreign_hooks(doc: Any) -> list[str]:
    """The hooks in a hook file that are not hookd's (``event: command``), or why the file is not one."""
    if not isinstance(doc, dict) or not isinstance(doc.get("hooks"), dict):
        return ["it is not a Copilot hook file ({'version': 1, 'hooks': {...}})"]
    out = []
    for event, handlers in doc["hooks"].items():
        for handler in handlers if isinstance(handlers, list) else [handlers]:
            line = handler.get("bash") if isinstance(handler, dict) else None
            if not isinstance(line, str) or MARK not in line:
                out.append(f"{event}: {line if isinstance(line, str) else json.dumps(handler)}")
    return out


def ours(path: str) -> int:
    """How many of hookd's hooks the file at ``path`` holds (0: none, or not a file of hookd's)."""
    try:
        doc = json.loads((safe_write.read(path) or b"").decode("utf-8") or "null")
    except (OSError, UnicodeDecodeError, ValueError):
        return 0
    if foreign_hooks(doc):
        return 0
    return sum(len(h) if isinstance(h, list) else 1 for h in doc["hooks"].values())


def _load(data: bytes, path: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InstallError(f"{path} is there and is not JSON ({exc}); it is not hookd's: move it away first") from None


def install(path: str, options: Options, state: str) -> str:
    """Write hookd.json. Raises InstallError (nothing changed), safe_write.Busy, OSError."""
    created = safe_write.missing_dirs(str(safe_write.target(path)))
    outcome: dict[str, bool] = {}
    new = text(options).encode("utf-8")

    def compute(current: bytes | None) -> object:
        if current is not None:
            foreign = foreign_hooks(_load(current, path))
            if foreign:
                raise InstallError(
                    f"{path} holds hooks that are not hookd's ({'; '.join(foreign[:3])}); hookd writes a file of its own: "
                    "install with --settings FILE naming another, or `hookd import copilot` them first"
                )
        outcome.update(existed=current is not None, same=current == new)
        return new

    for d in created:
        os.mkdir(d)
    try:
        safe_write.update(path, compute)
    except BaseException:
        safe_write.remove_dirs(created)
        raise
    if not outcome["existed"]:
        install_record.save(state, install_record.Record(AGENT, os.path.abspath(path), False, created_dirs=created))
    if outcome["same"]:
        return f"already installed: {path}"
    verb = "updated" if outcome["existed"] else "installed"
    return f"{verb} the hookd bridge for {len(INSTALLED_EVENTS)} Copilot CLI events in {path}"


def uninstall(path: str, state: str) -> str:
    """Remove hookd.json (only while every hook in it is hookd's) and the folders install created."""
    outcome: dict[str, bool] = {}

    def compute(current: bytes | None) -> object:
        if current is None:
            return safe_write.UNCHANGED
        foreign = foreign_hooks(_load(current, path))
        if foreign:
            raise InstallError(f"{path} holds hooks that are not hookd's ({'; '.join(foreign[:3])}); remove hookd's by hand")
        outcome["removed"] = True
        return safe_write.REMOVE

    if os.path.isdir(safe_write.target(path).parent):
        safe_write.update(path, compute)
    install_record.release(state, path)
    if not outcome:
        return f"nothing to remove: no hookd hook file at {path}"
    return f"removed the hookd bridge: {path}"


TRUST_NOTE = (
    "Copilot CLI runs a repository's .github/hooks only in a folder you trust: answer its trust prompt in an "
    "interactive `copilot` there (it is remembered in ~/.copilot/config.json's trustedFolders), or run with "
    "COPILOT_ALLOW_ALL=true, which trusts the working directory. Until then these hooks do not run, and nothing is guarded."
)


def note(path: str) -> str | None:
    """What install tells the user about ``path``: a repository's hooks run only in a folder Copilot trusts."""
    if os.path.abspath(path) != os.path.abspath(path_for("user")) and os.sep + os.path.join(".github", "hooks") in path:
        return TRUST_NOTE
    return None
