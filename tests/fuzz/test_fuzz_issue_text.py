"""Any bytes as the issue text: spider-query reads them (as an argument, a file or standard input) and ranks with
them, or says in one line that there is no text; never another exception."""

from __future__ import annotations

import io
import os
from functools import cache

from hypothesis import example, given
from hypothesis import strategies as st
from spider.cli.ask import read_issue
from spider.core.errors import SpiderError
from spider.query.retrieve.bm25 import Bm25Index
from spider.query.retrieve.mentions import FunctionNames, issue_mentions, match_mentions
from spider.query.retrieve.tokenize import code_tokens

ISSUE_BYTES = st.one_of(
    st.binary(max_size=2_000),
    st.text(max_size=500).map(lambda text: text.encode("utf-8", "surrogatepass")),  # lone surrogates too
    st.lists(st.sampled_from([b"\xff", b"\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x00", b"\x1b[2J",
                              b"def ", b"parse_order", b" ", b"\n", "\u00e9".encode(), b'File "a.py", line 1, in ',
                              b"at Cart.add(b.py:2:3)", b"ValueError: ", b'"', b"Cart.add", b"a.py"]),
             max_size=60).map(b"".join),
)


@cache
def small_index() -> Bm25Index:
    texts = ["def parse_order(order):\n    return order.total", "class Cart:\n    def add(self, item): ..."]
    return Bm25Index.build(["a.py:parse_order", "b.py:Cart.add"], texts)


def is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@given(ISSUE_BYTES)
@example(b"crash \xff\xfe here")
@example(b"  \n")
def test_any_bytes_are_read_as_an_issue_or_refused_in_one_line(raw):
    readings = []
    sources = [(None, io.BytesIO(raw))] + ([(os.fsdecode(raw), None)] if b"\0" not in raw else [])  # argv has no NUL
    for issue, issue_file in sources:
        try:
            readings.append(read_issue(issue, issue_file))
        except SpiderError as refused:
            assert not raw.decode("utf-8", "replace").strip() and "\n" not in str(refused)
    for text, notes in readings:
        assert text.encode("utf-8") and (notes == []) == is_utf8(raw)
        small_index().search(text, 2)
        small_index().relative_scores(text, ["a.py:parse_order"])
        assert set(match_mentions(issue_mentions(text), FunctionNames.of(small_index().node_ids))) <= set(small_index().node_ids)
        assert all(isinstance(token, str) for token in code_tokens(text))
    assert len({text for text, _ in readings}) <= 1  # the argument and a file with the same bytes read alike
