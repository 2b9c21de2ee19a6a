"""Runners: one hook run each, as a subprocess, a warm worker, a client callback, or with Claude Code's rules."""
