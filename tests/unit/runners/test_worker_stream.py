"""The worker's answer stream is adversarial input: any bytes, cut anywhere, never crash the daemon.

A real Worker and its per-process protocol object, fed bytes the way the event
loop feeds them (no process is started: the stream handling is what is tested).
"""

from __future__ import annotations

import asyncio
import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.runners.worker_process import WorkerRun
from hookd.runners.workers import Worker, WorkerLimits

CAP = 200

answer = st.integers(1, 20).map(lambda i: ("answer", i, json.dumps({"id": i, "decision": None}).encode()))
garbage = st.text(alphabet=st.characters(blacklist_characters="\n{", blacklist_categories=("Cs",)), min_size=1, max_size=50).filter(
    lambda t: t.strip()
)
bad = st.one_of(
    garbage.map(lambda t: ("bad", 0, t.encode())),
    st.just(("bad", 0, b'{"id": "one"}')),
    st.just(("bad", 0, b"[1, 2]")),
    st.just(("bad", 0, b"x" * (CAP + 1))),
)
lines = st.lists(st.one_of(answer, answer, bad, st.just(("blank", 0, b"   "))), max_size=15)


def feed(items: list[tuple[str, int, bytes]], cuts: list[int]) -> tuple[set[int], bool, str]:
    async def main() -> tuple[set[int], bool, str]:
        worker = Worker("stream", ["unused"], limits=WorkerLimits(line_cap=CAP))
        proc = WorkerRun(worker)
        futures = {i: asyncio.get_running_loop().create_future() for i in range(1, 21)}
        proc.pending.update(futures)
        stream = b"".join(line + b"\n" for _, _, line in items)
        points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
        for a, b in itertools.pairwise(points):
            proc.pipe_data_received(1, stream[a:b])
            if not proc.alive:
                break
        answered = {i for i, f in futures.items() if f.done()}
        return answered, proc.alive, proc.reason

    return asyncio.run(main())


@settings(max_examples=200, deadline=None)
@given(lines, st.lists(st.integers(0, 10_000), max_size=10))
def test_any_stream_answers_what_precedes_the_first_bad_line_then_kills(items: list[tuple[str, int, bytes]], cuts: list[int]) -> None:
    answered, alive, reason = feed(items, cuts)
    expected: set[int] = set()
    broken = False
    for kind, rid, _ in items:
        if kind == "bad":
            broken = True
            break
        if kind == "answer":
            expected.add(rid)
    assert answered == expected
    assert alive is not broken
    assert bool(reason) is broken
