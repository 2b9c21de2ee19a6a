"""The hook file poller, driven one poll at a time on real files."""

from __future__ import annotations

import os

from hookd.config.watcher import FileWatcher


def make(tmp_path):
    seen: list[tuple[str, object]] = []
    w = FileWatcher(lambda path, tag: seen.append((path, tag)))
    return w, seen


def settle(w: FileWatcher, polls: int = 3) -> list[str]:
    changed = []
    for _ in range(polls):
        changed += w.poll()
    return changed


def test_unchanged_file_is_not_reported(tmp_path):
    f = tmp_path / "hooks.yaml"
    f.write_text("a")
    w, seen = make(tmp_path)
    w.watch(str(f), "tag")
    assert settle(w) == [] and seen == []


def test_an_edit_is_reported_once_after_it_settles(tmp_path):
    f = tmp_path / "hooks.yaml"
    f.write_text("a")
    w, seen = make(tmp_path)
    w.watch(str(f), "tag")
    f.write_text("bb")
    assert w.poll() == []  # first sight: wait one poll in case the file is half written
    assert w.poll() == [str(f)]
    assert settle(w) == []
    assert seen == [(str(f), "tag")]


def test_same_size_rewrite_within_one_clock_tick_is_seen(tmp_path):
    f = tmp_path / "hooks.yaml"
    f.write_text("aaaa")
    w, _seen = make(tmp_path)
    w.watch(str(f), "tag")
    st = os.stat(f)
    f.write_text("bbbb")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # as if within the same tick
    assert settle(w) == [str(f)]


def test_creation_deletion_and_missing_directories(tmp_path):
    f = tmp_path / ".hookd" / "hooks.yaml"
    w, _seen = make(tmp_path)
    w.watch(str(f), "tag")
    assert settle(w) == []
    f.parent.mkdir()
    f.write_text("x")
    assert settle(w) == [str(f)]
    f.unlink()
    assert settle(w) == [str(f)]


def test_replace_by_rename_is_seen(tmp_path):
    f = tmp_path / "hooks.yaml"
    f.write_text("one")
    w, _seen = make(tmp_path)
    w.watch(str(f), "tag")
    tmp = tmp_path / "new"
    tmp.write_text("two")
    os.replace(tmp, f)
    assert settle(w) == [str(f)]


def test_what_the_loader_read_is_not_reported_again(tmp_path):
    from hookd.config.watcher import content_hash, signature

    f = tmp_path / "hooks.yaml"
    f.write_text("one")
    w, _seen = make(tmp_path)
    w.watch(str(f), "tag")
    f.write_text("two!")
    w.loaded(str(f), signature(str(f)), content_hash(str(f)))  # e.g. a SIGHUP reload got there first
    assert settle(w) == []


def test_a_failing_callback_does_not_stop_the_watcher(tmp_path):
    f = tmp_path / "hooks.yaml"
    f.write_text("a")
    calls = []

    def boom(path, tag):
        calls.append(path)
        raise RuntimeError("bad")

    w = FileWatcher(boom)
    w.watch(str(f), None)
    f.write_text("bb")
    settle(w)
    f.write_text("ccc")
    settle(w)
    assert len(calls) == 2


def test_forgotten_files_are_not_polled(tmp_path):
    f = tmp_path / "hooks.yaml"
    w, _seen = make(tmp_path)
    w.watch(str(f), "tag")
    w.forget([str(f)])
    f.write_text("x")
    assert settle(w) == []
