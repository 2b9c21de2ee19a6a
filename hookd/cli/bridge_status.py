"""`hookd bridge status`: which agents are bridged to hookd, where, how each reaches it, and what is wrong.

Read from the agents' files alone (hookd/agents/installs.py); with ``--check``, a canary tool call goes
through each installed path as `hookd doctor` sends it.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def add(bridges: Any) -> None:
    s = bridges.add_parser(
        "status",
        help="show which agents are bridged to hookd, where, how, and what is wrong with each",
        description="For each agent (Claude Code, Qwen Code, Gemini CLI, Codex, opencode, pi): the files hookd's bridge is "
        "installed in, how the agent reaches hookd on a tool call (HTTP hook, shim or Python bridge command, plugin, extension), "
        "whether a tool call is denied when hookd is down (fail-closed), and every problem install would fix. With "
        "--check, a canary tool call goes through each path, as `hookd doctor` sends it. Exit status 1 when a "
        "problem was found.",
    )
    s.add_argument("--project", "-p", metavar="DIR", help="the project whose installs to show too (default: the current directory)")
    s.add_argument("--check", action="store_true", help="send a canary tool call through each installed path")
    s.add_argument("--json", action="store_true", help="print JSON: {ok, agents: [{agent, path, hooks, how, fail_closed, problems}]}")
    s.add_argument("--socket", metavar="PATH", help="daemon socket (default: see `hookd --help`)")
    s.set_defaults(run=run)


def _how(hooks: list[Any]) -> list[str]:
    out = []
    for h in hooks:
        if h.kind == "http":
            out.append(f"HTTP {h.target}")
        elif h.kind == "plugin":
            out.append(f"plugin {h.target}")
        elif h.kind == "extension":
            out.append(f"extension {h.target}")
        else:
            words = h.target.split()
            out.append(f"command {words[0] if words else h.target}")
    return out


def run(args: argparse.Namespace) -> int:
    from hookd.cli.common import print_json
    from hookd.cli.doctor_agents import agent_checks, installed
    from hookd.cli.doctor_checks import reach
    from hookd.config.statefiles import state_home

    cwd = os.path.abspath(args.project or os.getcwd())
    rows: list[dict[str, Any]] = []
    for found in installed(cwd, state_home()):
        rows.append(
            {
                "agent": found.agent,
                "path": found.path,
                "hooks": found.install.hooks,
                "how": _how(found.hooks),
                "fail_closed": bool(found.hooks) and any(h.fail_closed for h in found.hooks),
                "problems": list(found.install.problems),
            }
        )
    checks = []
    if args.check:
        from hookd_client.paths import default_socket_path

        daemon = reach(args.socket or default_socket_path(), cwd)
        checks = [c for c in agent_checks(daemon, cwd, state_home()) if c.name != "agents"]
    ok = not any(r["problems"] for r in rows) and not any(c.status == "fail" for c in checks)
    if args.json:
        print_json({"ok": ok, "agents": rows, "checks": [c._asdict() for c in checks]})
        return 0 if ok else 1
    w = sys.stdout.write
    if not rows:
        w("no agent is bridged to hookd (`hookd bridge install AGENT`)\n")
    for r in rows:
        closed = "fail-closed" if r["fail_closed"] else "fails open when hookd is down"
        w(f"{r['agent']:<12} {r['path']}  ({r['hooks']} hooks; {closed})\n")
        for how in r["how"]:
            w(f"{'':<13}tool calls: {how}\n")
        for problem in r["problems"]:
            w(f"{'':<13}problem: {problem}\n")
    for c in checks:
        mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[c.status]
        w(f"{mark}  {c.name}: {c.message}\n")
        if c.fix and c.status != "ok":
            w(f"{'':<6}fix: {c.fix}\n")
    return 0 if ok else 1
