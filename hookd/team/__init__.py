"""hookd for a team: events exported to a NATS JetStream stream, organisation guards from a
JetStream key-value bucket, and the team's stream followed by `hookd tail --team`.
See docs/team.md."""

from .team import Team, is_managed

__all__ = ["Team", "is_managed"]
