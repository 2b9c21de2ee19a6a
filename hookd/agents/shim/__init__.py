"""The compiled shim for the Claude Code events that take only command hooks.

``build`` compiles shim.c with the machine's C compiler into the user's data
directory; ``hookd bridge install`` calls it and, where no compiler exists,
falls back to the Python bridge (`hookd bridge claude-code`).

The denies the shim gives when a running hookd's answer cannot be used are made here, at build
time, from each agent's mapping (``denies_header``): for every event that decides, the output the
agent reads for a deny, exactly as hookd would render it, with a mark where the reason goes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import NamedTuple

SOURCE = Path(__file__).resolve().parent / "shim.c"
NAME = "claude-shim"
DENIES = "shim_denies.h"
STAMP = NAME + ".built"  # beside the binary: what it was built from, and its own digest
_MARK = "\x01"  # where the reason goes, in the JSON the shim prints (JSON escapes it as \u0001)
_SHELL_MARK = "\x02"  # where the reason goes inside a shell command's single quotes


class Built(NamedTuple):
    path: str | None  # None: not built, ``why`` says why
    why: str = ""


def data_dir(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/hookd``, else ``~/.local/share/hookd``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "hookd"


def compiler(environ: dict[str, str] | None = None) -> list[str] | None:
    """$CC (a command line), else cc, else gcc or clang; None when there is none."""
    env = os.environ if environ is None else environ
    wanted = shlex.split(env.get("CC", "")) or ["cc"]
    for candidate in (wanted, ["gcc"], ["clang"]):
        found = shutil.which(candidate[0])
        if found:
            return [found, *candidate[1:]]
    return None


def _c_string(text: bytes) -> str:
    """A C string literal for ``text``: printable ASCII as is, every other byte in octal."""
    out = []
    for byte in text:
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F and char != "?":  # no '?': it could start a trigraph
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def denies_header() -> str:
    """C source of the shim's deny tables, rendered by each agent's own dialect (``endpoints.DIALECTS``):
    ``denies``, for each event that decides (``routes[event][1]``), what the agent reads as a deny when a
    running hookd's answer cannot be used (its JSON, or exit status 2 and the reason on stderr where it
    blocks that event only so); ``closed``, for the agent's tool-call event (``fail_closed_event``), the
    deny --fail-closed answers when hookd cannot be asked at all."""
    import msgspec

    from hookd.agents import dialect, endpoints

    def c_json(out: object, d: dialect.Dialect, event: str) -> str:
        return _c_string(msgspec.json.encode(out).replace(b"\\u0001", _mark(d, event)))

    rows, closed = [], []
    for agent, d in endpoints.DIALECTS.items():
        verdict = dialect.Verdict("deny", _MARK)
        if d.fail_closed_event:
            shut = dialect.render(d, d.fail_closed_event, verdict)
            closed.append(
                f"    {{{_c_string(agent.encode())}, {_c_string(d.fail_closed_event.encode())}, {c_json(shut, d, d.fail_closed_event)}}},"
            )
        for event, (_, decides) in d.routes.items():
            if not decides:
                continue
            exit2 = dialect.exit_status(d, event, verdict)[0] == 2
            # Where the event has no field for a deny, the user is told in systemMessage.
            out = dialect.render(d, event, verdict) or dialect.render(d, event, dialect.Verdict(not_run=(_MARK,)))
            rows.append(f"    {{{_c_string(agent.encode())}, {_c_string(event.encode())}, {int(exit2)}, {c_json(out, d, event)}}},")
    return (
        "/* Made by hookd/agents/shim/__init__.py from the agents' dialects; do not edit. */\n"
        + ("static const struct deny denies[] = {\n" + "\n".join(rows) + "\n};\n")
        + ("static const struct closed closed[] = {\n" + "\n".join(closed) + "\n};\n")
    )


def _mark(d: object, event: str) -> bytes:
    """Where the shim writes the reason: \\001 as JSON text, \\002 also quoted for the shell (an event whose deny is a command)."""
    return _SHELL_MARK.encode() if event in getattr(d, "shell_reason", ()) else _MARK.encode()


def build(directory: Path | None = None, cc: list[str] | None = None) -> Built:
    """Compile the shim; the binary is replaced atomically, so an agent never runs a half-written one."""
    cc = cc or compiler()
    if cc is None:
        return Built(None, "no C compiler found (set CC, or install cc)")
    target_dir = directory or data_dir()
    target_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = target_dir / NAME
    header = denies_header()
    inputs = _digest(SOURCE.read_bytes(), header.encode(), "\0".join(cc).encode())
    if _built_from(target, inputs):
        # Installing for several agents, or again, reuses the binary: a compile is most of an install's CPU.
        return Built(str(target))
    fd, tmp = tempfile.mkstemp(prefix=f".{NAME}.", dir=target_dir)
    os.close(fd)
    try:
        with tempfile.TemporaryDirectory(prefix="hookd-shim-") as include:
            Path(include, DENIES).write_text(header)
            # Linked statically where the C library allows it: no dynamic loader at each exec, about
            # three times faster to start (bench/claude.md); else as the compiler links by default.
            for flags in (["-static"], []):
                argv = [*cc, "-O2", *flags, "-I", include, "-o", tmp, str(SOURCE)]
                done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
                if done.returncode == 0:
                    break
            else:
                return Built(None, f"{cc[0]} failed: {done.stderr.strip()[:500]}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
        # Written after the binary: a build cut short between the two leaves a stamp that no longer matches.
        # A stamp that cannot be written only costs the next install a compile.
        with contextlib.suppress(OSError):
            _write_stamp(target_dir / STAMP, f"{inputs} {_digest(target.read_bytes())}\n")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Built(None, f"cannot build the shim: {exc}")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return Built(str(target))


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def _built_from(target: Path, inputs: str) -> bool:
    """Whether ``target`` is the shim these inputs build, untouched since: its stamp names the same inputs
    and the binary's bytes are the ones built. Anything missing, changed or unreadable means a new build."""
    try:
        recorded, built = (target.parent / STAMP).read_text().split()
        return recorded == inputs and os.access(target, os.X_OK) and built == _digest(target.read_bytes())
    except (OSError, ValueError):
        return False


def _write_stamp(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
