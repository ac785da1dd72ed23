"""The Java extractor: the annotated cases in cases/ (entities, spans, imports, calls with declared receiver types,
base types, exactly), and the robustness checks a case file cannot hold."""

from __future__ import annotations

import textwrap

import pytest
from spider.indexer.languages.java.extract import extract
from spider.indexer.parse.facts import RefKind

from tests.unit.indexer.languages.annotated import case_files, check, read_case


def run(src: str):
    return extract("src/A.java", textwrap.dedent(src).lstrip("\n").encode())


def calls(facts):
    """(scope, target, line, arity, inferred) of every CALL."""
    return [(r.scope, r.target, r.line, r.arity, r.inferred) for r in facts.references if r.kind == RefKind.CALL]


def targets(facts, scope):
    return [r.target for r in facts.references if r.kind == RefKind.CALL and r.scope == scope]


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


# ---------------------------------------------------------------------------------------------- robustness
def test_syntax_error_still_yields_the_good_parts():
    facts = run(
        """
        class Bad {
            void ok() { a(); }
            void broken( { b(); }
            void after() { c(); }
        }
        """
    )
    assert facts.syntax_errors > 0
    assert [e.qualname for e in facts.entities] == ["Bad", "Bad.ok", "Bad.broken", "Bad.after"]
    assert ("Bad.ok", ("a",), 2, 0, False) in calls(facts)
    assert ("Bad.after", ("c",), 4, 0, False) in calls(facts)


def test_weird_inputs_do_not_raise():
    assert extract("e.java", b"").entities == []
    only_comments = extract("c.java", b"// hi\n/* there */\n")
    assert (only_comments.entities, only_comments.references, only_comments.syntax_errors) == ([], [], 0)
    bad_bytes = extract("b.java", b"class \xff\xfeA { void m() { f(\"\xc3\"); } }")
    assert [e.kind for e in bad_bytes.entities] == ["class", "method"]
    assert [r.target for r in bad_bytes.references] == [("f",)]


def test_deep_nesting_does_not_exhaust_the_stack():
    concat = " + ".join(f"f{i}()" for i in range(5000))
    blocks = "{" * 2000 + "g();" + "}" * 2000
    facts = extract("d.java", f"class A {{ void m() {{ String s = {concat}; {blocks} }} }}".encode())
    assert len(targets(facts, "A.m")) == 5001
    assert targets(facts, "A.m")[-1] == ("g",)


def test_deterministic():
    src = b"class A { void m() { new B() { void x() { y(); } }; z(); } }"
    assert extract("a.java", src) == extract("a.java", src)
