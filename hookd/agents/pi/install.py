"""Install and remove hookd's pi extension (`hookd bridge install pi`, `uninstall pi`).

pi loads every `*.ts` and `*.js` file of its extension directories: the user's (`~/.pi/agent/extensions/`, or
`$PI_CODING_AGENT_DIR/extensions/`) and the project's (`.pi/extensions/`). Install writes two files there:
`hookd.ts`, from the template next to this module, and beside it `hookd-client.mjs`, the very bundle of hookd-client
the opencode plugin uses (hookd/agents/opencode/), which pi does not take for an extension (it loads only `*.ts` and
`*.js`). The extension is given hookd's tool vocabulary and the JavaScript that applies it (the opencode plugin's,
the same text), and pi's event table (protocol.py). Install fails, naming what is missing, rather than write an
extension that cannot load: it is loaded first by pi's own loader when pi is installed, else by Node. Uninstall
removes exactly those files, and the directories install created if they are empty again, so the tree is as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hookd.agents import agent_dirs, plugin_install
from hookd.agents.opencode import install as opencode
from hookd.agents.pi import protocol, version
from hookd.agents.plugin_install import CLIENT_NAME, InstallError
from hookd.core import vocabulary

FILE_NAME = "hookd.ts"
TEMPLATE = Path(__file__).with_name("extension.ts")
LOADER = Path(__file__).with_name("load.mjs")
MARK = "// hookd bridge pi extension"
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
EXTENSION = plugin_install.Plugin(FILE_NAME, MARK, "the hookd extension for pi", "extension")


@dataclass(frozen=True)
class Options:
    fail_open: bool = False
    timeout: float = 10.0


# Where pi looks for extensions: the user's agent directory ($PI_CODING_AGENT_DIR, else ~/.pi/agent), or the project's `.pi`.
FOLDERS = agent_dirs.Folders(AGENT_DIR_ENV, (".pi", "agent"), ("extensions",), (".pi", "extensions"), expand=True)


def extension_dir(scope: str, environ: dict[str, str] | None = None, cwd: str | None = None) -> Path:
    return Path(FOLDERS.path(scope, environ, cwd))


def parse_options(text: str) -> Options:
    """`--bridge-args` for pi: `--fail-open`, `--fail-closed` (the default) and `--timeout SECONDS`."""
    flags = {"--fail-open": ("fail_open", True), "--fail-closed": ("fail_open", False)}
    return Options(**plugin_install.parse_options(text, flags, "pi extension"))


def client_specifier(client: str | None) -> str:
    """How the extension imports hookd-client: the bundle beside it, or a build the user named (by file URL)."""
    return plugin_install.client_specifier(client, "extension", opencode.BUNDLE)


def render(specifier: str, options: Options, created: list[str]) -> str:
    values = {
        "__HOOKD_CLIENT__": json.dumps(specifier),
        "__HOOKD_OPTIONS__": json.dumps({"failOpen": options.fail_open, "timeout": options.timeout}),
        "__HOOKD_VOCABULARY__": json.dumps(vocabulary.table(), sort_keys=True),
        "__HOOKD_ROUTES__": json.dumps(protocol.table()),
    }
    return plugin_install.fill(TEMPLATE, values, MARK, created, "extension")


def load(extension: Path, pi: version.Found | None = None, tool_call: tuple[str, str, str] | None = None, timeout: float = 60) -> dict:
    """Load ``extension`` as pi does (pi's own loader when pi is installed, else Node on a module copy) and, with
    ``tool_call`` = (session, cwd, arguments as JSON), call its tool_call handlers as pi does. Returns what the loader
    printed. Raises InstallError naming why it could not load, or FileNotFoundError when there is no Node."""
    found = version.detect() if pi is None else pi
    node = version.find_cli("node")
    if node is None:
        raise FileNotFoundError("node is not on PATH")
    index = version.package_index(found)
    env = {**os.environ, "PI_OFFLINE": "1"}
    with tempfile.TemporaryDirectory(prefix="hookd-pi-") as tmp:
        target = extension
        if index is None:
            # No pi to load it: Node imports a copy as an ES module (the extension is JavaScript too).
            target = Path(tmp) / "hookd.mjs"
            target.write_text(extension.read_text(encoding="utf-8"), encoding="utf-8")
            beside = extension.with_name(CLIENT_NAME)
            if beside.is_file():
                (Path(tmp) / CLIENT_NAME).write_bytes(beside.read_bytes())
        argv = [node, str(LOADER), str(target), index.as_uri() if index is not None else "-", *(tool_call or ())]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, check=False)
        except subprocess.TimeoutExpired:
            raise InstallError(f"the extension did not answer within {timeout:g} s") from None
        except OSError as exc:
            raise InstallError(f"cannot load the extension: {exc}") from None
    if done.returncode != 0:
        raise InstallError(plugin_install.first_error(done.stderr))
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise InstallError(f"the extension's loader printed no result: {done.stdout[:200]!r}") from None
    result["stderr"] = done.stderr
    return result if isinstance(result, dict) else {}


def check_loads(content: str, client: bytes | None) -> None:
    """Load the extension as pi would before it is installed (skipped without Node). Raises InstallError."""
    with tempfile.TemporaryDirectory(prefix="hookd-pi-check-") as tmp:
        entry = Path(tmp) / FILE_NAME
        entry.write_text(content, encoding="utf-8")
        if client is not None:
            (Path(tmp) / CLIENT_NAME).write_bytes(client)
        try:
            load(entry)
        except FileNotFoundError:
            return
        except InstallError as exc:
            raise InstallError(f"the extension would not load in pi, so nothing was installed: {exc}") from None


def install(directory: Path, specifier: str, options: Options) -> str:
    closed = (
        "pi proceeds when hookd cannot be asked (--fail-open)" if options.fail_open else "tool calls are blocked when hookd cannot be asked"
    )
    rendered = lambda created: render(specifier, options, created)  # noqa: E731
    return plugin_install.install(EXTENSION, directory, specifier, rendered, check_loads, opencode.BUNDLE, closed)


def uninstall(directory: Path) -> str:
    return plugin_install.uninstall(EXTENSION, directory)


def is_ours(path: Path) -> bool:
    """Whether ``path`` is an extension hookd wrote."""
    return plugin_install.ours(path, MARK)


def fails_open(text: str) -> bool:
    """Whether an installed extension's text lets pi run a tool call hookd could not be asked about."""
    return '"failOpen": true' in text


def problems(path: Path) -> tuple[str, ...]:
    """What keeps an installed extension from guarding as install meant, one line each (for doctor and status)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if 'from "./hookd-client.mjs"' in text and not (path.parent / CLIENT_NAME).is_file():
        return (f"{CLIENT_NAME} is missing beside the extension: install again",)
    if '"tool_call": ["tool.approval.pre", true]' not in text:
        return ("the extension does not decide tool calls on tool.approval.pre: install again",)
    return ()
