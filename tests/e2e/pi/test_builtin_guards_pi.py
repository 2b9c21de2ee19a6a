"""hookd's built-in guards through pi's extension: pi's own shell tool call, handed to the installed extension as
pi hands it (pi's loader, its tool_call handler), reaches one `builtin: default` hook and comes back blocked with
the rule that fired named; the same tool with a harmless command goes through. The other agents' calls are in
tests/integration/test_builtin_agents.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Env
from tests.e2e.pi.conftest import install_pi
from tests.e2e.pi.test_extension_outcomes import HERE, PI_INDEX, drive, tool_call

pytestmark = [pytest.mark.timeout(600)]

GUARDS = """\
hooks:
  - name: guards
    point: tool.approval.pre
    builtin: default
    on_error: deny
    enabled: true
"""


@pytest.fixture
def extension(env: Env, daemon_factory, pi_install: Path) -> Path:  # type: ignore[no-untyped-def]
    if not PI_INDEX.exists():
        pytest.skip(f"SKIPPED LOUDLY: {PI_INDEX} is missing: run `make e2e-deps` (npm ci in tests/e2e/pi)")
    env.write_global_hooks(GUARDS)
    daemon_factory()
    env.env["PATH"] = f"{HERE / 'node_modules' / '.bin'}{os.pathsep}{env.env['PATH']}"
    return install_pi(env, pi_install)  # what `hookd bridge install pi` writes (conftest.py)


def test_pi_s_bash_call_is_blocked_by_rule_and_a_harmless_one_goes_through(env: Env, extension: Path) -> None:
    dangerous, harmless = drive(
        env, extension, [tool_call({"command": "git reset --hard HEAD~2"}), tool_call({"command": "git status --short && ls -la"})]
    )
    assert dangerous["result"]["block"] is True and "git.reset-hard: " in dangerous["result"]["reason"], dangerous
    assert harmless["result"] is None and harmless["thrown"] is None, harmless
