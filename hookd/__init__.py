"""hookd: a per-user hook daemon for AI coding agents."""

__version__ = "0.1.0"
