"""What a Claude Code hook event costs through hookd: the HTTP path, the compiled shim, the Python bridge,
each next to spawning `sh -c 'cat >/dev/null'` (the cheapest command hook there is) in the same run; then
whole `claude -p` sessions with ten tool calls and a no-op guard, through hookd vs as a direct command hook.

    python bench/bridge.py [--n 200] [--sessions 5] [--no-sessions]

Medians over many runs; the machine is shared and noisy, so read the ratios and differences next to the
baseline of the same run. bench/claude.md records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ROOT, Stats, daemon, sandbox, table

# A Claude Code PreToolUse hook input (bench/imported_hooks.py gives its hooks the same one).
INPUT = {
    "session_id": "bench",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls -la"},
    "tool_use_id": "toolu_1",
}
EVENT = json.dumps(INPUT).encode()
NOOP = ["sh", "-c", "cat >/dev/null"]
WARMUP = 5


def hookd_script() -> list[str]:
    """The console script an agent would run (the installed `hookd`), else `python -m hookd`."""
    script = os.path.join(os.path.dirname(sys.executable), "hookd")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "hookd"]


def wall(argv: list[str], env: dict[str, str], n: int, stdin: bytes = b"") -> list[int]:
    out = []
    for i in range(n + WARMUP):
        t0 = time.perf_counter_ns()
        done = subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False)
        elapsed = time.perf_counter_ns() - t0
        if done.returncode != 0:
            raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr.decode()}")
        if i >= WARMUP:
            out.append(elapsed)
    return out


def endpoint(env: dict[str, str], pid: int, timeout: float = 15) -> tuple[int, str]:
    state = Path(env["XDG_STATE_HOME"]) / "hookd"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = json.loads((state / "http.json").read_text())
            if data.get("pid") == pid:
                return int(data["port"]), (state / "http-token").read_text().strip()
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    raise TimeoutError("the daemon did not serve HTTP hooks")


def http_posts(port: int, token: str, n: int, keep_alive: bool) -> list[int]:
    """Round trips as Claude Code makes them: head and body in one write, on a kept-alive connection or a new one."""
    request = (
        f"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(EVENT)}\r\n\r\n"
    ).encode() + EVENT
    out = []
    conn: socket.socket | None = None
    for i in range(n + WARMUP):
        t0 = time.perf_counter_ns()
        if conn is None:
            conn = socket.create_connection(("127.0.0.1", port), timeout=30)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.sendall(request)
        response = b""
        while b"\r\n\r\n" not in response:
            response += conn.recv(65536)
        head, _, body = response.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        while len(body) < length:
            body += conn.recv(65536)
        if not keep_alive:
            conn.close()
            conn = None
        elapsed = time.perf_counter_ns() - t0
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head.decode(errors="replace"))
        if i >= WARMUP:
            out.append(elapsed)
    if conn is not None:
        conn.close()
    return out


WORKER = """import json, sys
for line in sys.stdin:
    sys.stdout.write(json.dumps({"id": json.loads(line)["id"], "decision": None}) + "\\n")
    sys.stdout.flush()
"""


def noop_guard(env: dict[str, str], warm: bool = False) -> None:
    """One decision hook on tool.approval.pre that does nothing: the same command a direct hook would run,
    or (``warm``) a persistent worker that answers at once."""
    path = Path(env["XDG_CONFIG_HOME"]) / "hookd" / "hooks.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    if warm:
        worker = Path(env["HOOKD_BENCH_TMP"]) / "noop_worker.py"
        worker.write_text(WORKER)
        how = f"command: {sys.executable}\n    args: [{str(worker)!r}]\n    mode: persistent\n"
    else:
        how = "command: sh\n    args: ['-c', 'cat >/dev/null']\n"
    path.write_text(f"hooks:\n  - name: noop\n    point: tool.approval.pre\n    type: decision\n    {how}    enabled: true\n")


def per_event(n: int) -> str:
    from hookd.agents import shim

    rows: list[tuple[Stats, Stats | None, str]] = []
    with sandbox() as env, tempfile.TemporaryDirectory(prefix="hookd-shim-") as tmp:
        base = Stats.of("spawn sh -c 'cat >/dev/null' (baseline)", wall(NOOP, env, n, EVENT))
        rows.append((base, None, "baseline"))
        built = shim.build(Path(tmp))
        with daemon(env, "--no-user-hooks") as proc:
            port, token = endpoint(env, proc.pid)
            token_file = str(Path(env["XDG_STATE_HOME"]) / "hookd" / "http-token")
            keep = Stats.of("HTTP hook, kept-alive connection, no hooks", http_posts(port, token, n, keep_alive=True))
            fresh = Stats.of("HTTP hook, new connection each, no hooks", http_posts(port, token, n, keep_alive=False))
            rows += [(keep, base, "< 1 ms added"), (fresh, base, "< 1 ms added")]
            if built.path:
                shim_run = Stats.of("shim (spawn + HTTP), no hooks", wall([built.path, "PreToolUse", str(port), token_file], env, n, EVENT))
                rows.append((shim_run, base, "< 5 ms"))
            bridge = Stats.of(
                "Python bridge (spawn + socket), no hooks", wall([*hookd_script(), "bridge", "claude-code"], env, n // 4, EVENT)
            )
            rows.append((bridge, base, "fallback"))
        noop_guard(env)
        with daemon(env) as proc:
            port, token = endpoint(env, proc.pid)
            guarded = Stats.of("HTTP hook, kept-alive, one no-op command guard", http_posts(port, token, n, keep_alive=True))
            rows.append((guarded, base, "guard's own spawn + < 1 ms"))
        noop_guard(env, warm=True)
        with daemon(env) as proc:
            port, token = endpoint(env, proc.pid)
            warm = Stats.of("HTTP hook, kept-alive, one no-op warm guard", http_posts(port, token, n, keep_alive=True))
            rows.append((warm, base, "< 1 ms + the worker's answer"))
    out = table("A Claude Code hook event through hookd, wall time per event", rows)
    added = [
        f"- HTTP, kept alive: {keep.median_us / 1000:.2f} ms per event (goal < 1 ms)",
        f"- HTTP, new connection: {fresh.median_us / 1000:.2f} ms per event",
        f"- guard through HTTP minus the same guard spawned directly: {(guarded.median_us - base.median_us) / 1000:.2f} ms",
    ]
    if built.path:
        over = (shim_run.median_us - base.median_us) / 1000
        added.append(f"- shim: {shim_run.median_us / 1000:.2f} ms per event, {over:.2f} ms over the baseline (goal < 5 ms)")
    else:
        added.append(f"- shim: not built ({built.why})")
    return out + "\n" + "\n".join(added) + "\n"


def install(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([*hookd_script(), "bridge", "install", *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)


def sessions(count: int) -> str:
    from tests.e2e.claude.harness import ScriptedModel, claude_binary, run_claude, text, tool, write_settings

    if claude_binary() is None:
        return "## claude -p sessions\n\nn/a: the Claude Code CLI is not installed (npm ci in tests/e2e/claude)\n"
    steps = [tool("Bash", {"command": "true"}) for _ in range(10)] + [text("done")]
    names = ("direct", "hookd-warm", "hookd")
    cases: dict[str, list[int]] = {name: [] for name in names}
    with sandbox() as env, sandbox() as warm_env:
        noop_guard(env)
        noop_guard(warm_env, warm=True)
        project = Path(env["HOOKD_BENCH_TMP"]) / "project"
        direct_home = Path(env["HOOKD_BENCH_TMP"]) / "direct-home"
        write_settings(direct_home, {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sh -c 'cat >/dev/null'"}]}]}})
        with daemon(env) as proc, daemon(warm_env) as warm_proc:
            for e, p in ((env, proc), (warm_env, warm_proc)):
                endpoint(e, p.pid)
                install(e)  # every event the bridge maps, as install always writes them
            homes = {"direct": direct_home, "hookd-warm": Path(warm_env["HOME"]), "hookd": Path(env["HOME"])}
            # Interleaved, so that the machine's load falls on every case alike; the first round warms up.
            for i in range(count + 1):
                for name, home in homes.items():
                    with ScriptedModel(steps) as model:
                        t0 = time.perf_counter_ns()
                        session = run_claude(model, home=home, cwd=project, prompt="ten calls", env={"PATH": env["PATH"]})
                        elapsed = time.perf_counter_ns() - t0
                    if session.json.get("num_turns", 0) < 10 or session.json.get("permission_denials"):
                        raise RuntimeError(f"the session did not make its ten calls: {session.stdout[-500:]}")
                    if i:
                        cases[name].append(elapsed)
    direct = Stats.of("claude -p, 10 Bash calls, no-op guard as a direct command hook", cases["direct"])
    warm = Stats.of("bridge installed (every event), the guard as a warm hookd worker", cases["hookd-warm"])
    through = Stats.of("bridge installed (every event), the guard as a hookd command hook", cases["hookd"])
    rows = [(direct, None, "baseline"), (warm, direct, "no slower than direct"), (through, direct, "-")]
    out = table("Whole claude -p sessions through hookd against a direct command hook", rows)
    diff = [f"- {s.name}: {(s.median_us - direct.median_us) / 1000:+.0f} ms per session against direct (median)" for s in (warm, through)]
    return out + "\n" + "\n".join(diff) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200, help="events per case (default 200)")
    ap.add_argument("--sessions", type=int, default=5, help="claude -p sessions per case (default 5)")
    ap.add_argument("--no-sessions", action="store_true", help="skip the claude -p sessions")
    ap.add_argument("--no-events", action="store_true", help="skip the per-event figures")
    args = ap.parse_args()
    if not shutil.which("sh"):
        raise SystemExit("no sh on PATH")
    if not args.no_events:
        sys.stdout.write(per_event(args.n) + "\n")
        sys.stdout.flush()
    if not args.no_sessions:
        sys.stdout.write(sessions(args.sessions))
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    raise SystemExit(main())
