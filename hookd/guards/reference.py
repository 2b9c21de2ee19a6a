"""docs/guards-rules.md, written from the packs: ``python -m hookd.guards.reference > docs/guards-rules.md``."""

from __future__ import annotations

from hookd.guards.catalogue import PACK_TABLE

DOC_HEAD = """# Guard packs: every rule

hookd ships five packs of guard rules (`hookd/guards/`). Each rule has a name, `<pack>.<rule>`,
that a policy can allow or turn into an ask; when one fires, its reason tells what the call would
destroy and the safer command to run instead. The packs read a shell command with a real parser
(tree-sitter's bash grammar), so a dangerous string that is only data (an echo, a grep pattern, a
commit message) does not fire, and one hidden behind sudo, env, xargs, `bash -c`, `eval`, `$(...)`,
a here-doc or an interpreter one-liner (`python -c`, `node -e`, `perl -e`, `ruby -e`) does.

A rule's options, in a builtin hook's `options`: `allow` and `ask` (rule names, or `<pack>.*`),
`protected_branches` (default `main`, `master`), `protected_paths` (`~`, `$HOME` and
project-relative paths), and `force_with_lease` (`allow`, the default, or `deny`).

This page is generated from the packs (`python -m hookd.guards.reference > docs/guards-rules.md`);
tests/docs/test_guards_rules.py holds it to them.
"""

TITLES = {
    "files": "files: deletes and truncation",
    "git": "git: uncommitted work and published history",
    "infra": "infra: databases and infrastructure",
    "secrets": "secrets: keys, .env files, credentials and tokens",
    "publish": "publish: publishing and the system",
}


def markdown() -> str:
    """docs/guards-rules.md: every pack's rules, what each catches, and the safer command."""
    out = [DOC_HEAD]
    for name, pack in PACK_TABLE.items():
        out.append(f"## {TITLES[name]}\n")
        out.append("| rule | what it catches | the safer command |")
        out.append("|---|---|---|")
        for rule, summary in pack.rules.items():
            out.append(f"| `{rule}` | {_cell(summary)} | {_cell(pack.safer.get(rule, ''))} |")
        out.append("")
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


if __name__ == "__main__":
    print(markdown(), end="")
