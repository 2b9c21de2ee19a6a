"""hookd for a team: events exported to NATS JetStream and OpenTelemetry, and organisation guards from a key-value bucket.

The team's stream is followed by `hookd tail --team` (hookd/cli/tail_team.py). See docs/team.md.
"""

from hookd.team.team import Team, is_managed

__all__ = ["Team", "is_managed"]
