"""The guard packs against their corpus, and the guards they are measured against, in one run.

    .venv-test/bin/python bench/guards/run.py                 # hookd and every anchor that can run here
    .venv-test/bin/python bench/guards/run.py --out bench/guards/RESULTS.md
    .venv-test/bin/python bench/guards/run.py --no-anchors --misses

For each category (files, git, infra, secrets, publish) it reports the share of dangerous calls
blocked, the share of look-alike benign calls blocked, and the median time of one ``check`` through
all five packs: cold (the parse cache emptied first, as for a command never seen) and warm (the
same command again). A blocked call is a deny or an ask.

The anchors are other projects' guards, run as Claude Code hooks are run, one process per call,
with the call's hook input on stdin, in a sandbox home (``~/.cache/hookd-bench``, outside the
repository): cc-safety-net from the npm registry, git_safety_guard.py from its author's installer
(a mirror of its repository brought in with the search tool's fetch), and destructive_command_guard
(dcg) built with cargo when its crates can be had offline. One that cannot be installed is skipped
with a line saying why; none of their code is kept in this repository.

The corpus's paths name a home ``/home/dev`` and a project ``/home/dev/proj``; the run moves both
into the sandbox, for hookd and the anchors alike, so every guard sees directories that exist.

To time a real decide, import :func:`load` and :func:`timed` and pass a function that makes one call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
HOLDOUT = HERE / "holdout"  # written after the rules and never used to fix them: the packs' numbers on calls they have not seen
CATEGORIES = ("files", "git", "infra", "secrets", "publish")
CORPUS_HOME = "/home/dev"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hookd-bench"
MIRRORS = Path(os.environ.get("HOOKD_BENCH_MIRRORS", "/work/.mirror"))
CLAUDE_TOOLS = {"execute_command": "Bash", "read_file": "Read", "write_file": "Write", "edit_file": "Edit"}
CLAUDE_ARGS = {"path": "file_path"}


class Call(NamedTuple):
    category: str
    dangerous: bool
    tool: str  # hookd's canonical tool name
    args: dict[str, Any]
    cwd: str
    source: str  # file:line, for the list of misses
    held_out: bool = False


def _move(value: Any, home: str) -> Any:
    if isinstance(value, str):
        return value.replace(CORPUS_HOME, home)
    if isinstance(value, dict):
        return {k: _move(v, home) for k, v in value.items()}
    if isinstance(value, list):
        return [_move(v, home) for v in value]
    return value


def load(home: str = CORPUS_HOME, corpus: Path = CORPUS) -> list[Call]:
    """Every call of a corpus (the main one, or HOLDOUT), its paths moved from /home/dev to ``home``."""
    calls = []
    for category in CATEGORIES:
        for kind in ("dangerous", "benign"):
            path = corpus / f"{category}.{kind}.txt"
            if not path.exists():
                continue
            pending = ""
            for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if not pending and (not raw.strip() or raw.startswith("#")):
                    continue
                if raw.endswith("\\") and not raw.startswith("@{"):
                    pending += raw + "\n"  # a line continuation: the call goes on on the next line
                    continue
                line, pending = pending + raw, ""
                if line.startswith("@{"):
                    entry = json.loads(line[1:])
                    tool, args, cwd = entry["tool"], entry["args"], entry.get("cwd", CORPUS_HOME + "/proj")
                else:
                    tool, args, cwd = "execute_command", {"command": line}, CORPUS_HOME + "/proj"
                source = f"{path.parent.name}/{path.name}:{n}"
                calls.append(Call(category, kind == "dangerous", tool, _move(args, home), _move(cwd, home), source, corpus == HOLDOUT))
    return calls


def timed(fn: Callable[[Call], Any], calls: Iterable[Call], repeats: int = 1, before: Callable[[], Any] | None = None) -> list[float]:
    """The median time in microseconds of ``fn(call)`` over ``repeats`` runs, for each call; ``before`` runs ahead of each, untimed."""
    out = []
    clock = time.perf_counter_ns
    for call in calls:
        runs = []
        for _ in range(repeats):
            if before is not None:
                before()
            t0 = clock()
            fn(call)
            runs.append((clock() - t0) / 1000)
        out.append(statistics.median(runs))
    return out


# -- hookd ---------------------------------------------------------------------------------------


def hookd_run(calls: list[Call], home: str) -> tuple[list[bool], list[float], list[float], list[str]]:
    from hookd.guards.check import check
    from hookd.guards.model import PACKS, Context
    from hookd.guards.policy import Policy
    from hookd.guards.shell import parse

    policy = Policy()
    project = home + "/proj"

    def one(call: Call) -> Any:
        return check(PACKS, call.tool, call.args, Context(call.cwd, project, home), policy)

    findings = [one(c) for c in calls]
    seen = [c for c in calls if not c.held_out]
    cold = timed(one, seen, repeats=3, before=parse.cache_clear)
    warm = timed(one, seen, repeats=9)
    rules = [f.rule if f is not None else "" for f in findings]
    return [f is not None for f in findings], cold, warm, rules


# -- anchors ----------------------------------------------------------------------------------


class Anchor(NamedTuple):
    name: str
    argv: list[str] | None
    skipped: str  # why it did not run, when argv is None
    version: str


def _node_anchor() -> Anchor:
    name = "cc-safety-net"
    version = "2.4.5"
    where = CACHE / "anchors" / name
    binary = where / "node_modules" / ".bin" / "cc-safety-net"
    if not binary.exists():
        if shutil.which("npm") is None:
            return Anchor(name, None, "npm is not installed", version)
        where.mkdir(parents=True, exist_ok=True)
        install = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(where), f"cc-safety-net@{version}"]
        done = subprocess.run(install, capture_output=True, text=True)
        if done.returncode != 0 or not binary.exists():
            return Anchor(name, None, f"npm install failed: {done.stderr.strip()[-200:]}", version)
    return Anchor(name, [str(binary), "hook", "--claude-code"], "", version)


def _git_show(repo: str, path: str) -> tuple[str | None, str]:
    mirror = MIRRORS / repo.replace("/", "+") / "repo"
    if not mirror.exists():
        return None, f"no mirror of {repo} at {mirror} (bring it in with the search tool's fetch)"
    done = subprocess.run(["git", "--git-dir", str(mirror), "show", f"HEAD:{path}"], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"{path} not in the mirror of {repo}"
    head = subprocess.run(["git", "--git-dir", str(mirror), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return done.stdout, head


def _git_safety_guard() -> Anchor:
    name = "git_safety_guard.py"
    text, info = _git_show("Dicklesworthstone/misc_coding_agent_tips_and_scripts", "install-claude-git-guard.sh")
    if text is None:
        return Anchor(name, None, info, "")
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if "git_safety_guard.py" in line and "<< 'PYTHON_SCRIPT'" in line) + 1
        end = next(i for i in range(start, len(lines)) if lines[i].strip() == "PYTHON_SCRIPT")
    except StopIteration:
        return Anchor(name, None, "the installer no longer writes the script from a here-doc", info)
    script = CACHE / "anchors" / "git_safety_guard" / "git_safety_guard.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("\n".join(lines[start:end]) + "\n", encoding="utf-8")
    return Anchor(name, [sys.executable, str(script)], "", f"installer at {info}")


def _dcg() -> Anchor:
    name = "dcg"
    mirror = MIRRORS / "Dicklesworthstone+destructive_command_guard" / "repo"
    if not mirror.exists():
        return Anchor(name, None, f"no mirror of its repository at {mirror}", "")
    if shutil.which("cargo") is None:
        return Anchor(name, None, "cargo is not installed", "")
    where = CACHE / "anchors" / "dcg"
    binary = where / "target" / "release" / "dcg"
    if not binary.exists():
        where.mkdir(parents=True, exist_ok=True)
        archive = f"git --git-dir {mirror} archive HEAD Cargo.toml Cargo.lock src build.rs | tar x -C {where}"
        subprocess.run(archive, shell=True, capture_output=True)
        done = subprocess.run(["cargo", "build", "--release", "--offline"], cwd=where, capture_output=True, text=True)
        if done.returncode != 0 or not binary.exists():
            why = next((line for line in done.stderr.splitlines() if line.startswith("error")), done.stderr.strip()[-160:])
            return Anchor(name, None, f"cargo build --offline failed (its crates cannot be fetched here): {why}", "")
    return Anchor(name, [str(binary)], "", "")


def anchors() -> list[Anchor]:
    return [_node_anchor(), _git_safety_guard(), _dcg()]


def hook_input(call: Call, home: str) -> str:
    args = {CLAUDE_ARGS.get(k, k): v for k, v in call.args.items()}
    payload = {
        "session_id": "bench",
        "transcript_path": str(CACHE / "transcript.jsonl"),
        "cwd": call.cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": CLAUDE_TOOLS.get(call.tool, call.tool),
        "tool_input": args,
    }
    return json.dumps(payload)


def _blocked(rc: int, out: str) -> bool:
    if rc == 2:
        return True
    try:
        reply = json.loads(out) if out.strip() else {}
    except ValueError:
        return False
    if not isinstance(reply, dict):
        return False
    specific = reply.get("hookSpecificOutput") or {}
    decision = specific.get("permissionDecision") if isinstance(specific, dict) else None
    return decision in ("deny", "ask") or reply.get("decision") == "block"


def anchor_run(anchor: Anchor, calls: list[Call], home: str) -> tuple[list[bool], list[float]]:
    assert anchor.argv is not None
    env = {"HOME": home, "PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"}

    def one(call: Call) -> tuple[bool, float]:
        cwd = call.cwd if os.path.isdir(call.cwd) else home
        t0 = time.perf_counter()
        try:
            done = subprocess.run(anchor.argv, input=hook_input(call, home), capture_output=True, text=True, cwd=cwd, env=env, timeout=30)
        except subprocess.TimeoutExpired:
            return False, (time.perf_counter() - t0) * 1e6
        return _blocked(done.returncode, done.stdout), (time.perf_counter() - t0) * 1e6

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, calls))
    return [b for b, _ in results], [t for _, t in results]


# -- the run -------------------------------------------------------------------------------------


def sandbox() -> str:
    home = CACHE / "sandbox" / "home" / "dev"
    project = home / "proj"
    for sub in ("src", "sub", "web", "dist", "tests", "docs"):
        (project / sub).mkdir(parents=True, exist_ok=True)
    if not (project / ".git").exists():
        subprocess.run(["git", "init", "-q", str(project)], capture_output=True)
    Path("/tmp/work-123").mkdir(exist_ok=True)
    return str(home)


def _rate(flags: list[bool]) -> str:
    return f"{100 * sum(flags) / len(flags):.1f}%" if flags else "-"


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(calls: list[Call], results: dict[str, list[bool]], skipped: list[Anchor], ran: list[Anchor], latency: dict[str, Any]) -> str:
    names = list(results)
    lines = [
        "# Guard packs against their corpus",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} cores; `python bench/guards/run.py --out bench/guards/RESULTS.md` writes this file.",
        "",
        "Blocked: the share of calls a guard denied or asked about. Dangerous calls should be blocked, benign look-alikes not.",
        "Every guard ran on the same corpus in the same run.",
        "",
    ]
    for held_out in (False, True):
        if not any(c.held_out == held_out for c in calls):
            continue
        lines += [
            "### The held-out corpus (bench/guards/holdout/): written after the rules; its first run, before any fix, is noted below"
            if held_out
            else "### The corpus (bench/guards/corpus/): written first, then the rules, which were fixed where it showed them wrong",
            "",
        ]
        head = "| category | dangerous | benign | " + " | ".join(f"{n}: dangerous blocked | {n}: benign blocked" for n in names) + " |"
        lines += [head, "|" + "---|" * (3 + 2 * len(names))]
        for category in (*CATEGORIES, "all"):
            idx = [i for i, c in enumerate(calls) if category in ("all", c.category) and c.held_out == held_out]
            bad = [i for i in idx if calls[i].dangerous]
            good = [i for i in idx if not calls[i].dangerous]
            cells = []
            for n in names:
                cells.append(_rate([results[n][i] for i in bad]))
                cells.append(_rate([results[n][i] for i in good]))
            label = "**all**" if category == "all" else category
            lines.append(f"| {label} | {len(bad)} | {len(good)} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "The held-out corpus's first run, before any fix: hookd blocked 98.7% of its dangerous calls and 2.6% of its benign ones",
        "(secrets 96.9% / 6.7%, publish 96.4% / 7.1%, the other three 100% / 0%). The six calls it got wrong showed real bugs",
        "(a glob over .env files, yarn workspace, ${TOKEN:+...}, rsync --exclude's value, --help, the project root taken for a",
        "system directory by chmod), which were fixed; from then on it is no longer unseen.",
    ]
    lines += ["", "## Time per call", ""]
    lines += ["| guard | median per call | how |", "|---|---|---|"]
    for name, (value, how) in latency.items():
        lines.append(f"| {name} | {value} | {how} |")
    lines += [
        "",
        "## Anchors",
        "",
        "Each ran with its own default settings, as installed, on every call of both corpora: cc-safety-net's optional rulebooks",
        "(terraform, cloud CLIs, ...) were not added, and git_safety_guard.py covers git and rm only, by design. Their time per",
        "call is a process start each, on a machine shared with other work: compare it with hookd's only by its order of size.",
        "",
    ]
    for a in ran:
        shown = " ".join(str(x).replace(str(Path.home()), "~") for x in (a.argv or []))
        lines.append(f"- {a.name} {a.version}: ran, `{shown}`")
    for a in skipped:
        lines.append(f"- {a.name}: skipped, {a.skipped}")
    lines += ["", "## hookd's misses in this run", ""]
    hookd = results.get("hookd", [])
    misses = [c for i, c in enumerate(calls) if c.dangerous and not hookd[i]]
    false = [c for i, c in enumerate(calls) if not c.dangerous and hookd[i]]
    lines.append(f"Dangerous calls not blocked ({len(misses)}):" if misses else "Every dangerous call was blocked.")
    lines += [f"- `{c.source}` {_show(c)}" for c in misses]
    lines.append("")
    lines.append(f"Benign calls blocked ({len(false)}):" if false else "No benign call was blocked.")
    lines += [f"- `{c.source}` {_show(c)}" for c in false]
    return "\n".join(lines) + "\n"


def _show(call: Call) -> str:
    text = call.args.get("command") if call.tool == "execute_command" else json.dumps(call.args)[:120]
    text = str(text).replace(str(CACHE / "sandbox" / "home" / "dev"), CORPUS_HOME).replace("\n", "⏎").replace("`", "'")
    return f"`{call.tool}`: `{text[:140]}`"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the report here (Markdown) as well as printing it")
    ap.add_argument("--no-anchors", action="store_true", help="run hookd's packs only")
    ap.add_argument("--misses", action="store_true", help="print only hookd's misses and false blocks")
    opts = ap.parse_args(argv)
    home = sandbox()
    calls = load(home) + load(home, HOLDOUT)
    blocked, cold, warm, _ = hookd_run(calls, home)
    results: dict[str, list[bool]] = {"hookd": blocked}
    latency: dict[str, Any] = {
        "hookd (cold)": (
            f"{_med(cold):.1f} µs",
            "check() through all five packs on the corpus, parse cache emptied first (a command never seen)",
        ),
        "hookd (warm)": (f"{_med(warm):.1f} µs", "check() through all five packs on the corpus, the same command again (parse cached)"),
    }
    ran: list[Anchor] = []
    skipped: list[Anchor] = []
    if not opts.no_anchors and not opts.misses:
        for anchor in anchors():
            if anchor.argv is None:
                skipped.append(anchor)
                print(f"anchor {anchor.name} skipped: {anchor.skipped}", file=sys.stderr)
                continue
            print(f"anchor {anchor.name}: {len(calls)} calls, a process each ...", file=sys.stderr)
            verdicts, times = anchor_run(anchor, calls, home)
            results[anchor.name] = verdicts
            latency[anchor.name] = (f"{_med(times) / 1000:.1f} ms", "a process per call, as Claude Code runs a command hook")
            ran.append(anchor)
    text = report(calls, results, skipped, ran, latency)
    if opts.misses:
        text = text[text.index("## hookd's misses") :]
    print(text)
    if opts.out:
        Path(opts.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
