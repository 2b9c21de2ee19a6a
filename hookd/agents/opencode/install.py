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
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hookd.core import vocabulary

FILE_NAME = "hookd.js"
CLIENT_NAME = "hookd-client.mjs"
TEMPLATE = Path(__file__).with_name("plugin.js")
VOCABULARY_JS = Path(__file__).with_name("vocabulary.js")
# hookd-client bundled into one ES module (clients/typescript: `npm run bundle`), shipped in this package.
BUNDLE = Path(__file__).with_name(CLIENT_NAME)
BUNDLE_MARK = "// hookd-client bundled for hookd's opencode plugin"
MARK = "// hookd bridge opencode plugin"
_CREATED = "// created by install: "
_PLACEHOLDERS = ("__HOOKD_CLIENT__", "__HOOKD_OPTIONS__", "__HOOKD_VOCABULARY__")


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
    """How the plugin imports hookd-client: the bundle beside it, or a build the user named (by file URL)."""
    if client is None:
        if not BUNDLE.is_file():
            raise InstallError(
                f"the bundled hookd-client ({BUNDLE}) is missing from this hookd installation, so the plugin could not "
                "load: reinstall hookd, or in a checkout run `npm ci && npm run bundle` in clients/typescript"
            )
        return "./" + CLIENT_NAME
    if client == "hookd-client":
        raise InstallError(
            "--client hookd-client: the plugin no longer imports an npm package (none is published); leave --client out "
            "to use the client bundled with hookd, or name a build (an ES module file)"
        )
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
    text = text.replace("__HOOKD_VOCABULARY__", json.dumps(vocabulary.table(), sort_keys=True))
    text = text.replace("// __HOOKD_VOCABULARY_FUNCTIONS__\n", VOCABULARY_JS.read_text(encoding="utf-8"))
    left = [p for p in _PLACEHOLDERS if p in text]
    if left:
        raise InstallError(f"the plugin template {TEMPLATE} was not filled in ({', '.join(left)} left); reinstall hookd")
    return f"{MARK}\n{_CREATED}{json.dumps(created)}\n{text}"


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
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if re.match(r"^[A-Za-z]*Error\b", line)]
        why = (errors or lines or ["(no message)"])[0]
        raise InstallError(f"the plugin would not load in opencode, so nothing was installed: {why}")


def _write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), 0o644 & ~_umask())
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def install(directory: Path, specifier: str, options: Options) -> str:
    target = directory / FILE_NAME
    client_target = directory / CLIENT_NAME
    if target.is_symlink() or (target.exists() and not _ours(target)):
        raise InstallError(f"{target} exists and was not written by hookd; move it away first")
    if client_target.is_symlink() or (client_target.exists() and not _ours(client_target, BUNDLE_MARK)):
        raise InstallError(f"{client_target} exists and was not written by hookd; move it away first")
    bundled = specifier == "./" + CLIENT_NAME
    client = BUNDLE.read_bytes() if bundled else None
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
    same_client = _read(client_target) == client
    if target.exists() and target.read_text(encoding="utf-8") == content and same_client:
        return f"already installed: {target}"
    check_loads(content, client)
    directory.mkdir(parents=True, exist_ok=True)
    if client is not None:
        _write(client_target, client)
    elif client_target.exists():
        client_target.unlink()  # an earlier install's bundle: this one imports another build
    _write(target, content.encode("utf-8"))
    how = f"hookd-client bundled beside it ({client_target.name})" if bundled else f"client: {specifier}"
    return f"installed the hookd plugin: {target} ({how})"


def uninstall(directory: Path) -> str:
    target = directory / FILE_NAME
    client_target = directory / CLIENT_NAME
    if not target.exists() and not target.is_symlink():
        if client_target.is_file() and not client_target.is_symlink() and _ours(client_target, BUNDLE_MARK):
            client_target.unlink()  # left by an install interrupted before the plugin was written
        return f"nothing to remove: {target} does not exist"
    if target.is_symlink() or not _ours(target):
        raise InstallError(f"{target} was not written by hookd; it is left as it is")
    created = _created(target)
    target.unlink()
    if client_target.is_file() and not client_target.is_symlink() and _ours(client_target, BUNDLE_MARK):
        client_target.unlink()
    # Remove the directories install created, innermost first, while they are empty.
    path = directory
    for _ in reversed(created):
        try:
            path.rmdir()
        except OSError:
            break
        path = path.parent
    return f"removed the hookd plugin: {target}"


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def is_ours(path: Path) -> bool:
    """Whether ``path`` is a plugin hookd wrote."""
    return _ours(path)


def _ours(path: Path, mark: str = MARK) -> bool:
    try:
        with path.open(encoding="utf-8") as f:
            return f.readline().rstrip("\n").startswith(mark)
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
