"""docs/protocol.md against the code: the example frame, the point lists, the internal events."""

from __future__ import annotations

import re

from hookd_client import messages as m
from hookd_client.framing import Codec

from hookd.core import points

from .samples import ROOT

DOC = (ROOT / "docs" / "protocol.md").read_text()


def section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.find("\n#", start + len(title))
    return DOC[start : end if end > 0 else None]


def test_the_example_frame_is_what_the_codec_writes() -> None:
    text = section("### Example frame")
    dump = text[text.index("```") + 3 : text.rindex("```")]
    hex_bytes = "".join(re.findall(r"^((?:[0-9a-f]{2}\s+)+)", dump, re.M))
    documented = bytes.fromhex(hex_bytes.replace(" ", "").replace("\n", ""))
    written = Codec(m.AnyRequest).encode(m.Hello(1, 1, "demo", 4242))
    assert documented == written
    stated = re.search(r"(\d+) bytes, the 4-byte length then the (\d+)-byte body", text)
    assert stated is not None
    assert (int(stated.group(1)), int(stated.group(2))) == (len(written), len(written) - 4)


def names_in(sentence_start: str, sentence_end: str) -> set[str]:
    start = DOC.index(sentence_start)
    return set(re.findall(r"`([a-z][\w.]*)`", DOC[start : DOC.index(sentence_end, start)]))


def test_the_doc_lists_every_decision_and_observer_point() -> None:
    decision = names_in("The decision points are", "The observer points are")
    experimental = {p for p in points.decision_points() if p.startswith("experimental.")}
    assert decision | experimental == set(points.decision_points())
    assert names_in("The observer points are", "A hook point's payload") == set(points.observer_points())


def test_the_internal_points_table_is_the_catalog() -> None:
    table = section("### Internal points")
    rows = [line for line in table.splitlines() if line.startswith("| `hookd.")]
    documented = {name for row in rows for name in re.findall(r"`(hookd\.[\w.]+)`", row.split("|")[1])}
    assert documented == set(points.INTERNAL)
    for row in rows:
        cells = re.split(r"(?<!\\)\|", row)
        for name in re.findall(r"`(hookd\.[\w.]+)`", cells[1]):
            fields = {k.rstrip("?") for k in points.INTERNAL[name].payload}
            assert fields <= set(re.findall(r"`(\w+)`", cells[2])), f"{name}: the doc's payload misses fields of the catalog"
