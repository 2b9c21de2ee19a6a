"""The Cline CLI bridge: Cline's hook files (`~/.cline/hooks/EVENT`) forwarded to hookd through the shim."""
