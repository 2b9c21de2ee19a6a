"""The daemon's request handlers, one module per feature.

Each feature is a small class that names the parts of the daemon it works on as a
protocol (``CallsParts``, ``SessionsParts``, ...), which the daemon satisfies (mypy checks
it); its ``handlers()`` names the requests it serves, and the daemon joins them into its
one dispatch table. A handler sees the connection as a ``Peer``.
"""
