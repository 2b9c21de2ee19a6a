"""`hookd approve`: answer, at a terminal, the calls whose hooks asked for a person.

One offer at a time: the point, the session and project, a summary of the payload, the hook
that asked and its reason, and how long is left; `a` or `d`, optionally followed by a reason.
An offer decided meanwhile (by another approver, or by the deadline) is dropped with a note.
Built on the client's approver (hookd_client.approver), as any other approver program would be.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from hookd.cli.common import add_socket, error_text, exit_code_of, fail

if TYPE_CHECKING:
    import asyncio

    from hookd_client.approver import ApprovalOffer, AsyncApprover

_SUMMARY = 400  # characters of payload shown


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "approve",
        help="answer the calls whose hooks ask for a person",
        description="Become an approver: every decide whose hook chain ends in `ask` is shown here, one at a time, "
        "while this runs; answer a (allow) or d (deny), optionally followed by a reason. The first approver to answer "
        "decides the call; nobody answering within the daemon's approval deadline applies its default "
        "(`hookd serve --approval-timeout/--approval-default`). docs/approvals.md.",
        epilog="Example answers: `a`, `d not on main`, `allow: reviewed`. End with Ctrl-D or Ctrl-C.",
    )
    p.add_argument("--name", metavar="NAME", help="the name shown as who answered (default: your user name)")
    p.add_argument("--once", action="store_true", help="exit after answering one offer")
    add_socket(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from hookd_client import HookdError

    try:
        return asyncio.run(_approve(args))
    except HookdError as exc:
        return fail(error_text(exc), exit_code_of(exc))


async def _approve(args: argparse.Namespace) -> int:
    import asyncio

    from hookd_client.approver import ApprovalOffer, AsyncApprover
    from hookd_client.errors import ConnectionLost

    from hookd.dashboard.who import login_name

    name = args.name or login_name()
    lines = _lines(asyncio.get_running_loop())
    async with AsyncApprover(args.socket, name=name, client="hookd-approve") as approver:
        info = approver.approving
        assert info is not None
        _say(f"approving as {name}: {info.pending} waiting; unanswered calls get {info.default} after {info.timeout:g} s\n")
        queue: list[ApprovalOffer] = []
        while True:
            if not queue:
                try:
                    item = await approver.next()
                except ConnectionLost as exc:
                    return fail(f"the daemon went away: {exc.message}", 3)
                if isinstance(item, ApprovalOffer):
                    queue.append(item)
                continue
            offer = queue.pop(0)
            if offer.offer not in approver.pending:
                continue  # decided while it waited its turn
            _show(offer)
            outcome = await _ask(approver, offer, lines, queue)
            if outcome is None:
                return 0  # end of input
            if outcome and args.once:
                return 0


async def _ask(approver: AsyncApprover, offer: ApprovalOffer, lines: asyncio.Queue[str | None], queue: list[ApprovalOffer]) -> bool | None:
    """Prompt until an answer is sent or the offer is decided elsewhere; None at end of input."""
    import asyncio

    from hookd_client import HookdError
    from hookd_client.approver import ApprovalClosed, ApprovalOffer

    while True:
        _say("allow or deny? [a/d] (a reason may follow) > ")
        line_task = asyncio.ensure_future(lines.get())
        while True:
            frame_task = asyncio.ensure_future(approver.next())
            done, _ = await asyncio.wait({line_task, frame_task}, return_when=asyncio.FIRST_COMPLETED)
            if frame_task in done:
                item = frame_task.result()
                if isinstance(item, ApprovalOffer):
                    queue.append(item)
                elif isinstance(item, ApprovalClosed) and item.approval.offer == offer.offer:
                    line_task.cancel()
                    a = item.approval
                    who = f"by {a.by.name}" if a.by is not None else "by its deadline"
                    _say(f"\napproval {offer.offer} was decided {who}: {a.decision}\n\n")
                    return False
                if line_task not in done:
                    continue
            else:
                frame_task.cancel()
            break
        line = line_task.result()
        if line is None:
            _say("\n")
            return None
        answer = _parse(line)
        if answer is None:
            _say("answer a (allow) or d (deny), optionally followed by a reason\n")
            continue
        decision, reason = answer
        try:
            await approver.answer(offer.offer, decision, reason)
        except HookdError as exc:
            _say(f"not taken: {exc.message}\n\n")
            return False
        _say(f"approval {offer.offer}: {decision}\n\n")
        return True


def _parse(line: str) -> tuple[str, str | None] | None:
    text = line.strip()
    word, _, rest = text.partition(" ")
    word = word.rstrip(":").lower()
    decision = {"a": "allow", "allow": "allow", "y": "allow", "d": "deny", "deny": "deny", "n": "deny"}.get(word)
    if decision is None:
        return None
    reason = rest.strip().lstrip(":").strip()
    return decision, reason or None


def _show(offer: ApprovalOffer) -> None:
    where = [f"session {offer.session}"] if offer.session else []
    if offer.project:
        where.append(f"project {offer.project}")
    out = [f"approval {offer.offer}: {offer.point}" + (f"  ({', '.join(where)})" if where else "")]
    if offer.asked_by is not None:
        hook = offer.asked_by
        out.append(f"  asked by {hook.name} ({hook.scope}, {hook.source}): {offer.reason or '(no reason given)'}")
    elif offer.reason:
        out.append(f"  reason: {offer.reason}")
    out.append(f"  payload: {summary(offer.payload)}")
    left = max(0.0, offer.expires - time.time())
    out.append(f"  decided by the default in {left:.0f} s if nobody answers")
    _say("\n".join(out) + "\n")


def summary(payload: dict[str, Any]) -> str:
    """The payload in one line: the tool and its arguments first when it names them."""
    parts = []
    tool = payload.get("toolName") or payload.get("tool_name")
    if isinstance(tool, str):
        parts.append(f"tool {tool}")
    args = payload.get("args", payload.get("tool_input"))
    rest = {k: v for k, v in payload.items() if k not in ("toolName", "tool_name", "args", "tool_input")}
    if args is not None:
        parts.append(f"args {json.dumps(args, ensure_ascii=False, default=str)}")
    if rest:
        parts.append(json.dumps(rest, ensure_ascii=False, default=str))
    text = "; ".join(parts) or "{}"
    return text if len(text) <= _SUMMARY else text[: _SUMMARY - 1] + "…"


def _say(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _lines(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[str | None]:
    """Lines typed at the terminal, read by a thread (a blocking read works for ttys, pipes and files)."""
    import asyncio

    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, name="hookd-approve-input", daemon=True).start()
    return queue
