"""Python extractor: the annotated cases in indexer/languages/python/cases/ (source in, facts out), and what a case file
cannot hold."""

from __future__ import annotations

import pytest
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.languages.python.extract import extract
from spider.indexer.parse.facts import NESTED_TOO_DEEP

from tests.unit.indexer.languages.annotated import case_files, check, read_case


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


def test_syntax_errors_are_counted_and_the_rest_still_extracted():
    facts = extract("m.py", b"def broken(:\n    pass\n\ndef fine():\n    return 1\n")
    assert facts.syntax_errors > 0
    assert "fine" in {e.qualname for e in facts.entities}


def nested_defs(depth: int) -> bytes:
    return ("".join("    " * i + f"def level{i}():\n" for i in range(depth)) + "    " * depth + "return 0\n").encode()


def test_indentation_deeper_than_the_parser_follows_is_told_from_syntax_errors():
    """tree-sitter-python follows 511 levels of indentation (measured); past that it loses the file's structure.
    The warning says so, not "syntax errors", which would send the user looking for a typo."""
    deep, parsed = parse_file("deep.py", nested_defs(1_300)), parse_file("ok.py", nested_defs(511))

    assert deep.warnings == [NESTED_TOO_DEEP] and deep.facts.nesting_too_deep
    assert 0 < len(deep.facts.entities) < 1_300
    assert parsed.warnings == [] and len(parsed.facts.entities) == 511
    assert parse_file("typo.py", b"def broken(:\n    pass\n").warnings == ["syntax errors"]
