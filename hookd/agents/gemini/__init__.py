"""Bridges for Gemini CLI (command hooks through `hookd bridge gemini`) and Qwen Code (HTTP hooks, Claude Code's format)."""
