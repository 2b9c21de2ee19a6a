"""Install and remove hookd's opencode plugin (`hookd bridge install opencode`, `uninstall opencode`).

opencode loads every `*.js` / `*.ts` module in its plugin directories: the user's
(`$XDG_CONFIG_HOME/opencode/plugin/`) and the project's (`.opencode/plugin/`). Install writes two files there:
`hookd.js`, from the template next to this module, and beside it `hookd-client.mjs`, hookd-client (clients/typescript)
bundled with its one dependency into a module that imports nothing but Node's own (`npm run bundle` there; the bundle
ships inside this package). The plugin imports it by relative path, so it needs no npm package, and opencode does
not load it as a plugin (it loads only `*.js` and `*.ts`). Install fails, naming what is missing, rather than write
a plugin that cannot load; uninstall removes exactly those files, and the directories install created if they are
empty again, so the tree is as it was before.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hookd.agents import agent_dirs, plugin_install
from hookd.agents.plugin_install import BUNDLE_MARK, CLIENT_NAME, InstallError  # noqa: F401  (this module's names too)
from hookd.core import vocabulary

FILE_NAME = "hookd.js"
TEMPLATE = Path(__file__).with_name("plugin.js")
VOCABULARY_JS = plugin_install.SHARED / "vocabulary.js"
# hookd-client bundled into one ES module (clients/typescript: `npm run bundle`), shipped in this package.
BUNDLE = Path(__file__).with_name(CLIENT_NAME)
MARK = "// hookd bridge opencode plugin"
PLUGIN = plugin_install.Plugin(FILE_NAME, MARK, "the hookd plugin", "plugin")


@dataclass(frozen=True)
class Options:
    fail_closed: bool = False
    timeout: float = 10.0


# Where opencode looks for plugins: the user's configuration directory, or the project's `.opencode`.
FOLDERS = agent_dirs.Folders("XDG_CONFIG_HOME", (".config",), ("opencode", "plugin"), (".opencode", "plugin"))


def plugin_dir(scope: str, environ: dict[str, str] | None = None, cwd: str | None = None) -> Path:
    return Path(FOLDERS.path(scope, environ, cwd))


def parse_options(text: str) -> Options:
    """`--bridge-args` for opencode: `--fail-closed` and `--timeout SECONDS`."""
    return Options(**plugin_install.parse_options(text, {"--fail-closed": ("fail_closed", True)}, "opencode plugin"))


def client_specifier(client: str | None) -> str:
    """How the plugin imports hookd-client: the bundle beside it, or a build the user named (by file URL)."""
    return plugin_install.client_specifier(client, "plugin", BUNDLE)


def render(specifier: str, options: Options, created: list[str]) -> str:
    values = {
        "__HOOKD_CLIENT__": json.dumps(specifier),
        "__HOOKD_OPTIONS__": json.dumps({"failClosed": options.fail_closed, "timeout": options.timeout}),
        "__HOOKD_VOCABULARY__": json.dumps(vocabulary.table(), sort_keys=True),
    }
    return plugin_install.fill(TEMPLATE, values, MARK, created, "plugin")


def check_loads(plugin: str, client: bytes | None) -> None:
    """Import the plugin under Node, as opencode would load it, before it is installed; skipped without Node.
    Raises InstallError naming why it cannot load."""
    node = shutil.which("node")
    if node is None:
        return
    with tempfile.TemporaryDirectory(prefix="hookd-plugin-") as tmp:
        entry = Path(tmp) / "hookd.mjs"
        entry.write_text(plugin, encoding="utf-8")
        if client is not None:
            (Path(tmp) / CLIENT_NAME).write_bytes(client)
        script = "const m = await import(process.argv[1]); if (typeof m.HookdPlugin !== 'function') throw new Error('no HookdPlugin');"
        try:
            done = subprocess.run(
                [node, "--input-type=module", "-e", script, entry.as_uri()], capture_output=True, text=True, timeout=60, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InstallError(f"cannot check that the plugin loads: {exc}") from None
    if done.returncode != 0:
        raise InstallError(f"the plugin would not load in opencode, so nothing was installed: {plugin_install.first_error(done.stderr)}")


def install(directory: Path, specifier: str, options: Options) -> str:
    return plugin_install.install(PLUGIN, directory, specifier, lambda created: render(specifier, options, created), check_loads, BUNDLE)


def uninstall(directory: Path) -> str:
    return plugin_install.uninstall(PLUGIN, directory)


def is_ours(path: Path) -> bool:
    """Whether ``path`` is a plugin hookd wrote."""
    return plugin_install.ours(path, MARK)
