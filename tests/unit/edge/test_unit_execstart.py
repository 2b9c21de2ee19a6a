"""Reading ExecStart= back from a unit, as systemd reads it."""

from __future__ import annotations

from hookd.edge import units


def test_exec_start_of_a_rendered_unit_is_the_command_that_was_rendered() -> None:
    for command in (["/opt/hookd/bin/hookd"], ["/home/me/my venv/bin/python", "-m", "hookd"], ["/x/100%/hookd"]):
        text = units.render("hookd.service", command, ["--journal", "/tmp/$HOME/j"])
        assert units.exec_start([text]) == [*command, "serve", "--journal", "/tmp/$HOME/j"]


def test_drop_ins_override_and_an_empty_assignment_resets() -> None:
    base = "[Service]\nExecStart=/usr/bin/hookd serve\n"
    assert units.exec_start([base, "[Service]\nExecStart=\nExecStart=-/opt/h/hookd serve\n"]) == ["/opt/h/hookd", "serve"]
    assert units.exec_start([base, "[Service]\nExecStart=\n"]) is None
    assert units.exec_start(["[Unit]\nExecStart=/not/service\n"]) is None
