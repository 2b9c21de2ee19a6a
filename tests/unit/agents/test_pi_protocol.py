"""hookd's pi bridge as data: where its extension goes, its options, pi's event table and the version it needs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hookd.agents import agent_version, registry
from hookd.agents.pi import install, protocol, version


def test_the_extension_directories_are_pi_s() -> None:
    env = {"HOME": "/home/u"}
    assert install.extension_dir("user", env) == Path("/home/u/.pi/agent/extensions")
    assert install.extension_dir("user", {**env, "PI_CODING_AGENT_DIR": "/opt/pi"}) == Path("/opt/pi/extensions")
    assert install.extension_dir("project", env, cwd="/work/p") == Path("/work/p/.pi/extensions")


def test_options() -> None:
    assert install.parse_options("") == install.Options(False, 10.0)
    assert install.parse_options("--fail-open --timeout 2.5") == install.Options(True, 2.5)
    assert install.parse_options("--fail-open --fail-closed") == install.Options(False, 10.0)
    for bad, why in (("--timeout 0", "over 0"), ("--timeout x", "takes seconds"), ("--loud", "unknown option")):
        with pytest.raises(install.InstallError, match=why):
            install.parse_options(bad)


def test_every_event_of_the_table_has_a_handler_and_every_handler_a_row() -> None:
    source = install.TEMPLATE.read_text()
    handled = set(re.findall(r'pi\.on\("([a-z_]+)"', source))
    for table in ("CANCELABLE", "TOLD"):
        block = source.split(f"const {table} = {{", 1)[1].split("\n  };", 1)[0]
        handled |= set(re.findall(r"^    ([a-z_]+):", block, re.M))
    assert handled == set(protocol.ROUTES)
    assert protocol.table()["tool_call"] == ["tool.approval.pre", True]


def test_the_version_is_read_where_pi_prints_it(tmp_path: Path) -> None:
    cli = tmp_path / "pi"
    cli.write_text("#!/bin/sh\necho 0.64.2 >&2\n")  # pi prints its version on stderr
    cli.chmod(0o755)
    old = version.detect(str(cli))
    least = registry.minimum_version("pi")
    assert old.version == (0, 64, 2) and old.older_than(least) and "pi 0.64.2" in old.describe()
    assert "is older than 0.65.0, which hookd's extension needs" in str(agent_version.problem(registry.agent("pi"), old))
    assert version.Found(str(cli), least).at_least(least)
    assert not version.Found(None, None, "no `pi` on PATH").at_least(least)
