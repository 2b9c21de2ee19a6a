"""TypeScript samples in the docs compile against the TypeScript client's own types.

The blocks of one page are one program (later blocks use what earlier ones made), so they are
checked together, with tsc in strict mode, importing the client as a user would ("hookd-client").
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..integration.test_typescript_client import build_typescript_client
from .samples import PAGES, samples

TS_PAGES = [p for p in PAGES if any(s.lang == "ts" for s in samples(p))]


@pytest.mark.parametrize("page", TS_PAGES, ids=[p.name for p in TS_PAGES])
def test_typescript_samples_type_check(page: Path, tmp_path: Path) -> None:
    package = build_typescript_client()
    blocks = [s for s in samples(page) if s.lang == "ts"]
    program = "\n".join(f"// {s.where}\n{s.text}" for s in blocks) + "\nexport {};\n"
    (tmp_path / "sample.ts").write_text(program)
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "hookd-client").symlink_to(package)
    (tmp_path / "node_modules" / "@types").symlink_to(package / "node_modules" / "@types")
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    tsc = package / "node_modules" / ".bin" / "tsc"
    options = ["--noEmit", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext"]
    done = subprocess.run([str(tsc), *options, "--types", "node", "sample.ts"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{page.name}: its TypeScript samples do not compile:\n{done.stdout}{done.stderr}"
