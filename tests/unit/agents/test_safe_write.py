"""A settings file rewritten while its agent writes it too: the agent's edit is never lost, hookd's writers take
turns, and a crash leaves the old file or the new one."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from hookd.agents import safe_write


def add(key: str, value: object):  # type: ignore[no-untyped-def]
    def compute(current: bytes | None) -> bytes:
        doc = json.loads(current or b"{}")
        doc[key] = value
        return json.dumps(doc).encode()

    return compute


def test_an_edit_made_while_hookd_computes_is_kept(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": "a"}')
    seen: list[bytes | None] = []

    def compute(current: bytes | None) -> bytes:
        seen.append(current)
        if len(seen) == 1:
            # The agent writes its own change (Claude Code's /permissions) between hookd's read and its rename.
            settings.write_text('{"model": "a", "permissions": {"allow": ["Bash(ls)"]}}')
        return add("hooks", {"Stop": []})(current)

    safe_write.update(str(settings), compute)
    assert json.loads(settings.read_text()) == {"model": "a", "permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": []}}
    assert len(seen) == 2 and not list(tmp_path.glob(".settings.json.*"))  # computed again; no temporary file left


def test_a_file_that_never_stops_changing_is_left_alone(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text("{}")
    turn = [0]

    def compute(current: bytes | None) -> bytes:
        turn[0] += 1
        settings.write_text(json.dumps({"agent": turn[0]}))
        return b'{"hookd": true}'

    with pytest.raises(safe_write.Busy, match="kept changing"):
        safe_write.update(str(settings), compute)
    assert json.loads(settings.read_text()) == {"agent": safe_write.ATTEMPTS}


def test_remove_unchanged_mode_and_a_link_that_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text("{}")
    real.chmod(0o640)
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    assert safe_write.update(str(link), lambda current: safe_write.UNCHANGED) == b"{}"
    safe_write.update(str(link), add("a", 1))
    assert link.is_symlink() and json.loads(real.read_text()) == {"a": 1} and real.stat().st_mode & 0o777 == 0o640
    safe_write.update(str(link), add("b", 2), mode=0o600)
    assert real.stat().st_mode & 0o777 == 0o600
    safe_write.update(str(link), lambda current: safe_write.REMOVE)
    assert not real.exists() and link.is_symlink()


def _append_many(path: str, who: int, times: int) -> None:
    for i in range(times):
        safe_write.update(path, lambda current, i=i: (current or b"") + f"{who}:{i}\n".encode())


def test_hookd_writers_take_turns_and_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "settings.txt")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(path, who, 25)) for who in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    lines = Path(path).read_text().splitlines()
    assert sorted(lines) == sorted(f"{who}:{i}" for who in range(3) for i in range(25))


def test_private_files_and_directories(tmp_path: Path) -> None:
    target = tmp_path / "state" / "installs" / "r.json"
    safe_write.write_private(str(target), b"{}")
    assert target.stat().st_mode & 0o777 == 0o600 and target.parent.stat().st_mode & 0o777 == 0o700
    assert os.listdir(target.parent) == ["r.json"]
