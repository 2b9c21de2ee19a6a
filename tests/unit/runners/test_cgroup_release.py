"""A run's cgroup that is still populated when its run ends (processes just killed leave it a
moment after ``cgroup.kill``) is removed once it empties, without waiting for another hook to run.
A directory with a file in it stands in for the populated cgroup (``rmdir`` refuses both)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hookd.runners.cgroups import RunGroups


def test_a_run_cgroup_left_populated_is_removed_once_it_empties(tmp_path: Path) -> None:
    run = tmp_path / "run-1"
    run.mkdir()
    (run / "still-here").write_text("")

    async def main() -> bool:
        groups = RunGroups("test")
        groups._runs["hook/1"] = str(run)
        groups.release("hook/1")  # populated: kept for later
        assert run.exists()
        await asyncio.sleep(0.2)  # tried again meanwhile (and again later, less often), still populated
        assert run.exists()
        (run / "still-here").unlink()  # its last process left
        for _ in range(1000):  # no other hook runs: the retries alone remove it
            if not run.exists():
                break
            await asyncio.sleep(0.01)
        gone = not run.exists()
        groups.close()
        return gone

    assert asyncio.run(asyncio.wait_for(main(), 30))
