"""The agents hookd bridges, one folder each: its protocol mapped onto hookd's points and tool vocabulary, its install, import and run.

The modules an agent starts once per event (a bridge's run and the protocols it maps with) import the
standard library and the thin client only, never the daemon, structlog, YAML or uvloop: an agent
starts the bridge once per event.
"""
