"""C extractor: one file's function definitions, `#include "…"`s, the names it gives external linkage, and calls.

Pure and deterministic (`bytes -> FileFacts`). Only definitions with a body are Functions (`f`; `#ifdef` variants
of one function in one file are `f`, `f#2`); prototypes are not. Structs are no Classes (not measured to help
localization). A definition whose name a macro wraps (`PHP_FUNCTION(strlen) {…}`, `int FN(bar)(int x) {…}`) is
named by the macro's argument (and gives no name external linkage: the compiler's name is another). The
preprocessor is not run: code under every `#if` branch is read, and what
tree-sitter cannot parse (macro-heavy code) is counted as syntax errors while what it parses is kept.

What the resolver needs for C's linkage is written as exports: every name the file gives external linkage, a
prototype (`int f(void);`, `name` only) or a non-`static` definition (`local` = its qualname). Includes are star
imports (`#include "a.h"` -> module `a.h`, `#include <a/b.h>` -> module `<a/b.h>`): a file sees what its headers
declare and define. A call is kept only when it names a function by a plain identifier that is no parameter,
local or file-scope variable and no macro of the file: calls through function pointers and macros are dropped.
Nothing recurses over the tree: deeply nested code cannot exhaust Python's stack.
"""

from __future__ import annotations

from functools import cache
from typing import Iterator

import tree_sitter
from spider.core.schema import Label
from spider.indexer.languages.c import LANGUAGE
from spider.indexer.parse.facts import Export, FileFacts, Import, QualnameRegistry, Reference, RefKind
from spider.indexer.parse.treesitter import (
    Node,
    SourceLines,
    count_syntax_errors,
    first_line,
    language,
    last_line,
    parse,
    text,
)

# Where definitions stand: the file, the branches of conditional compilation, `extern "C" {…}` (which a header
# opens under `#ifdef __cplusplus`: then it holds the rest of the file), and what tree-sitter could not parse.
CONTAINERS = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
                        "preproc_elifdef", "linkage_specification", "declaration_list", "ERROR"})
# Declarators that wrap a name: `*f`, `(f)`, `f(…)`, `f[…]`, `f __attribute__((…))`, `f = …`.
_WRAPPERS = frozenset({"pointer_declarator", "parenthesized_declarator", "function_declarator",
                       "array_declarator", "attributed_declarator", "init_declarator"})
_QUERY = """
(call_expression function: (identifier) @callee arguments: (argument_list) @arguments) @call
[(declaration) (parameter_declaration)] @declaration
"""


def extract(path: str, source: bytes) -> FileFacts:
    root = parse("c", source).root_node
    facts = FileFacts(path=path, language=LANGUAGE, syntax_errors=count_syntax_errors(root))
    _Extractor(facts, SourceLines(source)).run(root)
    return facts


def declared_name(node: Node | None) -> str | None:
    """The identifier a declarator declares, through pointers, parentheses, arrays and parameter lists."""
    while node is not None and node.type in _WRAPPERS:
        node = _inner(node)
    return text(node) if node is not None and node.type == "identifier" else None


def _inner(declarator: Node) -> Node | None:
    """What a declarator wraps (a parenthesized one has no field for it)."""
    if declarator.type == "parenthesized_declarator":
        return declarator.named_children[0] if declarator.named_child_count else None
    return declarator.child_by_field_name("declarator")


def _function_declarator(node: Node | None) -> Node | None:
    """The function declarator of a function's declarator (`*f(void)` returns a pointer, `(f)(void)` keeps a
    macro from expanding), None for a variable's (`(*fp)(void)` points to a function)."""
    while node is not None and node.type in ("pointer_declarator", "attributed_declarator"):
        node = node.child_by_field_name("declarator")
    if node is None or node.type != "function_declarator":
        return None
    name = node.child_by_field_name("declarator")
    while name is not None and name.type == "parenthesized_declarator":
        name = _inner(name)
    return None if name is not None and name.type == "pointer_declarator" else node


def _definition_name(node: Node) -> tuple[str | None, bool]:
    """A definition's name, and whether a macro wraps it: `f` of `int f(…)` or `int (f)(…)`; a wrapping macro is
    looked through to its one argument: `FN(bar)(int x)` and `PHP_FUNCTION(strlen)` (read as a parenthesized
    declarator) name `bar` and `strlen`, which are not the names the compiler sees."""
    declarator = node.child_by_field_name("declarator")
    function = _function_declarator(declarator)
    if function is None:
        inner = _inner(declarator) if declarator is not None and declarator.type == "parenthesized_declarator" else None
        return (text(inner), True) if inner is not None and inner.type == "identifier" else (None, True)
    name = function.child_by_field_name("declarator")
    while name is not None and name.type == "parenthesized_declarator":
        name = _inner(name)
    if name is not None and name.type == "function_declarator":  # FN(bar)(int x)
        arguments = name.child_by_field_name("parameters")
        only = arguments.named_children if arguments is not None else []
        wrapped = len(only) == 1 and only[0].type == "parameter_declaration" and only[0].named_child_count == 1
        argument = only[0].named_children[0] if wrapped else None
        return (text(argument), True) if argument is not None and argument.type == "type_identifier" else (None, True)
    return (text(name), False) if name is not None and name.type == "identifier" else (None, False)


def _is_static(node: Node) -> bool:
    return any(c.type == "storage_class_specifier" and text(c) == "static" for c in node.children)


def _params(function: Node | None) -> int | None:
    """The declared parameter count: `(void)` is 0, K&R `(a, b)` is 2; None when variadic or unknown."""
    parameters = function.child_by_field_name("parameters") if function is not None else None
    if parameters is None:
        return None
    named = parameters.named_children
    if any(c.type == "variadic_parameter" for c in named):
        return None
    if len(named) == 1 and text(named[0]) == "void":
        return 0
    return sum(1 for c in named if c.type in ("parameter_declaration", "identifier"))


class _Extractor:
    def __init__(self, facts: FileFacts, lines: SourceLines) -> None:
        self.facts = facts
        self.lines = lines
        self.registry = QualnameRegistry()
        self.not_functions: set[str] = set()  # the file's macros and file-scope variables: no call target
        self.definitions: list[tuple[Node, str]] = []  # (function_definition, qualname)

    def run(self, root: Node) -> None:
        for node in _top_level(root):
            kind = node.type
            if kind == "function_definition":
                self.definition(node)
            elif kind == "declaration":
                self.declaration(node)
            elif kind == "preproc_include":
                self.include(node)
            elif kind in ("preproc_def", "preproc_function_def"):
                name = node.child_by_field_name("name")
                if name is not None:
                    self.not_functions.add(text(name))
        for node, qualname in self.definitions:
            self.calls(node, qualname)

    def definition(self, node: Node) -> None:
        name, wrapped = _definition_name(node)
        if name is None:
            return
        qualname = self.registry.claim(None, name)
        function = _function_declarator(node.child_by_field_name("declarator"))
        self.facts.entities.append(self.lines.entity(
            Label.FUNCTION, qualname, name, "function", first_line(node), last_line(node), None, _params(function)))
        if not wrapped and not _is_static(node):
            self.facts.exports.append(Export(name, local=qualname))
        self.definitions.append((node, qualname))

    def declaration(self, node: Node) -> None:
        """A prototype gives its name external linkage (unless `static`); a variable is no function to call."""
        static = _is_static(node)
        for declarator in node.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is None:
                continue
            if _function_declarator(declarator) is None:
                self.not_functions.add(name)
            elif not static:
                self.facts.exports.append(Export(name))

    def include(self, node: Node) -> None:
        path = node.child_by_field_name("path")
        if path is None:
            return
        if path.type == "string_literal":
            content = next((c for c in path.named_children if c.type == "string_content"), None)
            module = text(content)
        elif path.type == "system_lib_string":
            module = text(path)
        else:  # `#include MACRO`: not known without the preprocessor
            return
        if module:
            self.facts.imports.append(Import(None, module, "*", "", first_line(node)))

    def calls(self, node: Node, qualname: str) -> None:
        """The function's calls to names that may be functions: a parameter or local of that name (a function
        pointer) or the file's macro or variable is none."""
        matches = tree_sitter.QueryCursor(_query()).matches(node)
        shadowing: set[str] = set()  # the function's parameters and local variables
        for declaration in (n for _, found in matches for n in found.get("declaration", ())):
            for declarator in declaration.children_by_field_name("declarator"):
                name = declared_name(declarator)
                if name is not None and (declaration.type == "parameter_declaration"
                                         or _function_declarator(declarator) is None):
                    shadowing.add(name)
        function = _function_declarator(node.child_by_field_name("declarator"))
        parameters = function.child_by_field_name("parameters") if function is not None else None
        if parameters is not None:  # K&R: `f(a, b) int a; …` names its parameters in the list
            shadowing.update(text(c) for c in parameters.named_children if c.type == "identifier")
        calls = sorted(((found["callee"][0], found["arguments"][0]) for _, found in matches if "callee" in found),
                       key=lambda pair: pair[0].start_byte)
        for callee, arguments in calls:
            name = text(callee)
            if name not in shadowing and name not in self.not_functions:
                self.facts.references.append(
                    Reference(qualname, RefKind.CALL, (name,), first_line(callee), arguments.named_child_count))


def _top_level(root: Node) -> Iterator[Node]:
    """The file's declarations and definitions, those under `#if`/`#ifdef` branches included, in source order."""
    stack = [iter(root.named_children)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif node.type in CONTAINERS:
            stack.append(iter(node.named_children))
        else:
            yield node


@cache
def _query() -> tree_sitter.Query:
    return tree_sitter.Query(language("c"), _QUERY)
