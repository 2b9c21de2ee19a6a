"""What a Gemini CLI tool call costs through hookd (the compiled shim -> the daemon -> a guard) against a direct
Gemini CLI command hook doing the same work, with the REAL Gemini CLI against a scripted model, in one
interleaved run.

    python bench/gemini_shim.py [--rounds 6] [--calls 10]

The events. Gemini CLI starts a process for every command hook it runs, and each costs it tens of
milliseconds however fast the process is. `hookd bridge install gemini` therefore installs the events a tool
call meets (BeforeTool, AfterTool) and the session's own, but not those Gemini CLI fires on every model
request (BeforeModel, BeforeToolSelection, AfterModel), which only hooks written for Gemini CLI use:
`--all-events` adds them, measured here as its own case.

The same work. The guard is one Python script, bench/gemini_guard.py, with one rule (deny a shell command
holding `rm -rf`). Run directly, Gemini CLI starts it for every BeforeTool, as any command hook written in
Python runs: an interpreter start per tool call is what a direct Python hook costs. Through hookd the same
script, the same rule, answers as a warm hookd worker (`mode: persistent`): that is what hookd is for, and
the way a guard is meant to be run under it. The hookd side is hookd as `hookd bridge install gemini` writes
it: every installed event runs the shim, so a tool call pays for BeforeTool and AfterTool, not for
BeforeTool alone, and with `--all-events` also for BeforeModel and BeforeToolSelection of the model
request that carries its result. A third case, for reference, runs the same script as a hookd command hook (`mode: spawn`:
an interpreter per call, as direct, plus the shim's events), and a fourth has no hook at all.

The per-tool-call cost is timed by the scripted model server, inside each session: from the moment it has
sent a tool call to the moment the request carrying that call's result arrives. That is everything Gemini
CLI does for one tool call (its hooks, the tool, its own bookkeeping) and nothing else: Node's start, the
session's own events and the model's answers are outside it. Each round runs one session of CALLS tool
calls per case, the cases taking turns (the first round warms up and is not counted), so the machine's load
falls on every case alike; the figures are medians over every tool call of the counted rounds. Read the
ratio to the direct hook of the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.bridge import hookd_script
from bench.common import ROOT, Stats, daemon, sandbox, table
from tests.e2e.gemini import model_server

GEMINI = ROOT / "tests" / "e2e" / "gemini" / "node_modules" / ".bin" / "gemini"
GUARD = ROOT / "bench" / "gemini_guard.py"
AUTH = {"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}}
CASES = ("direct", "hookd-warm", "hookd-all", "hookd-spawn", "none")
TITLES = {
    "direct": "direct Gemini CLI command hook on BeforeTool: python gemini_guard.py (baseline)",
    "hookd-warm": "hookd as installed (the shim on every installed event) -> the same guard as a warm worker",
    "hookd-all": "hookd installed with --all-events (BeforeModel, BeforeToolSelection too) -> the guard warm",
    "hookd-spawn": "hookd as installed -> the same guard as a hookd command hook (an interpreter per call)",
    "none": "no hook at all (what the tool call costs Gemini CLI itself)",
}


class Timings:
    """When the scripted model sent each tool call, and how long until that call's result came back."""

    def __init__(self) -> None:
        self.sent: dict[int, int] = {}
        self.samples: list[int] = []

    def reset(self) -> None:
        self.sent.clear()
        self.samples.clear()


def handler(calls: int, timings: Timings) -> type[model_server.Handler]:
    """The scripted Gemini API, asking for ``calls`` shell calls one after the other, then answering in text."""

    class Scripted(model_server.Handler):
        command_to_run = "true"

        def do_POST(self) -> None:
            request = self.read_logged()
            now = time.perf_counter_ns()
            path = self.path.split("?", 1)[0]
            if path.endswith(":countTokens"):
                self.send(200, json.dumps({"totalTokens": 1}).encode())
                return
            if path.endswith(":generateContent") or not request.get("tools"):
                answer = {"reasoning": "scripted", "model_choice": "flash", "next_speaker": "user", "complexity_score": 1}
                body = {"candidates": [model_server.candidate([{"text": json.dumps(answer)}])], "usageMetadata": model_server.USAGE}
                if path.endswith(":generateContent"):
                    self.send(200, json.dumps(body).encode())
                    return
                chunks = [body]
            else:
                done = answered(request)
                if done and done in timings.sent and len(timings.samples) < done:
                    timings.samples.append(now - timings.sent[done])
                if done < calls:
                    # A different command each time: Gemini CLI stops a session that repeats one tool call five times.
                    args = {"command": f"true {done + 1}", "description": "run it"}
                    part = {"functionCall": {"name": "run_shell_command", "args": args}}
                    chunks = [{"candidates": [model_server.candidate([part])], "usageMetadata": model_server.USAGE}]
                else:
                    chunks = [{"candidates": [model_server.candidate([{"text": "Done."}])], "usageMetadata": model_server.USAGE}]
            stream = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
            if b"functionCall" in stream:  # taken before the answer goes: its result can come back before send returns
                timings.sent[answered(request) + 1] = time.perf_counter_ns()
            self.send(200, stream, "text/event-stream")

    return Scripted


def answered(request: dict[str, Any]) -> int:
    """How many tool results the conversation holds."""
    return sum("functionResponse" in part for content in request.get("contents") or [] for part in content.get("parts") or [])


@contextlib.contextmanager
def model(calls: int, log: Path, timings: Timings) -> Iterator[int]:
    scripted = handler(calls, timings)
    scripted.log_file = str(log)
    server = ThreadingHTTPServer(("127.0.0.1", 0), scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def settings(home: Path, hooks: dict[str, Any] | None = None) -> None:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**AUTH, **({"hooks": hooks} if hooks else {})}, indent=2) + "\n")


def guard_yaml(env: dict[str, str], persistent: bool) -> None:
    path = Path(env["XDG_CONFIG_HOME"]) / "hookd" / "hooks.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    args = [str(GUARD), "--worker"] if persistent else [str(GUARD), "--hookd"]
    mode = "    mode: persistent\n" if persistent else ""
    path.write_text(
        f"hooks:\n  - name: no-rm-rf\n    point: tool.approval.pre\n    type: decision\n    command: {sys.executable}\n"
        f"    args: {json.dumps(args)}\n{mode}    enabled: true\n"
    )


def install(env: dict[str, str], *extra: str) -> None:
    argv = [*hookd_script(), "bridge", "install", "gemini", *extra]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0 or "--agent gemini" not in done.stdout:
        raise RuntimeError(f"hookd bridge install gemini did not install the shim: {done.stdout}{done.stderr}")


def session(home: Path, env: dict[str, str], port: int, project: Path, timings: Timings, calls: int) -> list[int]:
    """One `gemini -p` session; the nanoseconds each of its tool calls took."""
    agent_env = dict(env, HOME=str(home), GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{port}", GEMINI_API_KEY="unused")
    timings.reset()
    done = subprocess.run([str(GEMINI), "-p", "Run the commands.", "--yolo"], cwd=project, env=agent_env, capture_output=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"gemini exited {done.returncode}: {done.stderr.decode()[-800:]}")
    if len(timings.samples) != calls:
        raise RuntimeError(f"the session made {len(timings.samples)} tool calls, not {calls}: {done.stdout.decode()[-800:]}")
    return list(timings.samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=6, help="counted rounds (default 6; one more warms up)")
    ap.add_argument("--calls", type=int, default=10, help="tool calls in a session (default 10)")
    opts = ap.parse_args()
    if not GEMINI.exists():
        raise SystemExit(f"{GEMINI} is missing: run `make e2e-deps`")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the daemons are stopped on the way out
    per_call: dict[str, list[int]] = {case: [] for case in CASES}
    timings = Timings()
    with (
        sandbox() as warm_env,
        sandbox() as spawn_env,
        tempfile.TemporaryDirectory(prefix="hookd-gemini-bench-") as tmp_name,
    ):
        tmp = Path(tmp_name)
        project = tmp / "project"
        project.mkdir()
        for env in (warm_env, spawn_env):
            env["XDG_DATA_HOME"] = str(Path(env["HOOKD_BENCH_TMP"]) / "data")  # the shim is built here, not in the user's
        guard_yaml(warm_env, persistent=True)
        guard_yaml(spawn_env, persistent=False)
        homes = {"direct": tmp / "direct", "none": tmp / "none"}
        hook = {"type": "command", "name": "guard", "command": f"{sys.executable} {GUARD}", "timeout": 60000}
        settings(homes["direct"], {"BeforeTool": [{"matcher": "*", "hooks": [hook]}]})
        settings(homes["none"])
        with daemon(warm_env), daemon(spawn_env), model(opts.calls, tmp / "requests.jsonl", timings) as port:
            for env, case in ((warm_env, "hookd-warm"), (spawn_env, "hookd-spawn")):
                settings(Path(env["HOME"]))
                install(env)
                homes[case] = Path(env["HOME"])
            homes["hookd-all"] = tmp / "all"
            settings(homes["hookd-all"])
            install(warm_env, "--all-events", "--settings", str(homes["hookd-all"] / ".gemini" / "settings.json"))
            envs = {"direct": warm_env, "none": warm_env, "hookd-warm": warm_env, "hookd-all": warm_env, "hookd-spawn": spawn_env}
            for i in range(opts.rounds + 1):
                for case in CASES:
                    samples = session(homes[case], envs[case], port, project, timings, opts.calls)
                    if i:
                        per_call[case] += samples
                medians = ", ".join(f"{c} {statistics.median(per_call[c]) / 1e6:.1f} ms" for c in CASES if per_call[c])
                sys.stderr.write(f"round {i}/{opts.rounds}: {medians or 'warm-up'}\n")
    stats = {case: Stats.of(TITLES[case], per_call[case]) for case in CASES}
    base = stats["direct"]
    rows = [(base, None, "baseline"), (stats["hookd-warm"], base, "<= 1.15x")]
    rows += [(stats[case], base, "-") for case in ("hookd-all", "hookd-spawn", "none")]
    title = f"A Gemini CLI tool call through hookd against a direct command hook ({opts.rounds} rounds x {opts.calls} calls, interleaved)"
    out = table(title, rows)
    none = stats["none"].median_us
    own = {case: (stats[case].median_us - none) / 1000 for case in CASES[:-1]}
    out += "\n- the hooks' own part of a tool call (each case's median minus no hook's): " + ", ".join(
        f"{case} {ms:.1f} ms" for case, ms in own.items()
    )
    out += "\n"
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
