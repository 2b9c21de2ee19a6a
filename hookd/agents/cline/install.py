"""`hookd bridge install cline` / `uninstall cline`: one hook file per Cline event in a Cline hooks folder.

Cline (the 3.x CLI) runs every executable named after an event (`PreToolUse`, `TaskStart`, ... an
extension such as `.sh` allowed) in `~/.cline/hooks/` (``$CLINE_DIR/hooks``), `~/Documents/Cline/Hooks/`
and a project's `.clinerules/hooks/`. Install writes one small `sh` script per event into the user's or
the project's folder, each running the compiled shim, which posts the event to the daemon's
``/cline/EVENT`` endpoint. A file of the user's under one of those names is never overwritten: install
stops and names it (`hookd import cline` takes its hooks into hookd first). Uninstall removes exactly the
files install wrote, as long as each is still what install wrote, and the folders it created.

Cline gives a blocking hook 120 s and lets the tool run when it times out, so every script gives up a
margin before that. With --fail-closed, PreToolUse is denied in Cline's own way (the shell call replaced
by one that prints why and fails) when hookd cannot be asked, and the script does the same by itself when
the shim cannot be run.
"""

from __future__ import annotations

import os

import msgspec

from hookd.agents import agent_dirs, install_record, safe_write, shim_hook
from hookd.agents.cline.protocol import AGENT, DIALECT, INSTALLED_EVENTS, TOOL_EVENT

TIMEOUT = 120  # seconds Cline waits for a blocking hook (PreToolUse, PostToolUse); not configurable from a hook
MARK = "# hookd bridge cline: `hookd bridge uninstall cline` removes this file\n"
# The extensions Cline accepts on a hook file: a file of the user's with one of them runs beside ours.
EXTENSIONS = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1")


InstallError = shim_hook.InstallError
Options = shim_hook.Options


# The hooks folder: the user's in Cline's folder ($CLINE_DIR, else ~/.cline), or the project's .clinerules/hooks.
FOLDERS = agent_dirs.Folders("CLINE_DIR", (".cline",), ("hooks",), (".clinerules", "hooks"))


def folder_for(scope: str, environ: dict[str, str] | None = None, cwd: str | None = None) -> str:
    if scope not in ("user", "project"):
        raise InstallError(f"Cline has no {scope} hooks: use --user (default) or --project")
    return FOLDERS.path(scope, environ, cwd)


def search_folders(cwd: str, environ: dict[str, str] | None = None) -> list[str]:
    """Every folder Cline reads hook files from, for a session in ``cwd``."""
    env = os.environ if environ is None else environ
    documents = os.path.join(env.get("HOME") or os.path.expanduser("~"), "Documents", "Cline", "Hooks")
    return list(dict.fromkeys([documents, folder_for("user", env), folder_for("project", cwd=cwd), os.path.join(cwd, ".cline", "hooks")]))


def script(options: Options, event: str) -> str:
    """The hook file for ``event``: the shim (hookd/agents/shim_hook.py), giving up a margin before Cline's 120 s."""
    line = shim_hook.command(options, DIALECT, event, lambda deny: msgspec.json.encode(deny).decode())
    return "#!/bin/sh\n" + MARK + line + "\n"


def is_ours(path: str) -> bool:
    data = safe_write.read(path)
    return data is not None and MARK.encode() in data


def foreign(folder: str, event: str) -> list[str]:
    """The user's own hook files for ``event`` in ``folder`` (Cline matches names without case, any known extension)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in sorted(names):
        stem, ext = os.path.splitext(name)
        if ext.lower() in EXTENSIONS and stem.strip().lower() == event.lower() and not is_ours(os.path.join(folder, name)):
            out.append(os.path.join(folder, name))
    return out


def installed_files(folder: str) -> list[str]:
    """hookd's hook files in ``folder``."""
    return [os.path.join(folder, e) for e in INSTALLED_EVENTS if is_ours(os.path.join(folder, e))]


def install(folder: str, options: Options, state: str) -> str:
    """Write the hook files. Raises InstallError (nothing changed), safe_write.Busy, OSError."""
    taken = [f for e in INSTALLED_EVENTS if os.path.lexists(p := os.path.join(folder, e)) and not is_ours(p) for f in [p]]
    if taken:
        raise InstallError(
            f"{', '.join(taken)}: a hook file of yours has the name hookd's would take; `hookd import cline` takes its hooks "
            "into hookd (and moves the file aside), then install again. Nothing was changed"
        )
    created = safe_write.missing_dirs(os.path.join(folder, "x"))
    if install_record.load(state, folder) is None:
        install_record.save(state, install_record.Record(AGENT, os.path.abspath(folder), not created, created_dirs=created))
    for d in created:
        os.mkdir(d)
    changed = 0
    try:
        for event in INSTALLED_EVENTS:
            path = os.path.join(folder, event)
            new = script(options, event).encode("utf-8")
            before = safe_write.update(path, lambda current, new=new: new, mode=0o755)
            changed += before != new
    except BaseException:
        if not changed:
            safe_write.remove_dirs(created)
        raise
    others = [f for e in INSTALLED_EVENTS if e == TOOL_EVENT for f in foreign(folder, e)]
    note = (
        f"\nhookd: {', '.join(others)} also run on {TOOL_EVENT}; an overrideInput of theirs can replace hookd's deny: "
        "`hookd import cline` takes them into hookd"
        if others
        else ""
    )
    if not changed:
        return f"already installed: {folder}" + note
    return f"installed the hookd bridge for {len(INSTALLED_EVENTS)} Cline events in {folder}" + note


def uninstall(folder: str, state: str) -> str:
    """Remove hookd's hook files (only those still as hookd wrote them) and the folders install created."""
    removed = 0
    for path in installed_files(folder):
        safe_write.update(
            path, lambda current: safe_write.REMOVE if current is not None and MARK.encode() in current else safe_write.UNCHANGED
        )
        removed += not os.path.lexists(path)
    install_record.release(state, folder)
    if not removed:
        return f"nothing to remove: no hookd hook file in {folder}"
    return f"removed the hookd bridge: {removed} hook files from {folder}"
