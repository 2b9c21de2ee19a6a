"""Every message that crosses the hookd socket, defined once.

The daemon imports these types; nothing else defines wire shapes. Requests and
replies are two tagged unions (tag field ``type``) so a frame body is decoded
exactly once, at the edge, into a typed object. Field names on the wire are the
attribute names, except the HookDecision fields that come from the seed
(``modifiedInput``/``modifiedOutput``), which keep the seed's spelling because
hook programs write them too. See docs/protocol.md.

One module per feature defines its messages; this package gathers them and
builds the two unions. A new request or reply is defined in its feature's
module and added to a union below.
"""

from __future__ import annotations

from .approvals import (
    Approval,
    ApprovalAnswer,
    ApprovalAnswered,
    ApprovalClosed,
    ApprovalDecision,
    ApprovalOffer,
    Approvals,
    Approver,
    Approving,
)
from .base import (
    PROTOCOL_VERSION,
    Combine,
    Concurrency,
    Decision,
    DecisionKind,
    Error,
    ErrorCode,
    HookError,
    HookFormat,
    HookMode,
    HookRef,
    HookSpec,
    HookType,
    NonEmpty,
    NotRun,
    NotRunReason,
    OnError,
    Reply,
    Request,
    RequestId,
    Scope,
    Timeout,
)
from .callbacks import (
    AttachHooks,
    CallbackEntry,
    CallbackSpec,
    CommandEntry,
    Invoke,
    InvokeResult,
    SessionEntry,
)
from .calls import (
    Accepted,
    Decide,
    Emit,
    Hello,
    Limits,
    Outcome,
    Welcome,
)
from .catalog import (
    Catalog,
    CatalogEntry,
    CatalogRequest,
)
from .config import (
    Attached,
    AttachSession,
    Chain,
    ChainEntry,
    DisableHook,
    DisposeProject,
    DisposeSession,
    Done,
    EnableHook,
    Explain,
    FileProblem,
    HookInfo,
    HookList,
    ListHooks,
    Register,
    Registered,
    ReloadUserHooks,
    Trust,
    TrustedFile,
    TrustResult,
    Unregister,
    Untrust,
)
from .observe import (
    Counts,
    GroupStats,
    HookRun,
    HookStats,
    SkipReason,
    Stats,
    StatsRequest,
    TraceEntry,
)
from .replay import HookAnswer, Replay, Replayed, ReplayedCall, Verdict
from .status import (
    ExportInfo,
    GuardsInfo,
    JournalInfo,
    PluginInfo,
    PluginState,
    Status,
    StatusRequest,
    TeamInfo,
    WorkerInfo,
)
from .stream import (
    Event,
    EventKind,
    Gap,
    GapReason,
    Live,
    PointGlob,
    Subscribe,
    Subscribed,
    Unsubscribe,
)

AnyRequest = (
    Hello
    | Emit
    | Decide
    | AttachSession
    | DisposeSession
    | DisposeProject
    | Register
    | Unregister
    | ReloadUserHooks
    | EnableHook
    | DisableHook
    | Explain
    | StatusRequest
    | Subscribe
    | Unsubscribe
    | ListHooks
    | Trust
    | Untrust
    | AttachHooks
    | InvokeResult
    | CatalogRequest
)

AnyReply = (
    Welcome
    | Accepted
    | Outcome
    | Attached
    | Registered
    | Done
    | Chain
    | Status
    | Error
    | Subscribed
    | Event
    | Gap
    | Live
    | HookList
    | TrustResult
    | Invoke
    | Catalog
)

AnyRequest = AnyRequest | StatsRequest
AnyReply = AnyReply | Stats
AnyRequest = AnyRequest | Approvals | ApprovalAnswer
AnyReply = AnyReply | Approving | ApprovalOffer | ApprovalAnswered | ApprovalClosed
AnyRequest = AnyRequest | Replay
AnyReply = AnyReply | Replayed

__all__ = [
    "PROTOCOL_VERSION",
    "Accepted",
    "AnyReply",
    "AnyRequest",
    "Approval",
    "ApprovalAnswer",
    "ApprovalAnswered",
    "ApprovalClosed",
    "ApprovalDecision",
    "ApprovalOffer",
    "Approvals",
    "Approver",
    "Approving",
    "AttachHooks",
    "AttachSession",
    "Attached",
    "CallbackEntry",
    "CallbackSpec",
    "Catalog",
    "CatalogEntry",
    "CatalogRequest",
    "Chain",
    "ChainEntry",
    "Combine",
    "CommandEntry",
    "Concurrency",
    "Counts",
    "Decide",
    "Decision",
    "DecisionKind",
    "DisableHook",
    "DisposeProject",
    "DisposeSession",
    "Done",
    "Emit",
    "EnableHook",
    "Error",
    "ErrorCode",
    "Event",
    "EventKind",
    "Explain",
    "ExportInfo",
    "FileProblem",
    "Gap",
    "GapReason",
    "GroupStats",
    "GuardsInfo",
    "Hello",
    "HookAnswer",
    "HookError",
    "HookFormat",
    "HookInfo",
    "HookList",
    "HookMode",
    "HookRef",
    "HookRun",
    "HookSpec",
    "HookStats",
    "HookType",
    "Invoke",
    "InvokeResult",
    "JournalInfo",
    "Limits",
    "ListHooks",
    "Live",
    "NonEmpty",
    "NotRun",
    "NotRunReason",
    "OnError",
    "Outcome",
    "PluginInfo",
    "PluginState",
    "PointGlob",
    "Register",
    "Registered",
    "ReloadUserHooks",
    "Replay",
    "Replayed",
    "ReplayedCall",
    "Reply",
    "Request",
    "RequestId",
    "Scope",
    "SessionEntry",
    "SkipReason",
    "Stats",
    "StatsRequest",
    "Status",
    "StatusRequest",
    "Subscribe",
    "Subscribed",
    "TeamInfo",
    "Timeout",
    "TraceEntry",
    "Trust",
    "TrustResult",
    "TrustedFile",
    "Unregister",
    "Unsubscribe",
    "Untrust",
    "Verdict",
    "Welcome",
    "WorkerInfo",
]
