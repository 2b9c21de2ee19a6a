"""Qwen Code: Claude Code's hook protocol under its own name and tools."""
