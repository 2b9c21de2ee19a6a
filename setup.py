"""The build steps pyproject.toml cannot state: the documentation and the manual page, made when hookd is built.

- docs/*.md and README.md are copied into the package (hookd/docs/), so that `hookd help PAGE` shows
  them from any install, pipx's included, not only from a checkout.
- hookd.1 is generated from the command line's parser (hookd/cli/manpage.py) and installed as
  share/man/man1/hookd.1, where man finds it beside the install's bin/ (pipx links it into
  ~/.local/share/man). It is generated, never written by hand, so it cannot drift from the parser.

Everything else (metadata, dependencies, packages) is in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# Relative to this directory, as setuptools wants data_files; build/ is setuptools' own scratch directory.
MAN_PAGE = os.path.join("build", "man", "hookd.1")


class BuildPy(build_py):
    """build_py, then the pages into the package and the manual page beside the build."""

    def run(self) -> None:
        super().run()
        pages = sorted((ROOT / "docs").glob("*.md"))
        if not pages:
            raise SystemExit(f"hookd's build needs docs/*.md beside setup.py ({ROOT}): `hookd help` ships them")
        if not getattr(self, "editable_mode", False):  # an editable install reads the checkout's docs/ itself
            target = Path(self.build_lib) / "hookd" / "docs"
            target.mkdir(parents=True, exist_ok=True)
            for page in [*pages, ROOT / "README.md"]:
                shutil.copyfile(page, target / page.name)
        out = ROOT / MAN_PAGE
        out.parent.mkdir(parents=True, exist_ok=True)
        # The parser of the source being built, in a process of its own: this build's Python, with the build
        # requirements of pyproject.toml (the parser's modules import msgspec and PyYAML), which an isolated build
        # makes importable through PYTHONPATH, so the source goes in front of it, not in its place. No bytecode is
        # written into the source.
        path = [str(ROOT), str(ROOT / "client"), *filter(None, [os.environ.get("PYTHONPATH")])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "PYTHONDONTWRITEBYTECODE": "1"}
        subprocess.run([sys.executable, "-m", "hookd.cli.manpage", str(out)], cwd=ROOT, env=env, check=True)


setup(cmdclass={"build_py": BuildPy}, data_files=[("share/man/man1", [MAN_PAGE])])
