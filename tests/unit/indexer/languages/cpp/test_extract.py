"""The C++ extractor: the annotated cases in indexer/languages/cpp/cases/ (classes, namespaces, templates, operators,
out-of-class definitions, calls kept and dropped, macros and `extern "C"`), and the robustness checks a case file cannot
hold."""

from __future__ import annotations

import pytest
from spider.indexer.languages.cpp.extract import extract
from spider.indexer.parse.facts import RefKind

from tests.unit.indexer.languages.annotated import case_files, check, read_case


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


def test_weird_inputs_do_not_raise():
    assert extract("e.cpp", b"").entities == []
    bad_bytes = extract("b.cpp", b"// \xff\xfe\nvoid h() { f(\"\xc3\"); }\n")
    assert [r.target for r in bad_bytes.references] == [("f",)]
    assert extract("m.cpp", b"class { void (*)() {} ; template <> \nint f(\n").syntax_errors > 0


def test_deep_nesting_does_not_exhaust_the_stack():
    blocks = "{" * 3000 + "g();" + "}" * 3000
    namespaces = "namespace a {\n" * 500 + "void deep() { h(); }\n" + "}\n" * 500
    facts = extract("d.cpp", f"void m() {blocks}\n{namespaces}".encode())
    assert [(r.scope, r.target) for r in facts.references if r.kind == RefKind.CALL] == [
        ("m", ("g",)), (".".join(["a"] * 500 + ["deep"]), ("h",))]


def test_deterministic():
    src = b"#include \"a.h\"\nnamespace n { struct S { void f(); }; }\nvoid n::S::f() { g(); }\n"
    assert extract("a.cc", src) == extract("a.cc", src)
