"""Hostile `--param key=value` to the analyst queries: always rows or a one-line error, never a traceback.

Values are arbitrary text (lone surrogates included: undecodable argv bytes arrive as those) or JSON of any shape
(integers past 64 bits or of thousands of digits, NaN, deep nesting); keys are the queries' own parameter names or
arbitrary text."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from spider import cypher
from spider.cli.main import main

ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=20,
)
NAMES = st.sampled_from(["id", "ids", "path", "paths", "seeds", "edges", "pool", "d", "types", "with_code", "repo",
                         "snapshot"])
VALUES = st.one_of(  # the rare cases as branches of their own, so that a short run meets each of them
    ANY_TEXT,
    JSON.map(json.dumps),
    st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3),  # undecodable argv bytes
    (st.integers(min_value=2**63) | st.integers(max_value=-(2**63) - 1)).map(str),  # past Bolt's 64-bit integers
    st.integers(60, 5_000).map(lambda depth: "[" * depth + "]" * depth),  # nesting past Python's recursion limit
    st.integers(4_000, 5_000).map(lambda digits: "9" * digits),  # past Python's 4,300-digit int conversion limit
)
PARAMS = st.lists(st.tuples(NAMES | ANY_TEXT, VALUES).map("=".join), max_size=3)


@settings(max_examples=max(30, settings.default.max_examples // 5))  # each new parameter type is a new plan
@given(query=st.sampled_from(cypher.ANALYST), params=PARAMS)
def test_any_parameters_give_rows_or_one_line_error(shop, query, params):
    args = ["cypher", query, "--repo", shop, *(arg for p in params for arg in ("--param", p))]

    result = CliRunner().invoke(main, args, prog_name="spider")

    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    if result.exit_code == 0:
        assert result.stdout.splitlines()[-1].endswith(("row)", "rows)")) and result.stderr == ""
    else:
        assert result.exit_code == 2 and result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("spider: error: "), result.stderr
