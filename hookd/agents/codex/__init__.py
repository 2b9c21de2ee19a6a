"""The Codex CLI bridge: Codex's command hooks (config.toml `[hooks]`) forwarded to hookd."""
