"""`hookd tail --team`: the team's stream, read from JetStream with the local tail's filters.

Every daemon's events are in one stream; each line is prefixed with the host
and user it came from (``--json`` adds ``host``, ``user`` and ``daemon`` fields).
History: ``--since`` (a duration, or a stream sequence number) or the last
``-n`` events that match (10 by default), up to ``--until`` (the same syntax; then
nothing live), then, with ``--follow``, live. ``--decision`` keeps the decide events
with those decisions, as the local tail does.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import sys
import time
from typing import Any

import msgspec

from hookd.team import settings as team_settings

SCAN_BACK = 10_000  # stream messages looked at for the last -n matching ones when no --since is given


def run_team(args: argparse.Namespace) -> int:
    from hookd_client.stream import parse_since

    from hookd.cli.common import fail
    from hookd.cli.tail_output import Matcher, Printer, Until, parse_decisions, parse_until

    try:
        s = team_settings.load()
    except team_settings.TeamConfigError as exc:
        return fail(str(exc))
    if s is None:
        return fail(f"--team: no team settings at {team_settings.default_path()} (see docs/team.md)", 2)
    try:
        since_seq, since_age = parse_since(args.since)
    except ValueError as exc:
        return fail(f"--since: {exc}", 2)
    try:
        decisions = parse_decisions(args.decision)
        until = parse_until(args.until, args.since, time.time())
    except ValueError as exc:
        return fail(str(exc), 2)
    if args.lines is not None and args.lines < 0:
        return fail("-n/--lines must be 0 or more", 2)
    if until and args.follow:
        return fail("--until reads the past: it cannot go with --follow", 2)
    lines = args.lines if args.lines is not None else (None if args.since else 10)
    follow = False if until else sys.stdout.isatty() if args.follow is None else args.follow
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    # A seq of --until is the stream's sequence number here, as --since's is: checked on each message, not on the event.
    match = Matcher(args.point, args.session, [os.path.abspath(p) for p in args.project], decisions, Until(None, until.time))
    printer = Printer(args.json, colour, flush=follow)
    start_time = time.time() - since_age if since_age is not None else None
    try:
        return asyncio.run(_follow(s, match, printer, since_seq, start_time, lines, follow, args.json, until.seq))
    except KeyboardInterrupt:
        return 0
    except Exception as exc:
        return fail(f"--team: {type(exc).__name__}: {exc}")


async def _follow(
    s: team_settings.TeamSettings,
    match: Any,
    printer: Any,
    since_seq: int | None,
    start_time: float | None,
    lines: int | None,
    follow: bool,
    as_json: bool,
    until_seq: int | None = None,
) -> int:
    import nats
    from hookd_client.messages import Event
    from nats.js.api import ConsumerConfig, DeliverPolicy

    decode = msgspec.json.Decoder(Event).decode
    nc = await nats.connect(**s.connect_options(), name="hookd-tail-team", connect_timeout=3)
    try:
        js = nc.jetstream()
        info = await js.stream_info(s.stream)
        last = info.state.last_seq
        config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        if since_seq is not None:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=max(1, since_seq))
        elif start_time is not None:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start_time)) + f".{int(start_time % 1 * 1e6):06d}Z"
            config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_TIME, opt_start_time=stamp)
        else:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=max(1, last - SCAN_BACK + 1))
        queue: asyncio.Queue[Any] = asyncio.Queue()

        async def got(msg: Any) -> None:
            await queue.put(msg)

        sub = await js.subscribe("hookd.>", stream=s.stream, cb=got, ordered_consumer=True, config=config)
        history: collections.deque[Any] | list[Any] = collections.deque(maxlen=lines) if lines is not None else []
        live = last == 0 or info.state.messages == 0
        if not live:
            pending = await sub.consumer_info()
            live = pending.num_pending == 0 and sub.delivered == 0 and queue.empty()

        def show(msg: Any) -> Any:
            if until_seq is not None and msg.metadata.sequence.stream > until_seq:
                return None
            try:
                ev = decode(msg.data)
            except msgspec.DecodeError:
                return None
            if not match(ev):
                return None
            host = (msg.headers or {}).get("Hookd-Host", "?")
            user = (msg.headers or {}).get("Hookd-User", "?")
            if as_json:
                out = msgspec.to_builtins(ev)
                out.update(host=host, user=user, daemon=(msg.headers or {}).get("Hookd-Daemon", ""))
                return _Tagged(out, host, user, ev)
            return _Tagged(None, host, user, ev)

        emit = _Writer(printer, as_json)
        while not live:
            msg = await queue.get()
            item = show(msg)
            if item is not None:
                history.append(item)
            if msg.metadata.sequence.stream >= last or msg.metadata.num_pending == 0:
                live = True
            elif until_seq is not None and msg.metadata.sequence.stream >= until_seq:
                live = True  # the rest is after --until
        for item in history:
            emit(item)
        if not follow:
            await sub.unsubscribe()
            return 0
        while True:
            item = show(await queue.get())
            if item is not None:
                emit(item)
    finally:
        await nc.close()


class _Tagged:
    __slots__ = ("builtins", "event", "host", "user")

    def __init__(self, builtins: dict[str, Any] | None, host: str, user: str, event: Any) -> None:
        self.builtins = builtins
        self.host = host
        self.user = user
        self.event = event


class _Writer:
    def __init__(self, printer: Any, as_json: bool) -> None:
        self.printer = printer
        self.as_json = as_json

    def __call__(self, item: _Tagged) -> None:
        p = self.printer
        if self.as_json:
            text = p.termsafe.json_text(p.encode(item.builtins).decode())
        else:
            who = p.termsafe.clean(f"{item.host}/{item.user}")
            text = f"{who} {p.fmt.line(item.event, p.colour)}"
        p.out.write(text + "\n")
        if p.flush:
            p.out.flush()
