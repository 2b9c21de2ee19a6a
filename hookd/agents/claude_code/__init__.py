"""Claude Code: its hook protocol, the hooks written for it, and the version that honours fail-closed."""
