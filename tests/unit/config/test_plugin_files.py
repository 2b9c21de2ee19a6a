"""Which files of a plugin directory count, the verified copy the host runs from, and trust of exactly those bytes."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd.config import plugin_dirs as discovery
from hookd.config.plugin_trust import judging, project_plugins_trusted
from hookd.config.trust import TrustStore
from hookd.core import intake
from hookd.plugins import snapshot, venv


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_every_importable_file_counts_at_any_depth(tmp_path):
    d = tmp_path / "plugins"
    write(d / "a.py", "import pkg.sub.mod\n")
    write(d / "pkg" / "__init__.py")
    write(d / "pkg" / "sub" / "mod.py", "X = 1\n")
    write(d / "requirements.txt", "six\n")
    write(d / "notes.md", "not code")
    write(d / "__pycache__" / "a.cpython-311.pyc")
    write(d / "pkg" / "requirements.txt", "only the top one counts\n")
    assert [str(p.relative_to(d)) for p in discovery.relevant_files(str(d))] == [
        "a.py",
        "pkg/__init__.py",
        "pkg/sub/mod.py",
        "requirements.txt",
    ]
    before = discovery.fingerprint(str(d))
    write(d / "pkg" / "sub" / "mod.py", "X = 22\n")
    assert discovery.fingerprint(str(d)) != before


def test_a_fifo_is_left_out_and_never_blocks(tmp_path):
    d = tmp_path / "plugins"
    write(d / "ok.py", "")
    os.mkfifo(d / "trap.py")
    found = discovery.scan(str(d))
    assert list(found.files) == ["ok.py"] and found.unfit == ["trap.py: not a regular file"]
    assert list(snapshot.take(str(d)).files) == ["ok.py"]


names = st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b".."))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(names, min_size=1, max_size=6, unique=True))
def test_hostile_file_names_are_reported_fit_for_the_wire_never_raised(tmp_path, raw_names):
    d = tmp_path / os.urandom(4).hex()
    d.mkdir()
    for raw in raw_names:
        with open(os.fsencode(d) + b"/" + raw + b".py", "wb") as f:
            f.write(b"X = 1\n")
    found = discovery.scan(str(d))
    for rel in found.files:
        assert intake.fits(rel)
    for message in found.unfit:
        assert intake.fits(message)
    assert len(found.files) + len(found.unfit) == len(raw_names)
    snap = snapshot.take(str(d))
    assert set(snap.files) == set(found.files)


def test_the_copy_holds_exactly_the_bytes_that_were_hashed(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    d = tmp_path / "plugins"
    write(d / "p.py", "V = 'trusted'\n")
    write(d / "pkg" / "__init__.py", "")
    snap = snapshot.take(str(d))
    # The file changes after it was read: the copy still holds what was read (and hashed).
    write(d / "p.py", "V = 'edited later'\n")
    copy = snapshot.materialize(snap, env)
    try:
        assert Path(copy.files, "p.py").read_text() == "V = 'trusted'\n"
        assert hashlib.sha256(Path(copy.files, "p.py").read_bytes()).hexdigest() == snap.digests["p.py"]
        assert sorted(os.listdir(copy.files)) == ["p.py", "pkg"] and os.listdir(copy.cwd) == []
        assert os.stat(copy.root).st_mode & 0o077 == 0
    finally:
        copy.remove()
    assert not os.path.exists(copy.root)


def test_the_static_scan_names_the_events_written_as_dict_keys(tmp_path):
    d = tmp_path / "plugins"
    write(d / "g.py", "def G(ctx):\n    return {'tool.execute.before': f, \"permission.ask\": g}\n")
    write(d / "broken.py", "def (:\n")
    assert {"tool.execute.before", "permission.ask"} <= snapshot.declared_events(snapshot.take(str(d)))


def test_trust_judges_the_bytes_held_not_the_disk(tmp_path):
    project = tmp_path / "repo"
    d = project / ".hookd" / "plugins"
    source = write(d / "p.py", "V = 1\n")
    store = TrustStore(str(tmp_path / "trust.json"))
    store.trust([str(source)])
    held = snapshot.take(str(d)).paths()
    source.write_text("V = 'evil'\n")
    assert not project_plugins_trusted(store, str(d)).trusted
    with judging(held):
        assert project_plugins_trusted(store, str(d)).trusted
    with judging(snapshot.take(str(d)).paths()):
        assert not project_plugins_trusted(store, str(d)).trusted


def test_a_failed_install_is_remembered_per_requirements_hash(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    d = tmp_path / "plugins"
    req = write(d / "requirements.txt", "broken ( requirement\n")
    sha = hashlib.sha256(req.read_bytes()).hexdigest()
    env_dir = venv.venv_dir(str(d), env)
    venv._remember(env_dir, sha, "pip install failed with status 1: no")
    assert venv.remembered_failure(env_dir, "another hash") is None
    with pytest.raises(venv.InstallFailed, match="remembered"):
        asyncio.run(venv.ensure(str(d), str(req), sha, env))
    assert not os.path.exists(env_dir)  # nothing was tried
