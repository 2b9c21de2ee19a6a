"""pi (the pi coding agent): an extension in pi's own process that sends pi's events to hookd through the TypeScript client."""
