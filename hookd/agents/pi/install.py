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
import re
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hookd.agents import safe_write
from hookd.agents.opencode import install as opencode
from hookd.agents.pi import protocol, version
from hookd.core import vocabulary

FILE_NAME = "hookd.ts"
CLIENT_NAME = opencode.CLIENT_NAME  # hookd-client.mjs, the bundle shipped with the opencode plugin
TEMPLATE = Path(__file__).with_name("extension.ts")
LOADER = Path(__file__).with_name("load.mjs")
MARK = "// hookd bridge pi extension"
_CREATED = "// created by install: "
_PLACEHOLDERS = ("__HOOKD_CLIENT__", "__HOOKD_OPTIONS__", "__HOOKD_VOCABULARY__", "__HOOKD_ROUTES__")
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"


class InstallError(Exception):
    """Something the user must fix; the message says what."""


@dataclass(frozen=True)
class Options:
    fail_open: bool = False
    timeout: float = 10.0


def extension_dir(scope: str, environ: dict[str, str] | None = None, cwd: str | None = None) -> Path:
    """Where pi looks for extensions: the user's agent directory, or the project's `.pi`."""
    env = os.environ if environ is None else environ
    if scope == "project":
        return Path(cwd or os.getcwd()) / ".pi" / "extensions"
    agent_dir = env.get(AGENT_DIR_ENV)
    if agent_dir:
        return Path(os.path.expanduser(agent_dir)) / "extensions"
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".pi" / "agent" / "extensions"


def parse_options(text: str) -> Options:
    """`--bridge-args` for pi: `--fail-open`, `--fail-closed` (the default) and `--timeout SECONDS`."""
    words = shlex.split(text or "")
    fail_open, timeout = False, 10.0
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--fail-open":
            fail_open = True
        elif word == "--fail-closed":
            fail_open = False
        elif word == "--timeout" and i + 1 < len(words):
            i += 1
            try:
                timeout = float(words[i])
            except ValueError:
                raise InstallError(f"--timeout takes seconds, not {words[i]!r}") from None
            if not 0 < timeout <= 3600:
                raise InstallError(f"--timeout must be over 0 and at most 3600 seconds, not {words[i]}")
        else:
            raise InstallError(f"unknown option for the pi extension: {word!r} (known: --fail-open, --fail-closed, --timeout SECONDS)")
        i += 1
    return Options(fail_open, timeout)


def client_specifier(client: str | None) -> str:
    """How the extension imports hookd-client: the bundle beside it, or a build the user named (by file URL)."""
    try:
        return opencode.client_specifier(client)
    except opencode.InstallError as exc:
        raise InstallError(str(exc).replace("the plugin", "the extension")) from None


def render(specifier: str, options: Options, created: list[str]) -> str:
    text = TEMPLATE.read_text(encoding="utf-8")
    settings = json.dumps({"failOpen": options.fail_open, "timeout": options.timeout})
    text = text.replace('"__HOOKD_CLIENT__"', json.dumps(specifier)).replace("__HOOKD_OPTIONS__", settings)
    text = text.replace("__HOOKD_VOCABULARY__", json.dumps(vocabulary.table(), sort_keys=True))
    text = text.replace("__HOOKD_ROUTES__", json.dumps(protocol.table()))
    text = text.replace("// __HOOKD_VOCABULARY_FUNCTIONS__\n", opencode.VOCABULARY_JS.read_text(encoding="utf-8"))
    left = [p for p in _PLACEHOLDERS if p in text]
    if left:
        raise InstallError(f"the extension template {TEMPLATE} was not filled in ({', '.join(left)} left); reinstall hookd")
    return f"{MARK}\n{_CREATED}{json.dumps(created)}\n{text}"


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
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if re.match(r"^[A-Za-z]*Error\b", line)]
        raise InstallError((errors or lines or ["(no message)"])[0])
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
    target = directory / FILE_NAME
    client_target = directory / CLIENT_NAME
    if target.is_symlink() or (target.exists() and not is_ours(target)):
        raise InstallError(f"{target} exists and was not written by hookd; move it away first")
    if client_target.is_symlink() or (client_target.exists() and not _ours(client_target, opencode.BUNDLE_MARK)):
        raise InstallError(f"{client_target} exists and was not written by hookd; move it away first")
    bundled = specifier == "./" + CLIENT_NAME
    client = opencode.BUNDLE.read_bytes() if bundled else None
    # Reinstalling keeps the record of what the first install created.
    created = _created(target) if target.exists() else [os.path.basename(d) for d in safe_write.missing_dirs(str(target))]
    content = render(specifier, options, created)
    same_client = safe_write.read(client_target) == client
    if safe_write.read(target) == content.encode("utf-8") and same_client:
        return f"already installed: {target}"
    check_loads(content, client)
    directory.mkdir(parents=True, exist_ok=True)
    if client is not None:
        safe_write.update(str(client_target), lambda _old: client)
    elif client_target.exists():
        client_target.unlink()  # an earlier install's bundle: this one imports another build
    safe_write.update(str(target), lambda _old: content.encode("utf-8"))
    how = f"hookd-client bundled beside it ({client_target.name})" if bundled else f"client: {specifier}"
    closed = (
        "pi proceeds when hookd cannot be asked (--fail-open)" if options.fail_open else "tool calls are blocked when hookd cannot be asked"
    )
    return f"installed the hookd extension for pi: {target} ({how}; {closed})"


def uninstall(directory: Path) -> str:
    target = directory / FILE_NAME
    client_target = directory / CLIENT_NAME
    client_ours = client_target.is_file() and not client_target.is_symlink() and _ours(client_target, opencode.BUNDLE_MARK)
    if not target.exists() and not target.is_symlink():
        if client_ours:
            client_target.unlink()  # left by an install interrupted before the extension was written
        return f"nothing to remove: {target} does not exist"
    if target.is_symlink() or not is_ours(target):
        raise InstallError(f"{target} was not written by hookd; it is left as it is")
    created = _created(target)
    target.unlink()
    if client_ours:
        client_target.unlink()
    # The directories install created, innermost first, while they are empty.
    path = directory
    for _ in created:
        try:
            path.rmdir()
        except OSError:
            break
        path = path.parent
    return f"removed the hookd extension for pi: {target}"


def is_ours(path: Path) -> bool:
    """Whether ``path`` is an extension hookd wrote."""
    return _ours(path, MARK)


def fails_open(text: str) -> bool:
    """Whether an installed extension's text lets pi run a tool call hookd could not be asked about."""
    return '"failOpen": true' in text


def _ours(path: Path, mark: str) -> bool:
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


def problems(path: Path) -> tuple[str, ...]:
    """What keeps an installed extension from guarding as install meant, one line each (for doctor and status)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if 'from "./hookd-client.mjs"' in text and not (path.parent / CLIENT_NAME).is_file():
        return (f"{CLIENT_NAME} is missing beside the extension: install again",)
    if '"tool_call": ["tool.approval.pre", true]' not in text:
        return ("the extension does not decide tool calls on tool.approval.pre: install again",)
    return ()
