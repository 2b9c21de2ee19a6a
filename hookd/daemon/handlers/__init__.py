"""The daemon's request handlers, one module per feature.

Each feature is a small class holding the :class:`~hookd.daemon.daemon.Daemon` whose
shared state it works on; its ``handlers()`` names the requests it serves, and
the daemon joins them into its one dispatch table.
"""
