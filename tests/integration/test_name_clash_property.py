"""Property: whatever a user does to the hook files of a scope, a restart leaves the same guards in force.

Hypothesis draws a sequence of edits of four global hook files (hooks.yaml and three drop-ins) that
share a pool of hook names: write a file with some names, break it (invalid YAML), delete it. A real
daemon loads each edit as it comes; then it is restarted, and what is in force (each hook and the
file it comes from, each refused file and why) must be what it was, and `hookd check` must refuse
the files the daemon refuses, in the same words.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ..conftest import DaemonProcess, Env, make_env
from .test_name_clash_restart import _check, _config_events, _file, _in_force, _write_and_wait
from .test_user_config import wait_until

NAMES = ["n0", "n1", "n2", "n3"]
FILES = ["hooks.yaml", "hooks.d/a.yaml", "hooks.d/b.yaml", "hooks.d/c.yaml"]

edit = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(FILES), st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True)),
    st.tuples(st.just("break"), st.sampled_from(FILES), st.just([])),
    st.tuples(st.just("delete"), st.sampled_from(FILES), st.just([])),
)
_examples = itertools.count()


def _apply(env: Env, root: Path, step: int, kind: str, name: str, names: list[str]) -> None:
    path = root / name
    if kind == "delete":
        if not path.exists():
            return
        before = _config_events(env, path)
        path.unlink()
        wait_until(lambda: _config_events(env, path) > before, timeout=30)
    elif kind == "break":
        _write_and_wait(env, path, f"hooks:\n  - name: broken{step}\n     point: [\n")
    else:
        _write_and_wait(env, path, _file(names, version=step))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=st.lists(edit, min_size=2, max_size=8))
# A drop-in that reuses a name of one created before it but loads before it, and a file whose kept
# version must stand in at the restart beside the file that kept its name.
@example(edits=[("write", "hooks.d/b.yaml", ["n0", "n1"]), ("write", "hooks.d/a.yaml", ["n0", "n2"])])
@example(edits=[("write", "hooks.d/c.yaml", ["n0", "n3"]), ("write", "hooks.yaml", ["n0", "n2"]), ("break", "hooks.d/c.yaml", [])])
def test_any_sequence_of_edits_survives_a_restart(tmp_path, edits):
    env = make_env(tmp_path / f"example-{next(_examples)}")
    root = env.config / "hookd"
    (root / "hooks.d").mkdir(parents=True)
    daemon = DaemonProcess(env).start()
    try:
        for step, (kind, name, names) in enumerate(edits):
            _apply(env, root, step, kind, name, names)
        before = _in_force(env)
        hooks = [n for n, _ in before[0]]
        assert len(hooks) == len(set(hooks)), before
        assert _check(env) == before[1]
        daemon.stop()
        daemon = DaemonProcess(env).start()
        assert _in_force(env) == before
        assert _check(env) == before[1]
    finally:
        daemon.kill()
