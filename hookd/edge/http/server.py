"""The loopback HTTP server for agents' hooks, started in the daemon's event loop.

What each connection does (h11 parses it; the limits are enforced there) is hookd/edge/http/connection.py, loaded
with the first connection: a daemon that no agent calls over HTTP never loads the request parser and the answer path.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from hookd.config import endpoint_files as files
from hookd.edge.http.endpoint import Endpoint, Options

if TYPE_CHECKING:
    from hookd.daemon.daemon import Daemon


def _connection(endpoint: Endpoint) -> asyncio.Protocol:
    from hookd.edge.http.connection import HttpConnection

    return HttpConnection(endpoint)


async def start(daemon: Daemon, options: Options, state: str) -> Endpoint:
    endpoint = Endpoint(daemon, options, files.token(state), state, _connection)
    await endpoint.start()
    return endpoint
