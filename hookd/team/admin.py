"""The team administrator's side: make the stream and the bucket, publish and withdraw guards.

``python -m hookd.team init|put|withdraw|show`` with the same settings file a
daemon reads (``--settings``; by default the user's ``team.toml``). The account
these commands run as needs the JetStream rights to create and write; the
developers' accounts only need to publish to ``hookd.>`` and read the bucket.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from hookd.team import settings as team_settings
from hookd.team.exporter import stream_config
from hookd.team.managed import check

BUCKET_HISTORY = 16  # revisions of each key the bucket keeps, for audits of what was in force


async def _connect(s: team_settings.TeamSettings) -> Any:
    import nats

    return await nats.connect(**s.connect_options(), name="hookd-team-admin", connect_timeout=3, max_reconnect_attempts=2)


async def init(s: team_settings.TeamSettings) -> list[str]:
    """Create the stream and the bucket when missing; what was done, one line each."""
    from nats.js.api import KeyValueConfig
    from nats.js.errors import BucketNotFoundError, NotFoundError

    nc = await _connect(s)
    done = []
    try:
        js = nc.jetstream()
        try:
            await js.stream_info(s.stream)
            done.append(f"stream {s.stream}: exists")
        except NotFoundError:
            await js.add_stream(**stream_config(s.stream))
            done.append(f"stream {s.stream}: created (subjects hookd.>)")
        try:
            await js.key_value(s.bucket)
            done.append(f"bucket {s.bucket}: exists")
        except BucketNotFoundError:
            await js.create_key_value(KeyValueConfig(bucket=s.bucket, history=BUCKET_HISTORY))
            done.append(f"bucket {s.bucket}: created")
    finally:
        await nc.close()
    return done


async def put(s: team_settings.TeamSettings, key: str, text: str) -> int:
    """Publish one guards document under ``key`` (checked here first, as every daemon checks it); its revision."""
    _, problems = check(key, text.encode("utf-8"))
    if problems:
        raise team_settings.TeamConfigError("\n".join(problems))
    nc = await _connect(s)
    try:
        kv = await nc.jetstream().key_value(s.bucket)
        return int(await kv.put(key, text.encode("utf-8")))
    finally:
        await nc.close()


async def put_raw(s: team_settings.TeamSettings, key: str, value: bytes) -> int:
    """Publish a value unchecked (tests of what a daemon does with a bad one)."""
    nc = await _connect(s)
    try:
        kv = await nc.jetstream().key_value(s.bucket)
        return int(await kv.put(key, value))
    finally:
        await nc.close()


async def withdraw(s: team_settings.TeamSettings, key: str) -> None:
    nc = await _connect(s)
    try:
        kv = await nc.jetstream().key_value(s.bucket)
        await kv.delete(key)
    finally:
        await nc.close()


async def show(s: team_settings.TeamSettings) -> dict[str, tuple[int, str]]:
    from nats.js.errors import NoKeysError

    nc = await _connect(s)
    try:
        kv = await nc.jetstream().key_value(s.bucket)
        try:
            keys = await kv.keys()
        except NoKeysError:
            return {}
        out = {}
        for key in sorted(keys):
            entry = await kv.get(key)
            out[key] = (entry.revision or 0, (entry.value or b"").decode("utf-8", "replace"))
        return out
    finally:
        await nc.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hookd.team", description="Set up and manage a team's hookd stream and guards.")
    p.add_argument("--settings", metavar="FILE", help="team settings file (default: $XDG_CONFIG_HOME/hookd/team.toml)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("init", help="create the stream and the guards bucket when missing")
    put_p = sub.add_parser("put", help="publish a guards file (hooks.yaml format) under KEY (before.<name> or after.<name>)")
    put_p.add_argument("key")
    put_p.add_argument("file", help="the YAML file, or - for standard input")
    wd = sub.add_parser("withdraw", help="delete KEY from the bucket: its hooks stop applying everywhere")
    wd.add_argument("key")
    sub.add_parser("show", help="the guards in the bucket, with their revisions")
    args = p.parse_args(argv)
    try:
        s = team_settings.load(args.settings)
        if s is None:
            sys.stderr.write(f"hookd team: no settings file at {args.settings or team_settings.default_path()}\n")
            return 2
        if args.command == "init":
            for line in asyncio.run(init(s)):
                sys.stdout.write(line + "\n")
        elif args.command == "put":
            text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()  # noqa: SIM115
            sys.stdout.write(f"{args.key}: revision {asyncio.run(put(s, args.key, text))}\n")
        elif args.command == "withdraw":
            asyncio.run(withdraw(s, args.key))
            sys.stdout.write(f"{args.key}: withdrawn\n")
        else:
            for key, (rev, text) in asyncio.run(show(s)).items():
                sys.stdout.write(f"# {key} (revision {rev})\n{text.rstrip()}\n")
    except team_settings.TeamConfigError as exc:
        sys.stderr.write(f"hookd team: {exc}\n")
        return 1
    except Exception as exc:
        sys.stderr.write(f"hookd team: {type(exc).__name__}: {exc}\n")
        return 1
    return 0
