"""Shared vocabulary of the wire: the decision and hook types, the request and reply bases,
how a hook is named (HookRef), how it failed or did not run, and the error codes."""

from __future__ import annotations

from collections.abc import Mapping
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
    # The rule of the hook that gave this answer, for a person and for stats: hookd's built-in guards
    # name theirs ("git.reset-hard", docs/guards.md); any hook may name its own.
    rule: str | None = None


DECISION_FIELDS = frozenset(field.encode_name for field in msgspec.structs.fields(Decision))


def unknown_decision_fields(answer: Mapping[Any, Any]) -> str | None:
    """What is wrong with the keys of a hook's answer in the HookDecision shape, or None.

    Where a hook's own answer is read (a command hook's stdout, a worker's answer, a handler's
    returned mapping) an unknown key is an error, not ignored as on the wire: a misspelt
    ``decison`` or a ``modified_input`` in the wrong case would otherwise turn a deny or a
    rewrite into a silent abstention."""
    if DECISION_FIELDS.issuperset(answer):
        return None
    import difflib  # only on the error path: the client's import stays small

    named = []
    for key in answer:
        if key in DECISION_FIELDS:
            continue
        close = difflib.get_close_matches(str(key), DECISION_FIELDS, n=1, cutoff=0.6)
        named.append(f"`{key}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
    fields = ", ".join(sorted(DECISION_FIELDS))
    return f"unknown field{'s' if len(named) > 1 else ''} {', '.join(named)}; a HookDecision has only {fields}"


def decision_from(answer: Any) -> Decision:
    """A hook's own answer as a Decision; ValueError naming what is wrong with it (an unknown key
    included: see :func:`unknown_decision_fields`)."""
    if isinstance(answer, Mapping):
        problem = unknown_decision_fields(answer)
        if problem is not None:
            raise ValueError(problem)
        answer = dict(answer)
    return msgspec.convert(answer, Decision)


class HookSpec(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    """A hook of a file or a session: seed 000's UserHookConfig plus hookd's per-hook options.

    A command hook names its program in ``command``; a built-in hook names hookd's guard packs in
    ``builtin`` instead (docs/guards.md), with their policy in ``options``, and runs in the daemon."""

    name: NonEmpty
    point: NonEmpty
    type: HookType
    command: str = ""  # the program a command hook runs; empty for a built-in hook
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
    shadow: bool = False  # a decision hook tried out: runs on every call, its answer recorded and never applied
    builtin: list[NonEmpty] = []  # hookd's guard packs this hook runs ("git", "files", ... or "default"): no process
    options: dict[str, Any] = {}  # a built-in hook's policy: allow, ask, protected_branches, protected_paths, force_with_lease

    def __post_init__(self) -> None:
        if self.builtin:
            if self.command:
                raise ValueError("a hook runs either a command or builtin packs, not both")
            if self.type != "decision":
                raise ValueError("a builtin hook is a decision hook (type: decision)")
        elif not self.command.strip():
            raise ValueError("a hook needs `command` (the program to run) or `builtin` (hookd's guard packs)")
        elif self.options:
            raise ValueError("options belong to a builtin hook; a command hook takes args and env")


class Request(msgspec.Struct, tag_field="type", omit_defaults=True):
    """Base of every request. ``id`` is chosen by the client; replies echo it."""


class Reply(msgspec.Struct, tag_field="type", omit_defaults=True):
    """Base of every reply. ``id`` is the id of the request it answers (0: the connection)."""


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
    "deadline",  # the caller (the agent) stops waiting before it could run (the decide's ``timeout``)
]


class NotRun(msgspec.Struct, omit_defaults=True):
    """A hook configured for a call that did not run, and why. A guard that did not run
    is always named here: an outcome without it must never be mistaken for an allow."""

    hook: HookRef
    reason: NotRunReason
    message: str


class Error(Reply, tag="error"):
    id: int
    code: str
    message: str


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
