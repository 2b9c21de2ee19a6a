"""Every black-box attack scenario, by name (see common.py for what they share)."""

from .common import POINT, Figures, Raw, daemon_pid, fresh_daemon, make_env_for, probe_latency, rss_kib
from .fuzzing import fuzz
from .holders import killed_holder, pipelined_callbacks, stopped_holder
from .peers import many_connections, other_uid, slowloris
from .streams import stalled_subscriber

__all__ = [
    "POINT",
    "Figures",
    "Raw",
    "daemon_pid",
    "fresh_daemon",
    "fuzz",
    "killed_holder",
    "make_env_for",
    "many_connections",
    "other_uid",
    "pipelined_callbacks",
    "probe_latency",
    "rss_kib",
    "slowloris",
    "stalled_subscriber",
    "stopped_holder",
]
