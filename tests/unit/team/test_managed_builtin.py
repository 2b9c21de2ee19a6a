"""The organisation's guards may be hookd's own: a managed key's value with a built-in hook is taken
as a hook file's is (its packs and policy checked), and refused whole when its policy is wrong."""

from __future__ import annotations

from hookd.team.managed import check

VALUE = b"""\
hooks:
  - name: org-guards
    point: tool.approval.pre
    builtin: [git, secrets]
    on_error: deny
    enabled: true
    options:
      ask: [git.force-push]
      protected_branches: [main, production]
"""


def test_a_managed_value_may_hold_a_builtin_hook() -> None:
    specs, problems = check("before.guards", VALUE)
    assert problems == []
    [spec] = specs
    assert spec.builtin == ["git", "secrets"] and spec.type == "decision" and spec.command == ""
    assert spec.options == {"ask": ["git.force-push"], "protected_branches": ["main", "production"]}


def test_a_managed_value_with_an_unknown_rule_is_refused_naming_it() -> None:
    specs, problems = check("before.guards", VALUE.replace(b"git.force-push", b"git.force-pish"))
    assert specs == () and len(problems) == 1
    assert "options.ask[0]" in problems[0] and "git.force-pish" in problems[0] and "git.force-push" in problems[0]
