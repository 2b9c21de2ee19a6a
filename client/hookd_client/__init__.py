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

from .aio import AsyncClient
from .client import Client
from .errors import ConnectionLost, DaemonNotRunning, HookdError, ProtocolMismatch
from .messages import (
    PROTOCOL_VERSION,
    Chain,
    ChainEntry,
    Decision,
    ErrorCode,
    HookError,
    HookRef,
    HookSpec,
    Outcome,
    Status,
)
from .paths import default_socket_path

__version__ = "0.1.0"

__all__ = [
    "PROTOCOL_VERSION",
    "AsyncClient",
    "Chain",
    "ChainEntry",
    "Client",
    "ConnectionLost",
    "DaemonNotRunning",
    "Decision",
    "ErrorCode",
    "HookError",
    "HookRef",
    "HookSpec",
    "HookdError",
    "Outcome",
    "ProtocolMismatch",
    "Status",
    "default_socket_path",
]
