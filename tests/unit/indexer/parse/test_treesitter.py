"""The shared tree-sitter helpers."""

from __future__ import annotations

from typing import Iterator

import pytest
from spider.indexer.parse.treesitter import Node, count_syntax_errors, parse

BROKEN = {
    "c": b"#define F(x) x\nint f(void) { F(int) g(; return 1 }\nint h(void) { return 2; }\nstruct { int a } s;\n",
    "go": b"package p\nfunc f() { x := ; if { } }\nfunc g() int { return 1 }\n",
    "rust": b"fn f() { let x = ; }\nfn g() -> u8 { 1 }\nimpl S { fn h(&self) { self.a( } }\n",
    "python": b"def f(:\n    return 1\nclass C:\n    def g(self): return (\n",
    "java": b"class A { void f() { int x = ; } int g() { return 1 } }\n",
    "javascript": b"function f() { let x = ; }\nconst g = () => { return 1 \n",
}


def descendants(root: Node) -> Iterator[Node]:
    """Every node, pre-order: the reference count_syntax_errors is checked against."""
    cursor = root.walk()
    while True:
        yield cursor.node  # type: ignore[misc]  # never None on a parsed tree
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


@pytest.mark.parametrize("grammar", sorted(BROKEN))
def test_counting_only_subtrees_with_errors_finds_every_error_and_missing_node(grammar):
    root = parse(grammar, BROKEN[grammar]).root_node
    every = sum(1 for node in descendants(root) if node.is_error or node.is_missing)
    assert every > 0
    assert count_syntax_errors(root) == every


def test_a_tree_without_errors_has_none():
    assert count_syntax_errors(parse("c", b"int f(void) { return 1; }\n").root_node) == 0
