"""The house as documented is the house in the tree.

README.md's layout table and docs/architecture.md's layer table list hookd's folders in the
order of the import contract's layers (pyproject.toml, `lint-imports`), each described by the
first paragraph of its package docstring; `hookd/` holds folders only; and no module imports
another module's private name.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOOKD = ROOT / "hookd"
DATA_FOLDERS = {"systemd"}  # the units shipped for `hookd install-systemd`: data, not code


def layers() -> list[list[str]]:
    """The layers contract's layers, lowest first, each a list of packages."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [[p.strip() for p in layer.split("|")] for layer in reversed(contract["layers"])]


def summary(package: str) -> str:
    init = ROOT.joinpath(*package.split(".")) / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n")[0].split())


def rows() -> list[str]:
    return [f"| `{p.replace('.', '/')}/` | {summary(p)} |" for layer in layers() for p in layer]


def table_rows(doc: Path) -> list[str]:
    return [line for line in doc.read_text(encoding="utf-8").splitlines() if line.startswith("| `hookd/")]


def test_hookd_holds_only_its_layer_folders() -> None:
    loose = sorted(p.name for p in HOOKD.iterdir() if p.is_file() and p.name not in {"__init__.py", "__main__.py"})
    assert loose == [], f"modules loose in hookd/: {loose}; each belongs in a layer folder (docs/architecture.md)"
    # A folder with no source in it (bytecode an older checkout left behind) is not part of the tree.
    folders = {p.name for p in HOOKD.iterdir() if p.is_dir() and any(p.rglob("*.py"))} - DATA_FOLDERS
    in_layers = {p.split(".")[1] for layer in layers() for p in layer}
    assert folders == in_layers, f"folders outside the layers contract: {sorted(folders - in_layers)}"


def test_readme_layout_is_the_tree() -> None:
    expected = rows()
    assert table_rows(ROOT / "README.md") == expected, "README.md's layout table, from the tree:\n" + "\n".join(expected)


def test_architecture_layers_are_the_tree() -> None:
    expected = rows()
    assert table_rows(ROOT / "docs" / "architecture.md") == expected, "docs/architecture.md's layers, from the tree:\n" + "\n".join(
        expected
    )


def test_no_module_imports_another_modules_private_name() -> None:
    found = []
    for path in sorted(HOOKD.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "hookd":
                found += [
                    f"{path.relative_to(ROOT)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert found == [], "private names imported across modules (make them public, or keep the use inside the module):\n" + "\n".join(found)


def test_no_import_cycle() -> None:
    """No module reaches itself through imports, TYPE_CHECKING ones included: a feature names what it
    uses as a protocol instead of importing whoever provides it."""
    import grimp

    graph = grimp.build_graph("hookd")
    modules = sorted(m for m in graph.modules if m.split(".")[0] == "hookd")
    cycles = []
    for module in modules:
        for dependency in graph.find_modules_directly_imported_by(module):
            if dependency.split(".")[0] == "hookd" and dependency != module:
                path = graph.find_shortest_chain(importer=dependency, imported=module)
                if path is not None:
                    cycles.append(" -> ".join([module, *path]))
    assert cycles == [], "import cycles:\n" + "\n".join(sorted(set(cycles)))


def test_unit_tests_mirror_the_house() -> None:
    """tests/unit/ holds a folder per layer folder of hookd/ (and the client's, and the bench's), no test loose."""
    unit = ROOT / "tests" / "unit"
    loose = sorted(p.name for p in unit.glob("*.py") if p.name != "__init__.py")
    assert loose == [], f"unit tests loose in tests/unit/: {loose}; each goes in the folder of the layer it tests (tests/README.md)"
    layer_folders = {p.split(".")[1] for layer in layers() for p in layer}
    folders = {p.name for p in unit.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert folders <= layer_folders | {"client", "bench"}, f"folders that are no layer of hookd/: {sorted(folders - layer_folders)}"
