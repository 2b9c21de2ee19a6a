"""`hookd bridge install codex` / `uninstall codex`: hookd's command hooks in Codex's config.toml.

Codex reads hooks from inline `[hooks]` tables of its config.toml (`$CODEX_HOME/config.toml`, by default
`~/.codex/config.toml`; a project's `.codex/config.toml` once Codex trusts the project). Install appends one
marked block at the end of the file: per Codex event, one `[[hooks.EVENT]]` matcher group (no matcher: every
tool, every source) holding one `type = "command"` hook that runs `hookd bridge codex`. The user's bytes are
never re-serialized: uninstall cuts the block out (and the newline install added before it), so install then
uninstall leaves the file byte for byte as it was, whatever else the user changed in between. The composed
file is parsed (tomllib) before it is written; a file TOML cannot read, or whose `hooks` is not a table of
arrays, is reported and left alone.

Each hook gives up a margin before Codex would kill it (hookd/agents/deadlines.py): the shim's or the Python
bridge's ``--timeout`` is strictly below the ``timeout`` Codex applies, which for SessionEnd and Interrupt Codex
clamps to 3 s. The command is the same text on every install with the same options, because Codex runs a hook only
once the user trusted it and keys that trust on the hook's definition: reinstalling does not ask for trust again.
Every write goes through safe_write, so a trust record Codex writes at the same moment is not lost.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from typing import Any, NamedTuple

from hookd.agents import deadlines, safe_write
from hookd.agents.codex.protocol import INSTALLED_EVENTS
from hookd.agents.settings_file import default_hookd

BEGIN = "# >>> hookd bridge codex: `hookd bridge uninstall codex` removes this block "
END = "# <<< hookd bridge codex\n"
DEFAULT_TIMEOUT = 600  # seconds, Codex's `timeout` unit; Codex's own default for a command hook
# Codex clamps these events' hook timeouts to 3 s (and warns at every start about a longer one).
SHORT_EVENTS = {"SessionEnd": 3, "Interrupt": 3}


class InstallError(Exception):
    """Something the user must fix; the message says what."""


class Options(NamedTuple):
    hookd: str  # how Codex starts hookd (an absolute path: Codex does not share our PATH)
    timeout: int = DEFAULT_TIMEOUT
    fail_closed: bool = False
    extra: str = ""  # more options for `hookd bridge codex`
    # The compiled shim and the daemon's HTTP endpoint; without a shim, the Python bridge runs.
    shim: str | None = None
    port: int = 0
    token_file: str = ""


def config_path(scope: str, environ: dict[str, str] | None = None, cwd: str | None = None) -> str:
    """Codex's config.toml for ``scope``: the user's ($CODEX_HOME, else ~/.codex) or the project's (./.codex)."""
    env = os.environ if environ is None else environ
    if scope == "project":
        return os.path.join(cwd or os.getcwd(), ".codex", "config.toml")
    if scope != "user":
        raise InstallError(f"Codex has no {scope} settings: use --user (default), --project or --settings FILE")
    home = env.get("CODEX_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".codex")
    return os.path.join(home, "config.toml")


def timeout_for(event: str, options: Options) -> int:
    """How long Codex waits for ``event``'s hook."""
    return min(options.timeout, SHORT_EVENTS.get(event, options.timeout))


def deadline_for(event: str, options: Options) -> str:
    """hookd's deadline for ``event``'s hook, strictly below Codex's, as written on the command line."""
    return deadlines.text(deadlines.deadline(timeout_for(event, options)))


def command(options: Options, event: str = "") -> str:
    """The hook command, giving up a margin before Codex would kill it: the shim (an exec and one loopback
    request to the daemon's /codex/ endpoint) where it was built, else the Python bridge."""
    if options.shim:
        words = [shlex.quote(options.shim), event, str(options.port), shlex.quote(options.token_file), "--agent codex"]
    else:
        words = [f"{options.hookd} bridge codex"]
        if event:
            words.append(f"--event {event}")  # an input it cannot read is still denied where the event decides
    words.append(f"--timeout {deadline_for(event, options)}")
    if options.fail_closed:
        words.append("--fail-closed")
    if options.extra.strip() and not options.shim:
        words.append(" ".join(shlex.quote(w) for w in shlex.split(options.extra)))
    return " ".join(words)


def _toml_string(text: str) -> str:
    # JSON's escapes are TOML basic-string escapes for everything json.dumps emits (ensure_ascii).
    return json.dumps(text)


def _groups(options: Options) -> str:
    """One matcher group with one command hook per Codex event."""
    lines: list[str] = []
    for event in INSTALLED_EVENTS:
        lines += [
            f"[[hooks.{event}]]\n",
            f"[[hooks.{event}.hooks]]\n",
            'type = "command"\n',
            f"command = {_toml_string(command(options, event))}\n",
            f"timeout = {timeout_for(event, options)}\n",
        ]
    return "".join(lines)


def block(options: Options, header: dict[str, Any]) -> str:
    """The marked block install appends."""
    return BEGIN + json.dumps(header, sort_keys=True) + "\n" + _groups(options) + END


class Found(NamedTuple):
    start: int  # where the separator install added begins
    end: int  # just past the END line
    header: dict[str, Any]


def find(text: str) -> Found | None:
    """The block install wrote, with the separator before it; None when there is none."""
    at = text.find(BEGIN)
    while at > 0 and text[at - 1] != "\n":
        at = text.find(BEGIN, at + 1)
    if at < 0:
        return None
    line_end = text.find("\n", at)
    stop = text.find(END, at)
    if line_end < 0 or stop < 0 or (stop > 0 and text[stop - 1] != "\n"):
        raise InstallError("the hookd block in the Codex configuration is damaged (its end marker is missing); remove it by hand")
    try:
        header = json.loads(text[at + len(BEGIN) : line_end])
    except ValueError:
        header = {}
    header = header if isinstance(header, dict) else {}
    sep = header.get("sep") if isinstance(header.get("sep"), str) else ""
    start = at - len(sep) if sep and text[:at].endswith(sep) else at
    return Found(start, stop + len(END), header)


def _check(text: str, path: str) -> None:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path}: not valid TOML ({exc}); fix it first, nothing was changed") from None
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(hooks.get(e, []), list) for e in INSTALLED_EVENTS):
        raise InstallError(f"{path}: 'hooks' must be a table of arrays of matcher groups; nothing was changed")


def _decode(data: bytes | None, path: str) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path} is not UTF-8: {exc}") from None


def _missing_dirs(path: str) -> list[str]:
    """The directories above ``path`` (its target, when it is a link) that do not exist yet, outermost first."""
    return safe_write.missing_dirs(str(safe_write.target(path)))


def _parts(text: str, found: Found) -> tuple[str, str]:
    """(our groups, everything else inside the block, in order) of the block ``found`` in ``text``.

    Codex adds its own tables (trust records, a trusted project...) after the file's last table, which is inside
    our block, before its end marker: they are not ours to remove or rewrite."""
    region = text[found.start : found.end]
    region = region[region.index("\n", region.index(BEGIN)) + 1 : region.rindex(END)]
    ours = "".join(m.group(0) for m in _OUR_GROUP.finditer(region))
    return ours, _OUR_GROUP.sub("", region)


def install(path: str, options: Options) -> str:
    """Append (or replace) the marked block. Raises InstallError (nothing changed), safe_write.Busy, OSError."""
    created = _missing_dirs(path)
    for d in created:
        os.mkdir(d)
    outcome: dict[str, bool] = {}

    def compute(current: bytes | None) -> object:
        text = _decode(current, path)
        original = text if text is not None else ""
        found = find(original) if text is not None else None
        if found is not None:
            header = found.header
            ours, foreign = _parts(original, found)
            if ours == _groups(options):
                outcome["same"] = True
                return safe_write.UNCHANGED
            before, after = original[: found.start], foreign + original[found.end :]
        else:
            _check(original, path)
            sep = "" if not original else "\n" if original.endswith("\n") else "\n\n"
            header = {"sep": sep, "created_file": text is None, "created_dirs": created}
            before, after = original, ""
        new = before + header.get("sep", "") + block(options, header) + after
        _check(new, path)
        outcome.update(same=False, updated=found is not None)
        return new.encode("utf-8")

    try:
        safe_write.update(path, compute)
    except BaseException:
        if not outcome:
            safe_write.remove_dirs(created)
        raise
    if outcome["same"]:
        return f"already installed: {path}"
    verb = "updated" if outcome["updated"] else "installed"
    return f"{verb} the hookd bridge for {len(INSTALLED_EVENTS)} Codex events in {path}"


def commands(options: Options) -> set[str]:
    """Every command install writes (the hooks `--trust` trusts)."""
    return {command(options, event) for event in INSTALLED_EVENTS}


TRUST_NOTE = (
    "Codex runs a hook only once you trust it, and skips it without a word until then: start `codex`, type /hooks, "
    "review the hookd entries and trust them, or run `hookd bridge install codex` again where `codex` is on PATH (or "
    "with --agent-cli PATH): it asks Codex's app-server to trust exactly these hooks. Codex keys trust on each hook's "
    "definition, so installing the same thing again keeps them trusted. Automation that vets its hooks itself can run "
    "`codex exec --dangerously-bypass-hook-trust`. A project's .codex/config.toml is read only in a project Codex trusts."
)


def is_ours_command(command: str) -> bool:
    """A command install writes: the Python bridge or the shim for Codex."""
    return bool(re.search(r"(^|\s)bridge codex(\s|$)|\s--agent codex(\s|$)", command))


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")


def state_keys(text: str, path: str) -> set[str]:
    """The keys Codex files its trust in our hooks under: `SOURCE:event_name:GROUP:HANDLER` (the matcher group's
    index in the event's list, as Codex counts it in this file)."""
    try:
        hooks = tomllib.loads(text).get("hooks", {})
    except tomllib.TOMLDecodeError:
        return set()
    keys: set[str] = set()
    sources = {os.path.abspath(path), os.path.realpath(path)}
    for event in INSTALLED_EVENTS:
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        for i, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            first = handlers[0] if isinstance(handlers, list) and handlers and isinstance(handlers[0], dict) else {}
            if is_ours_command(str(first.get("command", ""))) and len(handlers) == 1:
                keys |= {f"{source}:{_snake(event)}:{i}:0" for source in sources}
    return keys


# A trust record Codex appends when the user trusts a hook (`/hooks`): a blank line, the table, its fields.
_STATE = re.compile(r'\n?\[hooks\.state\.("(?:[^"\\\n]|\\.)*")\]\n(?:(?:trusted_hash|enabled) = [^\n]*\n)*')


# One matcher group as `block` writes it, whatever the options were.
_OUR_GROUP = re.compile(
    r"\[\[hooks\.([A-Za-z]+)\]\]\n\[\[hooks\.\1\.hooks\]\]\n"
    r'type = "command"\ncommand = "[^\n]*(?: bridge codex| --agent codex)[^\n]*"\ntimeout = \d+\n'
)


def hooks_in(text: str) -> int:
    """How many of install's matcher groups ``text`` (a config.toml) holds."""
    return len(_OUR_GROUP.findall(text))


def _drop_trust(text: str, keys: set[str]) -> str:
    """``text`` without Codex's trust records of our hooks (left as they are for every other hook)."""

    def keep(m: re.Match[str]) -> str:
        try:
            key = json.loads(m.group(1))
        except ValueError:
            return m.group(0)
        return "" if key in keys else m.group(0)

    return _STATE.sub(keep, text)


def uninstall(path: str) -> str:
    """Cut the block out (and Codex's trust records of its hooks); a file install created goes, with its directories."""
    outcome: dict[str, Any] = {}

    def compute(current: bytes | None) -> object:
        text = _decode(current, path)
        found = find(text) if text is not None else None
        if text is None or found is None:
            return safe_write.UNCHANGED
        _, foreign = _parts(text, found)
        rest = _drop_trust(text[: found.start] + foreign + text[found.end :], state_keys(text, path))
        outcome["header"] = found.header
        if not rest and found.header.get("created_file") is True:
            outcome["removed"] = True
            return safe_write.REMOVE
        return rest.encode("utf-8")

    if os.path.isdir(safe_write.target(path).parent):
        safe_write.update(path, compute)
    if "header" not in outcome:
        return f"nothing to remove: no hookd block in {path}"
    if outcome.get("removed"):
        safe_write.remove_dirs([d for d in outcome["header"].get("created_dirs", []) if isinstance(d, str)])
        return f"removed the hookd bridge: {path} (install created it, so it is gone again)"
    return f"removed the hookd bridge from {path}"


def default_options(timeout: int = DEFAULT_TIMEOUT, fail_closed: bool = False, extra: str = "", hookd: str | None = None) -> Options:
    return Options(hookd or default_hookd(), deadlines.check(timeout, "Codex"), fail_closed, extra)
