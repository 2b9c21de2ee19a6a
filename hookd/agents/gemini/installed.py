"""Gemini CLI's installs: its user and project settings files."""

from __future__ import annotations

from hookd.agents import settings_installed
from hookd.agents.gemini import install, protocol

# Gemini CLI blocks on a top-level ``decision``.
READER = settings_installed.Reader(
    "gemini",
    install.GEMINI_SCOPES,
    install.is_gemini_ours,
    protocol.INSTALLED_EVENTS,
    lambda answer: answer.get("decision") in ("deny", "block"),
)
