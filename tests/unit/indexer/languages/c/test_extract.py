"""The C extractor: the annotated cases in indexer/languages/c/cases/ (linkage, includes, dropped calls, K&R and
macro-wrapped definitions, `#ifdef` variants, partly parsed code, exactly), and the robustness checks a case file cannot
hold."""

from __future__ import annotations

import pytest
from spider.indexer.languages.c.extract import extract
from spider.indexer.parse.facts import RefKind

from tests.unit.indexer.languages.annotated import case_files, check, read_case


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


def test_weird_inputs_do_not_raise():
    assert extract("e.c", b"").entities == []
    bad_bytes = extract("b.c", b"// \xff\xfe\nvoid h(void) { f(\"\xc3\"); }\n")
    assert [r.target for r in bad_bytes.references] == [("f",)]
    assert extract("m.c", b"int (*)(void) { }\nint f(\n").exports == []


def test_deep_nesting_does_not_exhaust_the_stack():
    blocks = "{" * 3000 + "g();" + "}" * 3000
    nested_ifs = "#ifdef A\n" * 500 + "void deep(void) { h(); }\n" + "#endif\n" * 500
    facts = extract("d.c", f"void m(void) {blocks}\n{nested_ifs}".encode())
    assert [(r.scope, r.target) for r in facts.references if r.kind == RefKind.CALL] == [("m", ("g",)),
                                                                                         ("deep", ("h",))]


def test_deterministic():
    src = b"#include \"a.h\"\nstatic int f(void);\nint g(int x) { return f() + x; }\nstatic int f(void) { return 1; }\n"
    assert extract("a.c", src) == extract("a.c", src)
