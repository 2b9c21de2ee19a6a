"""A plugin file of hookd's in the agent's own plugin folder, with the hookd-client bundle beside it: the one
install and uninstall for the agents that load hookd as code (opencode's plugin, pi's extension).

The agent loads every module of its folder; install writes hookd's (rendered by the agent's install module)
and beside it ``hookd-client.mjs``, hookd-client (clients/typescript) bundled with its one dependency into a
module that imports nothing but Node's own, which neither agent takes for a plugin. The plugin's first line
marks it as hookd's and its second records the folders install created; a file hookd did not write is never
overwritten or removed, and uninstall removes exactly those files and, while empty, those folders. What
differs from agent to agent is a :class:`Plugin` row, the rendering, and how the agent loads the file.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from hookd.agents import safe_write

CLIENT_NAME = "hookd-client.mjs"  # the bundle's name beside the plugin (the bundle itself ships in hookd/agents/opencode/)
BUNDLE_MARK = "// hookd-client bundled for hookd's opencode plugin"
CREATED = "// created by install: "
# The JavaScript both plugins share (the tool vocabulary's functions, the value made sendable, the deadline), one
# file each beside the opencode plugin; a template names one on a line of its own, which install replaces by it.
SHARED = Path(__file__).with_name("opencode")
_INCLUDE = re.compile(r"^( *)// __HOOKD_INCLUDE ([a-z]+\.js)__.*\n", re.MULTILINE)


class InstallError(Exception):
    """Something the user must fix; the message says what."""


class Plugin(NamedTuple):
    file_name: str  # hookd's file in the folder
    mark: str  # its first line
    installed: str  # what install says it installed ("the hookd plugin")
    noun: str  # what the agent calls it ("plugin", "extension")


def _included(found: re.Match[str]) -> str:
    indent, name = found.group(1), found.group(2)
    text = (SHARED / name).read_text(encoding="utf-8")
    return "".join(indent + line if line.strip() else line for line in text.splitlines(keepends=True))


def fill(template: Path, values: Mapping[str, str], mark: str, created: list[str], noun: str) -> str:
    """hookd's plugin file from ``template``: each include line replaced by the shared file it names (indented as
    the line is), each placeholder of ``values`` by its value (a quoted ``"__HOOKD_CLIENT__"`` by the JSON string
    it is given), under ``mark`` and the folders install created. Raises InstallError when a placeholder is left."""
    text = _INCLUDE.sub(_included, template.read_text(encoding="utf-8"))
    for placeholder, value in values.items():
        text = text.replace(f'"{placeholder}"' if placeholder == "__HOOKD_CLIENT__" else placeholder, value)
    left = [p for p in values if p in text]
    if left:
        raise InstallError(f"the {noun} template {template} was not filled in ({', '.join(left)} left); reinstall hookd")
    return f"{mark}\n{CREATED}{json.dumps(created)}\n{text}"


def parse_options(text: str, flags: Mapping[str, tuple[str, bool]], what: str) -> dict[str, Any]:
    """`--bridge-args` for the plugin: its ``flags`` (option -> (field, value)) and ``--timeout SECONDS``, as the
    fields they set."""
    words = shlex.split(text or "")
    values: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word in flags:
            field, value = flags[word]
            values[field] = value
        elif word == "--timeout" and i + 1 < len(words):
            i += 1
            try:
                timeout = float(words[i])
            except ValueError:
                raise InstallError(f"--timeout takes seconds, not {words[i]!r}") from None
            if not 0 < timeout <= 3600:
                raise InstallError(f"--timeout must be over 0 and at most 3600 seconds, not {words[i]}")
            values["timeout"] = timeout
        else:
            raise InstallError(f"unknown option for the {what}: {word!r} (known: {', '.join(flags)}, --timeout SECONDS)")
        i += 1
    return values


def client_specifier(client: str | None, noun: str, bundle: Path) -> str:
    """How the plugin imports hookd-client: ``bundle`` beside it, or a build the user named (by file URL)."""
    if client is None:
        if not bundle.is_file():
            raise InstallError(
                f"the bundled hookd-client ({bundle}) is missing from this hookd installation, so the {noun} could not "
                "load: reinstall hookd, or in a checkout run `npm ci && npm run bundle` in clients/typescript"
            )
        return "./" + CLIENT_NAME
    if client == "hookd-client":
        raise InstallError(
            f"--client hookd-client: the {noun} no longer imports an npm package (none is published); leave --client out "
            "to use the client bundled with hookd, or name a build (an ES module file)"
        )
    path = Path(client).expanduser().resolve()
    if path.is_dir():
        path = path / "dist" / "src" / "index.js"
    if not path.is_file():
        raise InstallError(f"{path} does not exist: build the client first (`npm ci && npx tsc` in clients/typescript)")
    return path.as_uri()


def first_error(stderr: str) -> str:
    """The line of a Node loader's stderr that names why a module did not load."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"^[A-Za-z]*Error\b", line)]
    return (errors or lines or ["(no message)"])[0]


def install(
    row: Plugin,
    directory: Path,
    specifier: str,
    render: Callable[[list[str]], str],
    check: Callable[[str, bytes | None], None],
    bundle: Path,
    detail: str = "",
) -> str:
    """Write the plugin ``render(created folders)`` and the client ``bundle`` (when ``specifier`` names it) into
    ``directory``, once ``check(plugin text, bundle)`` says it loads. Returns what was done (with ``detail``,
    what the options mean); raises InstallError."""
    target = directory / row.file_name
    client_target = directory / CLIENT_NAME
    if target.is_symlink() or (target.exists() and not ours(target, row.mark)):
        raise InstallError(f"{target} exists and was not written by hookd; move it away first")
    if client_target.is_symlink() or (client_target.exists() and not ours(client_target, BUNDLE_MARK)):
        raise InstallError(f"{client_target} exists and was not written by hookd; move it away first")
    bundled = specifier == "./" + CLIENT_NAME
    client = bundle.read_bytes() if bundled else None
    # Reinstalling keeps the record of what the first install created.
    created = created_by(target) if target.exists() else [Path(d).name for d in safe_write.missing_dirs(str(target))]
    content = render(created)
    if safe_write.read(target) == content.encode("utf-8") and safe_write.read(client_target) == client:
        return f"already installed: {target}"
    check(content, client)
    directory.mkdir(parents=True, exist_ok=True)
    if client is not None:
        safe_write.update(str(client_target), lambda _old: client)
    elif client_target.exists():
        client_target.unlink()  # an earlier install's bundle: this one imports another build
    safe_write.update(str(target), lambda _old: content.encode("utf-8"))
    how = f"hookd-client bundled beside it ({client_target.name})" if bundled else f"client: {specifier}"
    return f"installed {row.installed}: {target} ({how}{'; ' + detail if detail else ''})"


def uninstall(row: Plugin, directory: Path) -> str:
    """Remove the plugin and the bundle hookd wrote, and the folders install created while they are empty."""
    target = directory / row.file_name
    client_target = directory / CLIENT_NAME
    client_ours = client_target.is_file() and not client_target.is_symlink() and ours(client_target, BUNDLE_MARK)
    if not target.exists() and not target.is_symlink():
        if client_ours:
            client_target.unlink()  # left by an install interrupted before the plugin was written
        return f"nothing to remove: {target} does not exist"
    if target.is_symlink() or not ours(target, row.mark):
        raise InstallError(f"{target} was not written by hookd; it is left as it is")
    created = created_by(target)
    target.unlink()
    if client_ours:
        client_target.unlink()
    path = directory  # the folders install created, innermost first, while they are empty
    for _ in created:
        try:
            path.rmdir()
        except OSError:
            break
        path = path.parent
    return f"removed {row.installed}: {target}"


def ours(path: Path, mark: str) -> bool:
    """Whether ``path``'s first line is ``mark``: a file hookd wrote."""
    try:
        with path.open(encoding="utf-8") as f:
            return f.readline().rstrip("\n").startswith(mark)
    except (OSError, UnicodeDecodeError):
        return False


def created_by(path: Path) -> list[str]:
    """The folders the install that wrote ``path`` created (its second line)."""
    with path.open(encoding="utf-8") as f:
        f.readline()
        line = f.readline().rstrip("\n")
    if not line.startswith(CREATED):
        return []
    try:
        names = json.loads(line[len(CREATED) :])
    except ValueError:
        return []
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
