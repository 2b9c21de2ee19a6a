"""The page's stats rows told apart (which hook each is, whether it is still loaded, what ``*`` stands
for), and the name answers from the page carry when USER is unset."""

from __future__ import annotations

import os
import pwd

import pytest

from hookd.dashboard import hookrows, who


def row(name: str, source: str, scope: str = "global") -> dict:  # type: ignore[type-arg]
    return {"hook": {"name": name, "scope": scope, "source": source}, "point": "tool.approval.pre", "life": {"calls": 1}}


def test_a_removed_hook_a_live_one_of_its_name_and_a_file_that_did_not_load() -> None:
    stats = {
        "hooks": [
            row("guard", "/c/hooks.d/old.yaml"),
            row("guard", "/c/hooks.d/new.yaml"),
            row("*", "/c/hooks.d/broken.yaml"),
            row("*", "/c/fixed.yaml"),
        ]
    }
    hooks = {
        "hooks": [{"name": "guard", "scope": "global", "source": "/c/hooks.d/new.yaml", "point": "tool.*"}],
        "rejected": [{"file": "/c/hooks.d/broken.yaml", "problems": ["broken.yaml:2:5: field 'type' is missing"]}],
    }
    old, new, broken, fixed = hookrows.annotate(stats, hooks)["hooks"]
    assert old["in_force"] is False and new["in_force"] is True
    assert broken["every_hook_of"] == "/c/hooks.d/broken.yaml" and broken["in_force"] is True
    assert broken["file_problems"] == ["broken.yaml:2:5: field 'type' is missing"]
    assert fixed["every_hook_of"] == "/c/fixed.yaml" and fixed["in_force"] is False and "file_problems" not in fixed


def test_rows_stay_as_they_were_when_the_daemon_does_not_say_what_is_in_force() -> None:
    stats = {"hooks": [row("guard", "/c/a.yaml"), row("*", "/c/b.yaml")]}
    guard, every = hookrows.annotate(stats, None)["hooks"]
    assert "in_force" not in guard and "in_force" not in every and every["every_hook_of"] == "/c/b.yaml"


def test_without_USER_the_login_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "ada")
    assert who.login_name() == "ada"
    monkeypatch.delenv("USER")
    monkeypatch.setenv("LOGNAME", "grace")
    assert who.login_name() == "grace"
    monkeypatch.delenv("LOGNAME")
    assert who.login_name() == pwd.getpwuid(os.getuid()).pw_name

    def unknown(uid: int) -> None:
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", unknown)
    monkeypatch.setattr(os, "getlogin", lambda: "from-the-terminal")
    assert who.login_name() == "from-the-terminal"

    def no_terminal() -> str:
        raise OSError("no controlling terminal")

    monkeypatch.setattr(os, "getlogin", no_terminal)
    assert who.login_name() == who.FALLBACK
