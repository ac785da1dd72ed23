"""Which package may import which: the floors drawn in docs/architecture.md, read from it. A module imports its own
package and the floors below its own, never a floor above, nor a neighbour on its floor; and no module names a
package by a path the install does not have (indexer/core/ is spider.core only, query/cli/ is spider.cli only)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = {ROOT / directory: package for package, directory in
                tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].items()}


def drawn_floors() -> list[set[str]]:
    """The floors as docs/architecture.md draws them (its block under "Which package may import which", top
    first): the drawing is the rule."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text[text.index("## Which package may import which"):].split("```")[1]
    floors = [{name.strip() for name in line.split("  ")[0].split(",")} for line in block.strip().splitlines()]
    return floors[::-1]


FLOORS = drawn_floors()
FLOOR = {unit: height for height, units in enumerate(FLOORS) for unit in units}


def module_name(path: Path) -> str:
    """The installed name of a source file: by the nearest package-dir mapping above it."""
    directory = max((d for d in PACKAGE_DIRS if path.is_relative_to(d)), key=lambda d: len(d.parts))
    parts = [part for part in path.relative_to(directory).with_suffix("").parts if part != "__init__"]
    return ".".join([PACKAGE_DIRS[directory], *parts])


def unit_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1] in ("indexer", "query") and len(parts) > 2 else parts[:2])


def sources() -> list[Path]:
    return sorted({path for directory in PACKAGE_DIRS for path in directory.rglob("*.py") if "cases" not in path.parts})


def imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of a spider module; `from spider.query import render` imports the module
    spider.query.render, `from spider.query import localize` the package spider.query."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES
                       else node.module) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("spider.")]


def wrong_imports(modules: dict[str, str]) -> list[str]:
    """`module: line: importer imports target` for each import of `modules` (name -> source) that reaches up or
    sideways."""
    wrong = []
    for module, source in modules.items():
        importer = unit_of(module)
        for line, imported in imports(source):
            target = unit_of(imported)
            if target != importer and FLOOR.get(target, -1) >= FLOOR.get(importer, -1):
                wrong.append(f"{module}:{line}: {importer} imports {target}")
    return wrong


MODULES = {module_name(path) for path in sources()}


def test_every_unit_stands_on_a_floor():
    units = {unit_of(module_name(path)) for path in sources()}
    assert units <= set(FLOOR), f"not drawn in FLOORS (and docs/architecture.md): {sorted(units - set(FLOOR))}"


def test_no_import_reaches_up_or_sideways():
    wrong = wrong_imports({module_name(path): path.read_text() for path in sources()})
    assert not wrong, "\n".join(wrong)


def test_a_reach_up_or_sideways_is_found():
    assert wrong_imports({
        "spider.indexer.graph.store": "from spider.indexer.pipeline.stages import graph_of\nimport spider.core.errors\n",
        "spider.indexer.resolve.codegraph": "from spider.indexer.source.walk import Commit\n",
        "spider.query.pipeline": "from spider.indexer.graph.store import GraphStore\n",
    }) == ["spider.indexer.graph.store:1: spider.indexer.graph imports spider.indexer.pipeline",
           "spider.indexer.resolve.codegraph:1: spider.indexer.resolve imports spider.indexer.source"]


def test_no_module_is_imported_by_a_name_the_install_lacks():
    aliases = ("spider.indexer.core", "spider.query.cli")
    wrong = [f"{path.relative_to(ROOT)}:{line}: {name}"
             for folder in ("indexer", "query", "cypher", "tests", "bench") for path in (ROOT / folder).rglob("*.py")
             if "cases" not in path.parts for line, name in imports(path.read_text()) if name.startswith(aliases)]
    assert not wrong, "\n".join(wrong)
