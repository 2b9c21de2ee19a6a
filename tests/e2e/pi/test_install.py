"""hookd's pi extension on disk: what install writes, that uninstall gives the tree back byte for byte, what it
never touches, and that an extension that would not load is not written. No pi here: install loads the extension
with Node alone (pi's own loader is test_pi_e2e.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.agents.opencode import install as opencode
from hookd.agents.pi import install, installed, version


@pytest.fixture(autouse=True)
def no_pi_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    # Install loads the extension before writing it; here with Node alone (pi's own loader is the e2e suite's).
    monkeypatch.setattr(version, "detect", lambda *a, **k: version.Found(None, None, "not looked for"))


def tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def test_install_then_uninstall_leaves_the_tree_as_it_was(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".pi").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_bytes(b'{"theme": "dark"}\n')
    before = tree(project)
    directory = install.extension_dir("project", cwd=str(project))
    said = install.install(directory, install.client_specifier(None), install.Options())
    assert said.startswith("installed the hookd extension for pi") and "blocked when hookd cannot be asked" in said
    assert sorted(p.name for p in directory.iterdir()) == ["hookd-client.mjs", "hookd.ts"]
    assert (directory / "hookd-client.mjs").read_bytes() == opencode.BUNDLE.read_bytes()
    text = (directory / "hookd.ts").read_text()
    assert 'from "./hookd-client.mjs"' in text and '"failOpen": false' in text
    assert installed.inspect(str(directory / "hookd.ts")).problems == ()
    assert install.install(directory, install.client_specifier(None), install.Options()).startswith("already installed")
    # Installing with other options rewrites the extension and keeps the record of what the first install made.
    install.install(directory, install.client_specifier(None), install.Options(fail_open=True, timeout=3))
    assert '"failOpen": true' in (directory / "hookd.ts").read_text()
    assert install.uninstall(directory).startswith("removed the hookd extension for pi")
    assert tree(project) == before


def test_a_user_install_removes_the_directories_it_made(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    directory = install.extension_dir("user", {"HOME": str(home)})
    install.install(directory, install.client_specifier(None), install.Options())
    install.uninstall(directory)
    assert tree(home) == {}


@pytest.mark.parametrize("name", ["hookd.ts", "hookd-client.mjs"])
def test_files_hookd_did_not_write_are_never_touched(tmp_path: Path, name: str) -> None:
    directory = tmp_path / "extensions"
    directory.mkdir()
    (directory / name).write_text("export default function mine() {}\n")
    with pytest.raises(install.InstallError, match="was not written by hookd"):
        install.install(directory, install.client_specifier(None), install.Options())
    if name == "hookd.ts":
        with pytest.raises(install.InstallError, match="was not written by hookd"):
            install.uninstall(directory)
    assert (directory / name).read_text() == "export default function mine() {}\n"


def test_an_extension_that_would_not_load_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "extension.ts"
    broken.write_text(install.TEMPLATE.read_text().replace("export default function hookd(pi) {", "export default function hookd(pi) {{"))
    monkeypatch.setattr(install, "TEMPLATE", broken)
    directory = tmp_path / "extensions"
    with pytest.raises(install.InstallError, match="would not load in pi, so nothing was installed"):
        install.install(directory, install.client_specifier(None), install.Options())
    assert not directory.exists()
