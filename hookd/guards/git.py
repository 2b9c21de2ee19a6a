"""The git pack: discarding uncommitted work, rewriting published history on protected branches,
deleting unmerged branches."""

from __future__ import annotations

import re

from hookd.guards.model import Hit
from hookd.guards.pack import TOO_DEEP, Env, Pack
from hookd.guards.shell import Cmd

CHECKOUT = "git.checkout-discard"
RESTORE = "git.restore-worktree"
RESET = "git.reset-hard"
CLEAN = "git.clean-force"
STASH = "git.stash-drop"
PUSH = "git.force-push"
DELETE_REMOTE = "git.delete-protected-branch"
BRANCH = "git.branch-force-delete"
REFLOG = "git.reflog-expire"

RULES = {
    CHECKOUT: "git checkout -- <paths>, checkout . or checkout -f / switch --discard-changes: uncommitted changes overwritten",
    RESTORE: "git restore of the working tree (without --staged): uncommitted changes overwritten",
    RESET: "git reset --hard (or --merge): uncommitted changes and commits after the target dropped",
    CLEAN: "git clean -f: untracked files deleted for good",
    STASH: "git stash drop or clear: stashed work deleted",
    PUSH: "git push --force (or +ref, --mirror) to a protected branch, or to a branch it cannot name",
    DELETE_REMOTE: "git push --delete (or :ref) of a protected branch",
    BRANCH: "git branch -D: a branch deleted even when its commits are merged nowhere",
    REFLOG: "git reflog expire / gc --prune=now: the last way back to lost commits removed",
    "git.too-deep": TOO_DEEP,
}

# The safer command for each rule, as docs/guards-rules.md lists it.
SAFER = {
    "git.checkout-discard": "git stash (or git diff > changes.patch) first; git checkout -p to pick hunks",
    "git.restore-worktree": "git restore --staged to unstage only; git stash to keep the changes",
    "git.reset-hard": "git stash first, or git reset --keep, which refuses to overwrite local changes",
    "git.clean-force": "git clean -n to see the list, then remove only what you mean",
    "git.stash-drop": "git stash apply first, or keep the stash",
    "git.force-push": "push a new branch and open a merge request, or git revert; on your branch, git push --force-with-lease origin it",
    "git.delete-protected-branch": "delete feature branches only",
    "git.branch-force-delete": "git branch -d, which refuses to drop unmerged work",
    "git.reflog-expire": "leave the reflog to expire on its own; git gc without --prune=now",
    "git.too-deep": "run the inner command directly, without the nesting",
}

# git's own options before the subcommand; the ones in the first set take a value.
_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--config-env"})
_PATHLIKE = re.compile(r"(^\.{1,2}(/|$))|(^/)|[*?]|(\.[A-Za-z][A-Za-z0-9]{0,7}$)")


def subcommand(argv: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """(git's subcommand, its arguments) past git's own options (``git -C dir -c k=v push``)."""
    i = 1
    n = len(argv)
    while i < n:
        a = argv[i]
        if a in _GLOBAL_WITH_VALUE:
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        return a, argv[i + 1 :]
    return "", ()


def _split(args: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    """(options, operands before --, operands after --)."""
    opts: list[str] = []
    ops: list[str] = []
    after: list[str] = []
    seen = False
    for a in args:
        if seen:
            after.append(a)
        elif a == "--":
            seen = True
        elif a.startswith("-") and len(a) > 1:
            opts.append(a)
        else:
            ops.append(a)
    return opts, ops, after


def _short(opts: list[str], letter: str) -> bool:
    return any(o.startswith("-") and not o.startswith("--") and letter in o[1:] for o in opts)


def _given(opts: list[str], letter: str, *names: str) -> bool:
    """Whether an option is given, as its short ``letter`` (alone or in a cluster such as ``-fd``) or by one of its ``names``."""
    return _short(opts, letter) or any(name in opts for name in names)


def _checkout(args: tuple[str, ...]) -> Hit | None:
    opts, ops, after = _split(args)
    if "-b" in opts or "-B" in opts or "--orphan" in opts or _short(opts, "b") or "-p" in opts or "--patch" in opts:
        return None  # a new branch, or hunks picked one by one
    if _given(opts, "f", "--force"):
        return Hit(
            CHECKOUT,
            "git checkout -f throws away every uncommitted change in the working tree. Commit or stash first (git stash), then check out",
        )
    if after or any(_PATHLIKE.search(o) for o in ops[1:]) or (ops and _PATHLIKE.search(ops[0]) and not ops[0].startswith("@")):
        paths = " ".join(after or ops) or "."
        return Hit(
            CHECKOUT,
            f"git checkout -- {paths} overwrites the uncommitted changes in {paths} with the committed version, and git keeps no copy. "
            "Save them first (git stash, or git diff > changes.patch), or use git checkout -p to pick hunks",
        )
    return None


def _switch(args: tuple[str, ...]) -> Hit | None:
    opts, _, _ = _split(args)
    if "--discard-changes" in opts or "-f" in opts or "--force" in opts:
        return Hit(CHECKOUT, "git switch --discard-changes throws away every uncommitted change. Commit or stash first (git stash)")
    return None


def _restore(args: tuple[str, ...]) -> Hit | None:
    opts, ops, after = _split(args)
    staged = _given(opts, "S", "--staged")
    worktree = _given(opts, "W", "--worktree")
    if staged and not worktree:
        return None
    paths = " ".join(after or ops) or "the given paths"
    return Hit(
        RESTORE,
        f"git restore {paths} overwrites the uncommitted changes in {paths} and git keeps no copy. "
        "To unstage only, use git restore --staged; to keep the changes, git stash first",
    )


def _reset(args: tuple[str, ...]) -> Hit | None:
    opts, ops, _ = _split(args)
    if "--hard" in opts or "--merge" in opts:
        target = ops[0] if ops else "HEAD"
        return Hit(
            RESET,
            f"git reset --hard {target} throws away every uncommitted change (and any commit after {target}). "
            "Stash first (git stash), or use git reset --keep, which refuses to overwrite local changes",
        )
    return None


def _clean(args: tuple[str, ...]) -> Hit | None:
    opts, _, _ = _split(args)
    if _given(opts, "n", "--dry-run"):
        return None
    if _given(opts, "f", "--force") or "-i" in opts:
        return Hit(
            CLEAN,
            "git clean -f deletes every untracked file (new work not yet added) and git keeps no copy. "
            "Run git clean -n to see the list first, and remove only what you mean",
        )
    return None


def _stash(args: tuple[str, ...]) -> Hit | None:
    if args and args[0] in ("drop", "clear"):
        what = "every stash" if args[0] == "clear" else (args[1] if len(args) > 1 else "the latest stash")
        return Hit(STASH, f"git stash {args[0]} deletes {what}, work kept nowhere else. Apply it first (git stash apply) or keep it")
    return None


def _branch(args: tuple[str, ...]) -> Hit | None:
    opts, ops, _ = _split(args)
    force_delete = "-D" in opts or (_given(opts, "d", "--delete") and _given(opts, "f", "--force"))
    if not force_delete and not any(o.startswith("-") and not o.startswith("--") and "D" in o for o in opts):
        return None
    names = " ".join(ops) or "the branch"
    return Hit(
        BRANCH,
        f"git branch -D {names} deletes the branch even if its commits are merged nowhere. "
        "Use git branch -d, which refuses to drop unmerged work",
    )


def _branch_of(ref: str) -> str:
    dst = ref.split(":", 1)[1] if ":" in ref else ref
    return dst.removeprefix("refs/heads/")


def _push(args: tuple[str, ...], env: Env) -> Hit | None:
    opts, ops, _ = _split(args)
    protected = env.policy.protected_branches
    if "--dry-run" in opts or "-n" in opts:
        return None
    lease = any(o.startswith("--force-with-lease") or o == "--force-if-includes" for o in opts)
    force = _given(opts, "f", "--force", "--mirror")
    refs = ops[1:]
    deleting = _given(opts, "d", "--delete")
    for ref in refs:
        if deleting or (ref.startswith(":") and len(ref) > 1):
            name = ref.lstrip(":").removeprefix("refs/heads/")
            if name in protected:
                return Hit(
                    DELETE_REMOTE,
                    f"git push deleting {name} removes a protected branch from the remote for everyone. Delete a feature branch instead",
                )
    if "--mirror" in opts:
        return Hit(
            PUSH,
            "git push --mirror overwrites and deletes every branch on the remote to match this clone. Push the branches you mean, by name",
        )
    plus = [r for r in refs if r.startswith("+")]
    if not force and not plus and not (lease and env.policy.force_with_lease == "deny"):
        return None
    if lease and not force and not plus and env.policy.force_with_lease == "allow":
        return None
    targets = [_branch_of(r.lstrip("+")) for r in (plus if plus and not force and not lease else refs)]
    how = "git push --force-with-lease" if lease and not force and not plus else "git push --force"
    if "--all" in opts:
        return Hit(PUSH, f"{how} --all rewrites every branch on the remote, protected ones included. Push one feature branch by name")
    if not targets or any(t in ("HEAD", "@", "") for t in targets):
        return Hit(
            PUSH,
            f"{how} without a branch named rewrites whatever branch is checked out, which may be a protected one "
            f"({', '.join(protected)}). Name the branch: git push --force-with-lease origin my-feature",
        )
    hit = [t for t in targets if t in protected]
    if hit:
        return Hit(
            PUSH,
            f"{how} to {hit[0]} rewrites published history on a protected branch; everyone who pulled it loses commits. "
            "Push a new branch and open a merge request, or revert the commit instead",
        )
    return None


def _reflog(sub: str, args: tuple[str, ...]) -> Hit | None:
    if sub == "reflog" and args[:1] == ("expire",) and any(a.startswith("--expire=now") or a == "--expire-unreachable=now" for a in args):
        return Hit(
            REFLOG,
            "git reflog expire --expire=now removes the record git uses to bring back lost commits. Leave the reflog to expire on its own",
        )
    if sub == "gc" and any(a in ("--prune=now", "--prune=all") for a in args):
        return Hit(
            REFLOG,
            "git gc --prune=now deletes unreachable commits at once, the last copy of work lost by a reset. Run git gc without --prune=now",
        )
    return None


def git(cmd: Cmd, env: Env) -> Hit | None:
    sub, args = subcommand(cmd.argv)
    if sub == "checkout":
        return _checkout(args)
    if sub == "switch":
        return _switch(args)
    if sub == "restore":
        return _restore(args)
    if sub == "reset":
        return _reset(args)
    if sub == "clean":
        return _clean(args)
    if sub == "stash":
        return _stash(args)
    if sub == "branch":
        return _branch(args)
    if sub == "push":
        return _push(args, env)
    if sub in ("reflog", "gc"):
        return _reflog(sub, args)
    return None


PACK = Pack(
    "git",
    RULES,
    {"git": (git,)},
    safer=SAFER,
)
