"""The global hook files the docs have a reader write can all live side by side.

A reader who follows README.md and docs/*.md in order ends up with every global hook file they
show (~/.config/hookd/hooks.yaml and the hooks.d/ drop-ins). Hook names are unique among a scope's
files, and a file that reuses a name another file holds is refused whole, so no two of those files
may define the same name.
"""

from __future__ import annotations

import re

import yaml

from .samples import PAGES, samples

GLOBAL = "~/.config/hookd/"
_HEREDOC = re.compile(r"cat > (~/\.config/hookd/\S+\.yaml) <<'(\w+)'\n(.*?)\n\2\n", re.S)


def _global_files() -> dict[str, list[tuple[str, str]]]:
    """Each global hook file a page writes -> (where, its text) for every sample that writes it."""
    files: dict[str, list[tuple[str, str]]] = {}
    for page in PAGES:
        for sample in samples(page):
            if sample.mark == "file" and sample.arg.startswith(GLOBAL) and sample.lang == "yaml":
                files.setdefault(sample.arg, []).append((sample.where, sample.text))
            elif sample.lang == "sh" and sample.mark != "not-run":
                for match in _HEREDOC.finditer(sample.text):
                    files.setdefault(match.group(1), []).append((sample.where, match.group(3) + "\n"))
    return files


def test_the_global_files_the_docs_write_define_distinct_hook_names():
    files = _global_files()
    assert "~/.config/hookd/hooks.yaml" in files and any("hooks.d/" in f for f in files), sorted(files)
    owner: dict[str, str] = {}
    clashes = []
    for path, versions in sorted(files.items()):
        for where, text in versions:
            for hook in (yaml.safe_load(text) or {}).get("hooks") or []:
                name = hook["name"]
                if owner.setdefault(name, path) != path:
                    clashes.append(f"{where}: hook {name!r} of {path} is also defined in {owner[name]}")
    assert not clashes, "\n".join(clashes)
