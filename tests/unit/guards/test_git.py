"""The git pack: uncommitted work, stashes, branches and protected history."""

from __future__ import annotations

import pytest

from hookd.guards.policy import Policy

from .guard import rule, shell


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git checkout -- .", "git.checkout-discard"),
        ("git checkout .", "git.checkout-discard"),
        ("git checkout HEAD~1 -- src/main.py", "git.checkout-discard"),
        ("git checkout src/app.py", "git.checkout-discard"),
        ("git checkout -f", "git.checkout-discard"),
        ("git switch --discard-changes main", "git.checkout-discard"),
        ("git restore .", "git.restore-worktree"),
        ("git restore --staged --worktree .", "git.restore-worktree"),
        ("git reset --hard", "git.reset-hard"),
        ("git -C ../other -c core.pager=cat reset --hard HEAD~1", "git.reset-hard"),
        ("git reset --merge", "git.reset-hard"),
        ("git clean -fdx", "git.clean-force"),
        ("git clean -d -f", "git.clean-force"),
        ("git stash drop", "git.stash-drop"),
        ("git stash clear", "git.stash-drop"),
        ("git push --force", "git.force-push"),
        ("git push -f origin main", "git.force-push"),
        ("git push origin main --force", "git.force-push"),
        ("git push origin +main", "git.force-push"),
        ("git push -f origin HEAD:master", "git.force-push"),
        ("git push -uf origin main", "git.force-push"),
        ("git push --mirror", "git.force-push"),
        ("git push origin --delete main", "git.delete-protected-branch"),
        ("git push origin :master", "git.delete-protected-branch"),
        ("git branch -D feature", "git.branch-force-delete"),
        ("git branch --delete --force wip", "git.branch-force-delete"),
        ("git branch -df wip", "git.branch-force-delete"),
        ("git reflog expire --expire=now --all", "git.reflog-expire"),
        ("git gc --prune=now", "git.reflog-expire"),
        ("/usr/bin/git reset --hard", "git.reset-hard"),
        ("sudo git clean -f", "git.clean-force"),
        ("bash -c 'git stash clear'", "git.stash-drop"),
        ("git reset \\\n  --hard", "git.reset-hard"),
    ],
)
def test_discarding_work_fires_its_rule(command: str, expected: str) -> None:
    assert rule(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "git checkout main",
        "git checkout -b feature/x",
        "git checkout feature/payments",
        "git checkout v1.2.0",
        "git checkout -p src/app.py",
        "git switch -c topic",
        "git restore --staged src/app.py",
        "git reset --soft HEAD~1",
        "git reset --keep HEAD~1",
        "git reset HEAD src/app.py",
        "git clean -n",
        "git clean -ndx",
        "git stash pop",
        "git push origin main",
        "git push -f origin feature/login",
        "git push --force-with-lease origin main",
        "git push origin +feature/x",
        "git push origin --delete feature/old",
        "git push --dry-run --force origin main",
        "git branch -d merged",
        "git gc",
        'git commit -m "never git reset --hard"',
        'echo "git push --force origin main" >> runbook.md',
    ],
)
def test_keeping_work_passes(command: str) -> None:
    assert shell(command) is None


def test_protected_branches_come_from_the_policy() -> None:
    policy = Policy(protected_branches=("release",))
    assert rule("git push -f origin release", policy=policy) == "git.force-push"
    assert rule("git push -f origin main", policy=policy) is None


def test_force_with_lease_is_a_policy_option() -> None:
    strict = Policy(force_with_lease="deny")
    assert rule("git push --force-with-lease origin main", policy=strict) == "git.force-push"
    assert rule("git push --force-with-lease origin feature", policy=strict) is None
    assert rule("git push --force-with-lease origin main") is None


def test_a_force_push_that_names_no_branch_fails_safe() -> None:
    found = shell("git push --force")
    assert found is not None and "without a branch named" in found.reason
