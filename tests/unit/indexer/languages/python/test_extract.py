"""Python extractor: the annotated cases in cases/ (source in, facts out), and what a case file cannot hold."""

from __future__ import annotations

import pytest
from spider.indexer.languages.python.extract import extract

from tests.unit.indexer.languages.annotated import case_files, check, read_case


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


def test_syntax_errors_are_counted_and_the_rest_still_extracted():
    facts = extract("m.py", b"def broken(:\n    pass\n\ndef fine():\n    return 1\n")
    assert facts.syntax_errors > 0
    assert "fine" in {e.qualname for e in facts.entities}
