"""Persistent enable/disable toggles (seed 000's enableHook / disableHook).

A toggle overrides a hook's ``enabled`` field by name, for the global hooks or
for one project, and survives both daemon restarts and edits of the file. The
record is ``$XDG_STATE_HOME/hookd/toggles.json``.
"""

from __future__ import annotations

import os

from hookd.config.statefiles import StateFileError, read_json, state_home, write_json

Toggles = dict[tuple[str | None, str], bool]


def default_path() -> str:
    return os.path.join(state_home(), "toggles.json")


def load(path: str) -> tuple[Toggles, str | None]:
    """The recorded toggles and an error text when the file is unreadable (then none apply)."""
    try:
        data = read_json(path) or {}
    except StateFileError as exc:
        return {}, str(exc)
    toggles: Toggles = {}
    for name, on in (data.get("global") or {}).items():
        if isinstance(on, bool):
            toggles[(None, name)] = on
    for project, names in (data.get("projects") or {}).items():
        if isinstance(names, dict):
            for name, on in names.items():
                if isinstance(on, bool):
                    toggles[(project, name)] = on
    return toggles, None


def save(path: str, toggles: Toggles) -> None:
    glob: dict[str, bool] = {}
    projects: dict[str, dict[str, bool]] = {}
    for (project, name), on in toggles.items():
        if project is None:
            glob[name] = on
        else:
            projects.setdefault(project, {})[name] = on
    write_json(path, {"version": 1, "global": glob, "projects": projects})
