"""docs/security.md names, for every hostile input and fault, the test that shows what spider does: each test it
names must exist, or the table claims a guarantee nothing checks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# `path/to/test_x.py`, `path/to/test_x.py::test_name`, and `::test_other` (the same file as the reference before it)
REFERENCE = re.compile(r"`((?:[\w/]+/)?test_\w+\.py)?(?:::(\w+))?(?:\[[^\]`]*\])?`")


def named_tests(markdown: str) -> list[tuple[str, str | None]]:
    """(file under tests/, test function or None) for every test reference in the page, in order."""
    found: list[tuple[str, str | None]] = []
    last_file = ""
    for match in REFERENCE.finditer(markdown):
        path, name = match[1], match[2]
        if not path and not name:
            continue
        last_file = path or last_file
        found.append((last_file, name))
    return found


def functions_defined_in(path: Path) -> set[str]:
    return {node.name for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_the_references_are_read_with_their_file():
    page = "`unit/a/test_x.py::test_one`, `::test_two[case]`, `fuzz/test_y.py` and `not_a_test`"
    assert named_tests(page) == [("unit/a/test_x.py", "test_one"), ("unit/a/test_x.py", "test_two"),
                                 ("fuzz/test_y.py", None)]


def test_every_test_the_security_table_names_exists():
    references = named_tests((ROOT / "docs" / "security.md").read_text())
    assert len(references) > 50
    missing = []
    for file, name in references:
        path = ROOT / "tests" / file
        if not path.is_file() or (name is not None and name not in functions_defined_in(path)):
            missing.append(f"{file}::{name}" if name else file)
    assert not missing, missing
