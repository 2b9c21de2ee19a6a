"""Install and remove hookd's opencode plugin (`hookd bridge install opencode`, `uninstall opencode`).

opencode loads every `*.js` / `*.ts` module in its plugin directories: the user's
(`$XDG_CONFIG_HOME/opencode/plugin/`) and the project's (`.opencode/plugin/`). Install writes one file there,
`hookd.js`, from the template next to this module; uninstall removes exactly that file, and the directories
install created if they are empty again, so the tree is as it was before.

The plugin imports hookd-client (clients/typescript). By default it is imported by absolute file URL from this
checkout's compiled client when there is one, else by its package name (then add `"hookd-client"` to the
`package.json` of opencode's configuration directory; opencode installs plugin dependencies at start).
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

FILE_NAME = "hookd.js"
TEMPLATE = Path(__file__).with_name("plugin.js")
MARK = "// hookd bridge opencode plugin"
_CREATED = "// created by install: "
# This checkout's compiled client (a source checkout or an editable install).
BUNDLED_CLIENT = Path(__file__).resolve().parents[3] / "clients" / "typescript" / "dist" / "src" / "index.js"


class InstallError(Exception):
    """Something the user must fix; the message says what."""


@dataclass(frozen=True)
class Options:
    fail_closed: bool = False
    timeout: float = 10.0


def plugin_dir(scope: str, environ: dict[str, str] | None = None, cwd: str | None = None) -> Path:
    """Where opencode looks for plugins: the user's configuration directory, or the project's `.opencode`."""
    env = os.environ if environ is None else environ
    if scope == "project":
        return Path(cwd or os.getcwd()) / ".opencode" / "plugin"
    config = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(config) / "opencode" / "plugin"


def parse_options(text: str) -> Options:
    """`--bridge-args` for opencode: `--fail-closed` and `--timeout SECONDS`."""
    words = shlex.split(text or "")
    fail_closed, timeout = False, 10.0
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--fail-closed":
            fail_closed = True
        elif word == "--timeout" and i + 1 < len(words):
            i += 1
            try:
                timeout = float(words[i])
            except ValueError:
                raise InstallError(f"--timeout takes seconds, not {words[i]!r}") from None
            if not 0 < timeout <= 3600:
                raise InstallError(f"--timeout must be over 0 and at most 3600 seconds, not {words[i]}")
        else:
            raise InstallError(f"unknown option for the opencode plugin: {word!r} (known: --fail-closed, --timeout SECONDS)")
        i += 1
    return Options(fail_closed, timeout)


def client_specifier(client: str | None) -> str:
    """How the plugin imports hookd-client: a file URL to the compiled client, or the package name."""
    if client is None:
        return BUNDLED_CLIENT.as_uri() if BUNDLED_CLIENT.exists() else "hookd-client"
    if client == "hookd-client":
        return client
    path = Path(client).expanduser().resolve()
    if path.is_dir():
        path = path / "dist" / "src" / "index.js"
    if not path.is_file():
        raise InstallError(f"{path} does not exist: build the client first (`npm ci && npx tsc` in clients/typescript)")
    return path.as_uri()


def render(specifier: str, options: Options, created: list[str]) -> str:
    text = TEMPLATE.read_text(encoding="utf-8")
    settings = json.dumps({"failClosed": options.fail_closed, "timeout": options.timeout})
    text = text.replace('"__HOOKD_CLIENT__"', json.dumps(specifier)).replace("__HOOKD_OPTIONS__", settings)
    return f"{MARK}\n{_CREATED}{json.dumps(created)}\n{text}"


def install(directory: Path, specifier: str, options: Options) -> str:
    target = directory / FILE_NAME
    if target.is_symlink() or (target.exists() and not _ours(target)):
        raise InstallError(f"{target} exists and was not written by hookd; move it away first")
    created: list[str] = []
    if target.exists():
        # Reinstalling keeps the record of what the first install created.
        created = _created(target)
    else:
        missing = directory
        while not missing.exists():
            created.append(missing.name)
            missing = missing.parent
        created.reverse()
    content = render(specifier, options, created)
    if target.exists() and target.read_text(encoding="utf-8") == content:
        return f"already installed: {target}"
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".{FILE_NAME}.{os.getpid()}.tmp"
    tmp.write_text(content, encoding="utf-8")
    os.replace(tmp, target)
    return f"installed the hookd plugin: {target} (client: {specifier})"


def uninstall(directory: Path) -> str:
    target = directory / FILE_NAME
    if not target.exists() and not target.is_symlink():
        return f"nothing to remove: {target} does not exist"
    if target.is_symlink() or not _ours(target):
        raise InstallError(f"{target} was not written by hookd; it is left as it is")
    created = _created(target)
    target.unlink()
    # Remove the directories install created, innermost first, while they are empty.
    path = directory
    for _ in reversed(created):
        try:
            path.rmdir()
        except OSError:
            break
        path = path.parent
    return f"removed the hookd plugin: {target}"


def _ours(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as f:
            return f.readline().rstrip("\n") == MARK
    except (OSError, UnicodeDecodeError):
        return False


def _created(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as f:
        f.readline()
        line = f.readline().rstrip("\n")
    if not line.startswith(_CREATED):
        return []
    try:
        names = json.loads(line[len(_CREATED) :])
    except ValueError:
        return []
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
