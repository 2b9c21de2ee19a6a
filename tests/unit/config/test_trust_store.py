"""The trust record: content hashes, edits, untrust, HOOKD_TRUST_ALL, a corrupt record."""

from __future__ import annotations

import json

import pytest

from hookd.config import trust


@pytest.fixture
def project(tmp_path):
    f = tmp_path / "proj" / ".hookd" / "hooks.yaml"
    f.parent.mkdir(parents=True)
    f.write_text("hooks: []\n")
    return tmp_path / "proj"


def test_untrusted_until_trusted_then_untrusted_after_an_edit(tmp_path, project):
    store = trust.TrustStore(str(tmp_path / "state" / "trust.json"))
    f = str(project / ".hookd" / "hooks.yaml")
    v = store.verdict("project", f, trust.digest(f), str(project))
    assert not v.trusted and f"hookd trust {project}" in v.reason
    assert store.trust(trust.targets(str(project))) == {f: trust.digest(f)}
    assert store.verdict("project", f, trust.digest(f)).trusted
    (project / ".hookd" / "hooks.yaml").write_text("hooks: [] # edited\n")
    v = store.verdict("project", f, trust.digest(f))
    assert not v.trusted and "changed since it was trusted" in v.reason


def test_the_record_survives_a_new_store(tmp_path, project):
    path = str(tmp_path / "trust.json")
    f = str(project / ".hookd" / "hooks.yaml")
    trust.TrustStore(path).trust([f])
    again = trust.TrustStore(path)
    assert again.load() is None
    assert again.verdict("project", f, trust.digest(f)).trusted
    assert json.loads((tmp_path / "trust.json").read_text())["files"]


def test_untrust_a_directory(tmp_path, project):
    store = trust.TrustStore(str(tmp_path / "trust.json"))
    f = str(project / ".hookd" / "hooks.yaml")
    store.trust([f])
    assert store.untrust(str(project)) == [f]
    assert not store.verdict("project", f, trust.digest(f)).trusted
    assert store.untrust(str(project)) == []


def test_global_files_and_trust_all(tmp_path, project):
    f = str(project / ".hookd" / "hooks.yaml")
    assert trust.TrustStore(str(tmp_path / "t.json")).verdict("global", f, "x").trusted
    assert trust.TrustStore(str(tmp_path / "t.json"), trust_all=True).verdict("project", f, "x").trusted
    assert trust.trust_all_from_env({"HOOKD_TRUST_ALL": "1"})
    assert not trust.trust_all_from_env({"HOOKD_TRUST_ALL": "0"})


def test_a_corrupt_record_trusts_nothing(tmp_path, project):
    path = tmp_path / "trust.json"
    path.write_text("{not json")
    store = trust.TrustStore(str(path))
    assert "cannot read" in (store.load() or "")
    f = str(project / ".hookd" / "hooks.yaml")
    assert not store.verdict("project", f, trust.digest(f)).trusted


def test_targets(tmp_path, project):
    assert trust.targets(str(project)) == [str(project / ".hookd" / "hooks.yaml")]
    with pytest.raises(trust.NothingToTrust, match="has no project hook file"):
        trust.targets(str(tmp_path))
    with pytest.raises(trust.NothingToTrust, match="does not exist"):
        trust.targets(str(tmp_path / "nope"))
