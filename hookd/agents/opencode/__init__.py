"""opencode: a plugin that sends every opencode plugin event to hookd through the TypeScript client."""
