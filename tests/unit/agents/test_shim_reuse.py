"""`hookd bridge install` compiles the shim once: a later install (again, or for another agent) reuses the
binary when it was built from the same source, deny header and compiler line and is byte for byte what was
built; anything else changed builds it anew. Real compiles, counted through a compiler wrapper."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hookd.agents import shim


@pytest.fixture
def counted_cc(tmp_path: Path) -> tuple[list[str], Path]:
    real = shim.compiler()
    if real is None:
        pytest.skip("no C compiler: the shim is not built here")
    log = tmp_path / "cc.log"
    wrapper = tmp_path / "cc"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {" ".join(real)} "$@"\n')
    wrapper.chmod(0o755)
    return [str(wrapper)], log


def compiles(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_second_build_reuses_the_binary_and_a_changed_one_is_built_again(tmp_path: Path, counted_cc, monkeypatch) -> None:
    cc, log = counted_cc
    where = tmp_path / "data"
    first = shim.build(where, cc)
    assert first.path is not None, first.why
    built = compiles(log)
    assert built >= 1
    binary = Path(first.path).read_bytes()

    again = shim.build(where, cc)
    assert again.path == first.path and compiles(log) == built  # no compile: the same inputs, the same bytes

    with open(first.path, "ab") as f:  # the binary changed behind hookd's back
        f.write(b"\0")
    assert shim.build(where, cc).path == first.path and compiles(log) > built
    assert Path(first.path).read_bytes() == binary
    built = compiles(log)

    real_header = shim.denies_header
    monkeypatch.setattr(shim, "denies_header", lambda: real_header() + "\n/* another deny */\n")
    assert shim.build(where, cc).path == first.path and compiles(log) > built  # new denies: a new binary
    built = compiles(log)

    os.unlink(where / shim.STAMP)  # no record of what it was built from
    assert shim.build(where, cc).path == first.path and compiles(log) > built
