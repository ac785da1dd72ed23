"""Small helpers every tree-sitter extractor shares: cached parsers, node text, spans, error counts."""

from __future__ import annotations

from functools import cache
from importlib import import_module

import tree_sitter
from spider.core.schema import Label
from spider.indexer.parse.facts import Entity

Node = tree_sitter.Node

_GRAMMARS: dict[str, str] = {}  # grammar name -> "module:function" returning its language pointer


def register_grammar(name: str, loader: str) -> None:
    """A language package names the grammars its extractor parses with, each by the function of a grammar package
    that returns its language ("tree_sitter_java:language"), imported when the grammar is first used."""
    _GRAMMARS[name] = loader


@cache
def language(grammar: str) -> tree_sitter.Language:
    module, function = _GRAMMARS[grammar].split(":")
    return tree_sitter.Language(getattr(import_module(module), function)())


@cache
def parser(grammar: str) -> tree_sitter.Parser:
    """One parser per grammar per process (parsers are not thread-safe; the indexer parses in processes)."""
    return tree_sitter.Parser(language(grammar))


def field_id(grammar: tree_sitter.Language, name: str) -> int:
    """The id of a field the grammar has (tree-sitter answers None for a name it does not know)."""
    found = grammar.field_id_for_name(name)
    assert found is not None, name
    return found


def parse(grammar: str, source: bytes) -> tree_sitter.Tree:
    return parser(grammar).parse(source)


@cache
def _range_parser(grammar: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(language(grammar))


def parse_inside(grammar: str, source: bytes, node: Node) -> tree_sitter.Tree:
    """`source` parsed as if it held only what stands between `node`'s first and last byte (a macro call's
    braces), each node at its place in the file."""
    (start_row, start_column), (end_row, end_column) = node.start_point, node.end_point
    inside = tree_sitter.Range((start_row, start_column + 1), (end_row, max(end_column - 1, 0)),
                               node.start_byte + 1, node.end_byte - 1)
    found = _range_parser(grammar)
    found.included_ranges = [inside]
    return found.parse(source)


def text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""  # type: ignore[union-attr]  # parsed


def first_line(node: Node) -> int:
    return node.start_point[0] + 1


def last_line(node: Node) -> int:
    """1-based last line; a node ending at column 0 ends on the previous line."""
    row, col = node.end_point
    return row if col == 0 and row > node.start_point[0] else row + 1


def count_syntax_errors(root: Node) -> int:
    """The ERROR and MISSING nodes of the tree. Only subtrees that have one are walked (`has_error`): a C file
    full of macros has errors in many places, and walking all its nodes took a third of its extraction."""
    errors = 0
    cursor = root.walk()
    while True:
        node: Node = cursor.node  # type: ignore[assignment]  # never None on a parsed tree
        if node.is_error or node.is_missing:
            errors += 1
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return errors


class SourceLines:
    """The file's lines, to cut an entity's code by its line span."""

    def __init__(self, source: bytes) -> None:
        self._lines = source.decode("utf-8", "replace").splitlines(keepends=True)

    def cut(self, start_line: int, end_line: int) -> str:
        return "".join(self._lines[start_line - 1 : end_line])

    def entity(
        self, label: Label, qualname: str, name: str, kind: str, start: int, end: int, parent: str | None,
        params: int | None = None,
    ) -> Entity:
        return Entity(label, qualname, name, kind, start, end, self.cut(start, end), parent, params)
