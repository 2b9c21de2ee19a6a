"""hookd_client: talk to the hookd daemon. Depends on msgspec only.

from hookd_client import Client
with Client() as hookd:
    hookd.attach_session("s1", project="/path/to/repo")
    outcome = hookd.decide("tool.approval.pre", {"toolName": "execute_command",
                                                 "args": {"command": "rm -rf /"}},
                           session="s1")
    if outcome.decision == "deny":
        ...
"""

from typing import TYPE_CHECKING, Any

from .api import HookHandle
from .callbacks import Callback, InvokeContext, callback
from .client import Client
from .errors import BadSocketPath, ConnectionLost, DaemonNotRunning, DaemonNotTrusted, HookdError, ProtocolMismatch
from .messages import (
    PROTOCOL_VERSION,
    Chain,
    ChainEntry,
    Decision,
    ErrorCode,
    Event,
    Gap,
    HookError,
    HookRef,
    HookSpec,
    Outcome,
    Status,
)
from .paths import default_socket_path
from .plugin import Block
from .stream import AsyncSubscription, Subscription

if TYPE_CHECKING:
    from .aio import AsyncClient

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # AsyncClient pulls in asyncio (~30 ms); one-shot callers such as the
    # agent bridge only need the blocking Client, so load it on first use.
    if name == "AsyncClient":
        from .aio import AsyncClient

        return AsyncClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PROTOCOL_VERSION",
    "AsyncClient",
    "AsyncSubscription",
    "BadSocketPath",
    "Block",
    "Callback",
    "Chain",
    "ChainEntry",
    "Client",
    "ConnectionLost",
    "DaemonNotRunning",
    "DaemonNotTrusted",
    "Decision",
    "ErrorCode",
    "Event",
    "Gap",
    "HookError",
    "HookHandle",
    "HookRef",
    "HookSpec",
    "HookdError",
    "InvokeContext",
    "Outcome",
    "ProtocolMismatch",
    "Status",
    "Subscription",
    "callback",
    "default_socket_path",
]
