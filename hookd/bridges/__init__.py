"""Bridges: let agents that only call command hooks (Claude Code and the agents
that copy its format) route their hook events through hookd.

Modules here import the standard library and the thin client only, never the
daemon, structlog, YAML or uvloop: an agent starts the bridge once per event.
"""
