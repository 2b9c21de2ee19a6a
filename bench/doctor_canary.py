"""What `hookd doctor`'s canary costs, per agent: one canary tool call through the installed path and the
daemon asked what it saw, against `hookd --version` (a Python start, the least a doctor run costs) measured
in the same run. The goal: under 1 s per agent.

    python bench/doctor_canary.py [--n 15]

Each agent is installed, as a user would, into a throwaway HOME with the README's guard in force and a real
daemon; `claude` on PATH is a stand-in that names a current version (so Claude Code gets HTTP hooks),
Codex's hooks are installed untrusted (trusting needs the Codex CLI; the canary's path is the same).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INSTALLS = {
    "claude-code": ["--fail-closed"],
    "qwen": ["--fail-closed"],
    "gemini": ["--fail-closed"],
    "codex": ["--fail-closed", "--no-trust", "--accept-untrusted"],
    "opencode": ["--fail-closed"],
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=15)
    args = p.parse_args()
    from hookd.agents import canary
    from tests.docs.test_samples import readme_hooks_file

    root = Path(tempfile.mkdtemp(prefix="hookd-canary-bench-"))
    env = {
        **os.environ,
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_STATE_HOME": str(root / "state"),
        "XDG_RUNTIME_DIR": str(root / "run"),
        "HOOKD_SOCKET": str(root / "run" / "hookd.sock"),
    }
    for d in ("home", "config/hookd", "state", "run", "bin", "project"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "run").chmod(0o700)
    (root / "config" / "hookd" / "hooks.yaml").write_text(readme_hooks_file())
    fake = root / "bin" / "claude"
    fake.write_text(f"#!{sys.executable}\nprint('2.1.332 (Claude Code)')\n")
    fake.chmod(0o755)
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env['PATH']}"
    hookd = [sys.executable, "-m", "hookd"]
    daemon = subprocess.Popen([*hookd, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from bench.common import wait_socket

        wait_socket(env["HOOKD_SOCKET"], 60)
        os.environ.update(env)
        agents = [a for a in INSTALLS if a != "opencode" or shutil.which("node")]
        for agent in agents:
            done = subprocess.run([*hookd, "bridge", "install", agent, *INSTALLS[agent]], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"install {agent} failed: {done.stderr}")
        baseline = []
        for _ in range(args.n):
            t0 = time.perf_counter()
            subprocess.run([*hookd, "--version"], env=env, capture_output=True, check=True)
            baseline.append((time.perf_counter() - t0) * 1000)
        base = statistics.median(baseline)
        print(f"| case (n = {args.n}) | median ms | max ms | ratio to `hookd --version` |")
        print("|---|---:|---:|---:|")
        print(f"| `hookd --version` (baseline) | {base:.1f} | {max(baseline):.1f} | 1.00x |")
        from hookd.cli.doctor_agents import installed

        for found in installed(str(root / "project"), env["XDG_STATE_HOME"]):
            for hook in found.hooks:
                times = []
                for _ in range(args.n):
                    session = canary.session()
                    t0 = time.perf_counter()
                    sent = canary.send(hook, session, str(root / "project"), env)
                    event = canary.seen(env["HOOKD_SOCKET"], session)
                    times.append((time.perf_counter() - t0) * 1000)
                    if sent.failure or event is None:
                        raise SystemExit(f"{found.agent}: the canary failed: {sent.failure or 'hookd did not see it'}")
                med = statistics.median(times)
                print(f"| {found.agent}, {hook.kind} | {med:.1f} | {max(times):.1f} | {med / base:.2f}x |")
    finally:
        daemon.terminate()
        daemon.wait(30)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
