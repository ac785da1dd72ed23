"""The issue text is read as bytes: one that is not UTF-8 is answered, with a note, not refused."""

from __future__ import annotations

import io
import os

import pytest
from spider.cli.ask import read_issue


@pytest.mark.parametrize("given, text, noted", [
    (b"crash in \xff\xfe parser", "crash in \ufffd\ufffd parser", True),
    ("caf\u00e9 \ufffd already".encode(), "caf\u00e9 \ufffd already", False),
])
def test_an_issue_that_is_not_utf8_is_read_with_a_note(given, text, noted):
    for source in ({"issue": os.fsdecode(given), "issue_file": None}, {"issue": None, "issue_file": io.BytesIO(given)}):
        read, notes = read_issue(**source)
        assert read == text and bool(notes) == noted
