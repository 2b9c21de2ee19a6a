"""The plugin host's worker pipe on its own: real child processes, an in-process event loop."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap

import pytest

from hookd.plugins.worker import Worker, WorkerGone


def _worker(body: str, line_cap: int = 1 << 20) -> Worker:
    code = "import json, sys, os\n" + textwrap.dedent(body)
    return Worker([sys.executable, "-c", code], dict(os.environ), "/", "test", line_cap=line_cap)


def test_answers_are_matched_by_id_even_out_of_order():
    async def main() -> list[dict]:
        w = _worker(
            """
            first = json.loads(sys.stdin.readline())
            second = json.loads(sys.stdin.readline())
            for req in (second, first):
                print(json.dumps({"id": req["id"], "decision": {"reason": req["payload"]["n"]}}), flush=True)
            sys.stdin.read()
            """
        )
        await w.start()
        try:
            return list(await asyncio.gather(w.call({"payload": {"n": "one"}}), w.call({"payload": {"n": "two"}})))
        finally:
            await w.stop()

    a, b = asyncio.run(main())
    assert a["decision"]["reason"] == "one" and b["decision"]["reason"] == "two"


@pytest.mark.parametrize(
    ("body", "cap", "message"),
    [
        ("sys.stdin.readline(); os._exit(3)", 1 << 20, "exited with status 3"),
        ("sys.stdin.readline(); print('x' * 5000, flush=True); sys.stdin.read()", 1000, "over 1000 bytes"),
    ],
)
def test_a_worker_that_dies_or_floods_fails_the_call_at_once(body, cap, message):
    async def main() -> str:
        w = _worker(body, cap)
        await w.start()
        try:
            async with asyncio.timeout(30):  # hang guard
                await w.call({"payload": {}})
        except WorkerGone as exc:
            return str(exc)
        finally:
            await w.stop()
        return "answered"

    assert message in asyncio.run(main())


def test_garbage_lines_are_skipped_and_the_real_answer_still_arrives():
    async def main() -> dict:
        w = _worker(
            """
            req = json.loads(sys.stdin.readline())
            print("not json", flush=True)
            print(json.dumps({"no": "id"}), flush=True)
            print(json.dumps({"id": req["id"], "decision": None}), flush=True)
            sys.stdin.read()
            """
        )
        await w.start()
        try:
            return await w.call({"payload": {}})
        finally:
            await w.stop()

    assert asyncio.run(main()) == {"id": 1, "decision": None}
