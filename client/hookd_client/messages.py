"""Every message that crosses the hookd socket, defined once.

The daemon imports these types; nothing else defines wire shapes. Requests and
replies are two tagged unions (tag field ``type``) so a frame body is decoded
exactly once, at the edge, into a typed object. Field names on the wire are the
attribute names below, except the HookDecision fields that come from the seed
(``modifiedInput``/``modifiedOutput``), which keep the seed's spelling because
hook programs write them too. See docs/protocol.md.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

PROTOCOL_VERSION = 1

DecisionKind = Literal["allow", "deny", "ask", "continue"]
HookType = Literal["observer", "decision"]
OnError = Literal["continue", "deny", "ask"]
Scope = Literal["session", "project", "global", "managed", "managed_after"]

RequestId = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
Timeout = Annotated[float, msgspec.Meta(gt=0, le=3600)]
HookMode = Literal["spawn", "persistent"]  # a fresh process per call, or one warm worker
# How a group of hooks combines: seed 000's chain (the first final answer ends it) or every member at
# once with the most restrictive answer winning (deny > defer > ask > allow). docs/protocol.md.
Combine = Literal["first", "strictest"]
# How a command hook reads its input and answers: hookd's HookDecision JSON, or Claude Code's hook
# contract (its hook input on stdin; exit codes and output JSON as Claude Code's hooks reference says).
HookFormat = Literal["hookd", "claude-code"]
Concurrency = Annotated[int, msgspec.Meta(ge=1, le=1024)]


class Decision(msgspec.Struct, omit_defaults=True):
    """Seed 000's HookDecision: what one decision hook answers (or null to abstain)."""

    decision: DecisionKind | None = None
    reason: str | None = None
    injection: str | None = None
    modified_input: dict[str, Any] | None = msgspec.field(default=None, name="modifiedInput")
    modified_output: Any = msgspec.field(default=None, name="modifiedOutput")
    # Fields for the agent that have no HookDecision equivalent (Claude Code's systemMessage,
    # continue/stopReason, suppressOutput, defer, updatedPermissions, interrupt, retry...), passed
    # through to the agent's bridge. docs/protocol.md, "How a set of hooks combines".
    agent_output: dict[str, Any] | None = msgspec.field(default=None, name="agentOutput")


class HookSpec(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    """A command hook: seed 000's UserHookConfig plus hookd's per-hook options."""

    name: NonEmpty
    point: NonEmpty
    type: HookType
    command: NonEmpty
    description: str = ""
    args: list[str] = []
    env: dict[str, str] = {}
    priority: int = 0
    enabled: bool = True
    timeout: Timeout | None = None  # seconds; None: the daemon's default (30)
    on_error: OnError = "continue"
    match: dict[str, str] = {}  # payload field or dotted path -> regular expression (re.search); all must match
    cwd: str | None = None  # None: the project directory (project hooks) or the home directory
    mode: HookMode = "spawn"  # docs/warm-hooks.md
    concurrency: Concurrency = 1  # persistent mode: requests outstanding at once per worker
    group: str | None = None  # hooks of one file sharing a group run as one step of the chain
    combine: Combine | None = None  # how the group combines (None: the group's stated way, else first)
    format: HookFormat = "hookd"


# --------------------------------------------------------------------- requests


class Request(msgspec.Struct, tag_field="type", omit_defaults=True):
    """Base of every request. ``id`` is chosen by the client; replies echo it."""


class Hello(Request, tag="hello"):
    id: RequestId
    protocol: int
    client: str = ""
    pid: int = 0


class Emit(Request, tag="emit"):
    id: RequestId
    point: str
    payload: dict[str, Any] = {}
    session: str | None = None
    project: str | None = None
    wait: bool = False


class Decide(Request, tag="decide"):
    id: RequestId
    point: str
    payload: dict[str, Any] = {}
    session: str | None = None
    project: str | None = None


class AttachSession(Request, tag="attach_session"):
    id: RequestId
    session: NonEmpty
    project: str | None = None
    hooks: list[HookSpec] = []


class DisposeSession(Request, tag="dispose_session"):
    id: RequestId
    session: NonEmpty


class DisposeProject(Request, tag="dispose_project"):
    id: RequestId
    project: NonEmpty


class Register(Request, tag="register"):
    id: RequestId
    hook: HookSpec
    session: str | None = None
    project: str | None = None


class Unregister(Request, tag="unregister"):
    id: RequestId
    handle: NonEmpty


class ReloadUserHooks(Request, tag="reload_user_hooks"):
    id: RequestId
    project: str | None = None


class EnableHook(Request, tag="enable_hook"):
    id: RequestId
    name: NonEmpty
    project: str | None = None


class DisableHook(Request, tag="disable_hook"):
    id: RequestId
    name: NonEmpty
    project: str | None = None


class Explain(Request, tag="explain"):
    id: RequestId
    point: str
    session: str | None = None
    project: str | None = None


class StatusRequest(Request, tag="status"):
    id: RequestId


# --- event stream

PointGlob = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class Subscribe(Request, tag="subscribe"):
    """Turn this connection into a stream of Event frames (one subscription per connection).

    Filters combine with AND; an empty list matches everything. ``points`` are
    shell-style globs (``tool.*``). ``since_seq`` replays history from that
    sequence number, ``since_age`` replays the last that many seconds; without
    either the stream starts live. ``follow=False`` ends the stream after the
    replay (a Live frame, then the daemon drops the subscription).
    ``queue``/``queue_bytes`` ask for another per-subscriber bound (the daemon caps them).
    """

    id: RequestId
    points: list[PointGlob] = []
    sessions: list[str] = []
    projects: list[str] = []
    since_seq: Annotated[int, msgspec.Meta(ge=0)] | None = None
    since_age: Annotated[float, msgspec.Meta(ge=0)] | None = None
    follow: bool = True
    queue: Annotated[int, msgspec.Meta(ge=1)] | None = None
    queue_bytes: Annotated[int, msgspec.Meta(ge=1024)] | None = None


class Unsubscribe(Request, tag="unsubscribe"):
    id: RequestId


# --- user hook configuration: requests


class ListHooks(Request, tag="list_hooks"):
    """Every hook in force: the global ones, and ``project``'s (else every loaded project's and session's)."""

    id: RequestId
    project: str | None = None


class Trust(Request, tag="trust"):
    """Trust a project's hook files as they are now (``path``: a project directory or one hook file)."""

    id: RequestId
    path: NonEmpty


class Untrust(Request, tag="untrust"):
    id: RequestId
    path: NonEmpty


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
)


# ---------------------------------------------------------------------- replies


class Reply(msgspec.Struct, tag_field="type", omit_defaults=True):
    """Base of every reply. ``id`` is the id of the request it answers (0: the connection)."""


class Limits(msgspec.Struct, omit_defaults=True):
    max_frame: int
    hook_timeout: float
    max_inflight: int


class Welcome(Reply, tag="welcome"):
    id: int
    protocol: int
    server: str
    version: str
    pid: int
    limits: Limits


class HookRef(msgspec.Struct, omit_defaults=True):
    """Names one hook: its name, scope and where it came from (a file, a session, a client)."""

    name: str
    scope: Scope
    source: str


class HookError(msgspec.Struct, omit_defaults=True):
    """One hook that failed during a call. ``code`` is ``timeout`` or ``error``."""

    hook: HookRef
    code: str
    message: str


NotRunReason = Literal[
    "untrusted",  # a project file (or plugin) the user has not trusted, or changed since
    "invalid_file",  # its file was rejected and no earlier accepted version exists
    "not_loaded",  # its file or plugin host was not loaded in time for this call
    "plugin_failed",  # its plugin host failed to install or start
    "worker_failed",  # its persistent worker gave up after repeated crashes
    "shed",  # hookd shed it under load
    "too_large",  # the call's payload could not be handed to it
    "disconnected",  # the client that serves it went away; its session waits for it to come back
]


class NotRun(msgspec.Struct, omit_defaults=True):
    """A hook configured for a call that did not run, and why. A guard that did not run
    is always named here: an outcome without it must never be mistaken for an allow."""

    hook: HookRef
    reason: NotRunReason
    message: str


class Accepted(Reply, tag="accepted"):
    """Answer to ``emit``: the event was accepted; with ``wait`` observers have finished."""

    id: int
    observers: int = 0
    errors: list[HookError] = []


class Outcome(Reply, tag="outcome"):
    """Answer to ``decide``: the chain's result."""

    id: int
    decision: DecisionKind | None = None
    reason: str | None = None
    injection: str | None = None
    modified_input: dict[str, Any] | None = msgspec.field(default=None, name="modifiedInput")
    modified_output: Any = msgspec.field(default=None, name="modifiedOutput")
    decided_by: HookRef | None = None
    errors: list[HookError] = []
    not_run: list[NotRun] = []
    agent_output: dict[str, Any] | None = msgspec.field(default=None, name="agentOutput")


class Attached(Reply, tag="attached"):
    id: int
    session: str
    handles: list[str] = []


class Registered(Reply, tag="registered"):
    id: int
    handle: str


class Done(Reply, tag="done"):
    """Answer to requests that only act; ``count`` says how many hooks they touched."""

    id: int
    count: int = 0


class ChainEntry(msgspec.Struct, omit_defaults=True):
    name: str
    type: HookType
    scope: Scope
    priority: int
    source: str
    point: str
    enabled: bool = True
    trusted: bool = True


class Chain(Reply, tag="chain"):
    """Answer to ``explain``: the hooks a call would run, in order."""

    id: int
    point: str
    decision_hooks: list[ChainEntry] = []
    observers: list[ChainEntry] = []


# --- warm hooks


class WorkerInfo(msgspec.Struct, omit_defaults=True):
    """One persistent worker as ``status`` shows it. ``state``: idle, running, backoff, failed, stopped."""

    name: str
    state: str
    pid: int = 0
    restarts: int = 0
    failures: int = 0
    outstanding: int = 0
    queued: int = 0
    served: int = 0
    error: str = ""


class JournalInfo(msgspec.Struct, omit_defaults=True):
    """The journal as ``status`` shows it: events written, and events lost (never silently)."""

    enabled: bool
    path: str = ""
    written: int = 0  # events written by this daemon
    lost: int = 0  # events this daemon could not write (disk full, I/O error, backlog over its bound)
    failing: bool = False  # the last write failed; events are being lost now
    last_written: int = 0  # seq of the newest event on disk


PluginState = Literal["loading", "installing", "starting", "loaded", "failed", "untrusted", "empty"]


class PluginInfo(msgspec.Struct, omit_defaults=True):
    """One plugin directory the daemon knows, as ``status`` shows it."""

    directory: str
    scope: Scope
    state: PluginState
    owner: str = ""  # the project path, "" for the user's own directories
    pid: int = 0  # its host process, when loaded
    events: list[str] = []  # the decision events its guards handle
    progress: str = ""  # installing: pip's latest line
    error: str = ""  # failed (or a reload that failed while an older host still serves): why


class ExportInfo(msgspec.Struct, omit_defaults=True):
    """The export of the events to the team's stream. ``state``: connecting, exporting, failing."""

    state: str
    stream: str
    identity: str = ""  # the daemon's name in the message ids (<identity>:<seq>)
    acked: int = 0  # the newest seq the server acknowledged
    lag: int = 0  # events published on the bus and not acknowledged yet
    published: int = 0  # since the daemon started
    missed: int = 0  # rotated out of the journal before they were exported
    error: str = ""


class GuardsInfo(msgspec.Struct, omit_defaults=True):
    """The organisation's guards in force. ``revision``: the newest bucket revision taken into account."""

    bucket: str
    revision: int = 0
    hooks: int = 0
    keys: dict[str, int] = {}  # key -> the revision of it in force
    state: str = ""  # connecting, watching, offline, failing, record only
    rejected: dict[str, str] = {}  # key -> why its latest value was refused (its previous one stays)
    error: str = ""


class TeamInfo(msgspec.Struct, omit_defaults=True):
    servers: list[str] = []
    error: str = ""  # the team settings were refused
    export: ExportInfo | None = None
    guards: GuardsInfo | None = None


class Status(Reply, tag="status"):
    id: int
    version: str
    pid: int
    socket: str
    uptime: float
    connections: int
    sessions: int
    hooks: int
    calls: int
    emits: int = 0
    decides: int = 0
    hook_errors: int = 0
    workers: list[WorkerInfo] = []  # persistent hook workers
    subscribers: int = 0  # event-stream subscriptions open now
    events: int = 0  # the newest event's seq (events published, counting from the journal's past)
    journal: JournalInfo | None = None
    plugins: list[PluginInfo] = []
    team: TeamInfo | None = None  # export and organisation guards (docs/team.md); None: no team settings


class Error(Reply, tag="error"):
    id: int
    code: str
    message: str


# --- event stream

EventKind = Literal["emit", "decide", "internal"]
GapReason = Literal["overflow", "history"]


class Subscribed(Reply, tag="subscribed"):
    """Answer to ``subscribe``. ``last`` is the newest seq published when it took effect."""

    id: int
    last: int
    oldest: int
    queue: int
    queue_bytes: int


class Event(Reply, tag="event"):
    """One event on the bus. ``seq`` grows by one per event for the daemon's lifetime
    (and continues from the journal across restarts). ``time`` is Unix seconds.
    Decisions carry their outcome; ``duration`` is the decision chain's milliseconds.
    Stream frames carry no request id (a connection holds one subscription)."""

    seq: int
    time: float
    kind: EventKind
    point: str
    session: str | None = None
    project: str | None = None
    payload: dict[str, Any] = {}
    decision: DecisionKind | None = None
    reason: str | None = None
    decided_by: HookRef | None = None
    errors: int = 0
    duration: float | None = None
    id: int = 0


class Gap(Reply, tag="gap"):
    """``missed`` events that matched the subscription were not delivered: the subscriber fell
    behind (``overflow``) or asked for history older than the daemon keeps (``history``; then
    ``missed`` counts every event in the range, matching or not). ``first``..``last`` is their seq range."""

    missed: int
    first: int
    last: int
    reason: GapReason = "overflow"
    id: int = 0


class Live(Reply, tag="live"):
    """The replay is over: what follows is live. ``seq`` is the newest seq at that point."""

    seq: int
    id: int = 0


# --- user hook configuration: replies


class HookInfo(msgspec.Struct, omit_defaults=True):
    """One hook in force, as `hookd hooks` shows it."""

    name: str
    point: str
    type: HookType
    scope: Scope
    owner: str  # "" (global), the project path, or the session id
    source: str
    priority: int
    enabled: bool  # in force now, after toggles
    default_enabled: bool  # what the file (or registration) says
    toggled: bool = False
    trusted: bool = True
    trust: str = ""  # why it is (not) trusted
    description: str = ""
    match: dict[str, str] = {}
    worker: str = ""  # persistent hooks: idle, running, backoff, "failed: <why>", stopped


class FileProblem(msgspec.Struct, omit_defaults=True):
    """A hook file whose latest version was rejected; its previous version stays in force."""

    file: str
    problems: list[str]


class HookList(Reply, tag="hook_list"):
    id: int
    hooks: list[HookInfo] = []
    rejected: list[FileProblem] = []


class TrustedFile(msgspec.Struct, omit_defaults=True):
    file: str
    sha256: str = ""


class TrustResult(Reply, tag="trust_result"):
    """Answer to ``trust`` / ``untrust``: the hook files whose trust changed."""

    id: int
    files: list[TrustedFile] = []


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
)


class ErrorCode:
    """The stable error codes. Clients branch on these, never on messages."""

    BAD_REQUEST = "bad_request"
    FRAME_TOO_LARGE = "frame_too_large"
    VERSION_MISMATCH = "version_mismatch"
    HELLO_REQUIRED = "hello_required"
    UNKNOWN_POINT = "unknown_point"
    WRONG_KIND = "wrong_kind"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    CONFIG_INVALID = "config_invalid"
    LIMIT = "limit_exceeded"
    TIMEOUT = "timeout"
    INTERNAL = "internal"
    SHUTTING_DOWN = "shutting_down"


# --- callback hooks and session ownership
#
# A client may serve hooks itself: it attaches them with ``attach_hooks`` and
# the daemon then sends it ``invoke`` frames (daemon -> client, decoded by the
# client with the replies) which it answers with ``invoke_result`` (client ->
# daemon, no reply). Invoke ids (``call``) are chosen by the daemon and are
# unrelated to request ids; an Invoke's ``id`` is always 0 so a client that
# routes frames by ``id`` never mistakes one for a reply.


class CallbackSpec(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    """A hook served by the attaching connection. ``cb`` is the client's own handler number."""

    cb: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
    name: NonEmpty
    point: NonEmpty
    type: HookType
    priority: int = 0
    timeout: Timeout | None = None
    on_error: OnError = "continue"


class CommandEntry(msgspec.Struct, tag_field="kind", tag="command", omit_defaults=True):
    spec: HookSpec


class CallbackEntry(msgspec.Struct, tag_field="kind", tag="callback", omit_defaults=True):
    spec: CallbackSpec


SessionEntry = CommandEntry | CallbackEntry


class AttachHooks(Request, tag="attach_hooks"):
    """Attach a session (claiming it for this connection) and add ``hooks`` in order, all or none.

    With ``fresh`` the session's hooks are replaced by ``hooks`` (what a client
    sends to restore its sessions after a reconnect); otherwise they are added.
    """

    id: RequestId
    session: NonEmpty
    project: str | None = None
    hooks: list[SessionEntry] = []
    fresh: bool = False


class InvokeResult(Request, tag="invoke_result"):
    """A client's answer to an Invoke: the handler's Decision (or null), or its error."""

    call: int
    decision: Decision | None = None
    error: str | None = None


class Invoke(Reply, tag="invoke"):
    """Daemon -> client: run handler ``cb`` on ``payload`` and answer with an InvokeResult."""

    call: int
    cb: int
    point: str
    hook: str
    kind: HookType
    payload: dict[str, Any] = {}
    session: str | None = None
    project: str | None = None
    id: int = 0


AnyRequest = AnyRequest | AttachHooks | InvokeResult
AnyReply = AnyReply | Invoke


# --- the catalog: every point and internal event the daemon knows


class CatalogRequest(Request, tag="catalog"):
    """Every hook point (observer and decision) and every internal event, with payload types."""

    id: RequestId


class CatalogEntry(msgspec.Struct, omit_defaults=True):
    """One point. ``payload`` maps a field to its type (``str``, ``int``, ``list[str]``, ``str|null``...;
    a name ending in ``?`` is sometimes absent); empty for hook points, whose payload is the agent's map."""

    name: str
    kind: Literal["observer", "decision", "internal"]
    meaning: str = ""
    seeds: list[str] = []
    payload: dict[str, str] = {}


class Catalog(Reply, tag="catalog"):
    """Answer to ``catalog``: hook points, then internal events (``hookd.*``), each in catalog order."""

    id: int
    points: list[CatalogEntry] = []
    internal: list[CatalogEntry] = []
    custom_prefix: str = "custom."  # names under it are free and accept both kinds
    catch_all: str = "event"  # observers here see every event


AnyRequest = AnyRequest | CatalogRequest
AnyReply = AnyReply | Catalog
