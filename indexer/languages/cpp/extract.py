"""C++ extractor: one file's classes, function definitions, `#include`s, the names it declares and defines with
external linkage, base classes and calls.

Pure and deterministic (`bytes -> FileFacts`). Names are the benchmark's: namespaces and classes prefix
(`ns.Class.method`), template arguments are dropped, a constructor is `Class.Class`, a destructor `Class.~Class`,
an operator `Class.operator==` (a conversion `Class.operator bool`), overloads `f`, `f#2`. Only definitions with
a body are Functions; lambdas are not. A span starts at the `template<…>` line. A method defined outside its
class (`void ns::Foo::bar() {…}`) is `ns.Foo.bar` of the file it is written in: the Class contains it when the
same file defines the class, else a `member` reference names the class, which the resolver finds through the
includes. Classes, structs and unions with a body are Classes. The preprocessor is not run: every `#if` branch
(of branches that each open the same braces, the first only) and `extern "C" {…}` is read, attribute-like all-caps
macros read as blank, and what tree-sitter cannot parse counts as syntax errors while what it parses is kept.

Exports are dotted names with external linkage: a prototype or a method declared in its class (`ns.Foo.bar`, `name`
only), and every definition that is not `static`, not in an anonymous namespace (`local` = its qualname). A call is
kept when its callee is a name (`f`, `ns::f`, `Foo::bar`, `f<T>`), `this->m()` (`<self>.m`), `new T` and `T x(…)` /
`T x{…}` (the class), or a method called on a parameter or local whose declared type names a class (`Foo x;`,
`Foo* p`, `const Foo& r`, `for (Foo& x : xs)`, `auto x = new Foo`; `auto x = Foo(…)` is inferred); calls through a
parameter, local or file-scope variable or a macro of the file, and on receivers of unknown type, are dropped.
Nothing recurses over the tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Iterator

import tree_sitter
from spider.core.schema import Label
from spider.indexer.languages.c.extract import CONTAINERS, declared_name
from spider.indexer.languages.cpp import LANGUAGE
from spider.indexer.parse.facts import SELF, Export, FileFacts, Import, QualnameRegistry, Reference, RefKind
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

# Where declarations stand besides namespaces: where C's do (`#if` branches, `extern "C" {…}`, unparsed code), and
# class bodies (`friend` ones too).
_CONTAINERS = CONTAINERS | {"field_declaration_list", "friend_declaration"}
_CLASSES = {"class_specifier": "class", "struct_specifier": "struct", "union_specifier": "union"}
# Declarators around a function's: `*f(…)`, `&f(…)`, `f(…) [[attr]]`.
_AROUND = frozenset({"pointer_declarator", "reference_declarator", "attributed_declarator"})
_SPACES = re.compile(r"\s+")
_OVERLOAD = re.compile(r"#\d+")
# A line that is one all-caps macro, with arguments or not (`FMT_BEGIN_NAMESPACE`, `FMT_EXPORT`,
# `SIMDJSON_PUSH_DISABLE_WARNINGS`): what it expands to is not known, and read as code it glues the declarations
# around it into one (the benchmark's ground truth blanked such lines too).
_MACRO_LINE = re.compile(rb"(?m)^[ \t]*[A-Z][A-Z0-9_]*[ \t]*(?:\([^;{}\n]*\))?[ \t]*$")
# An all-caps macro with an underscore that stands where a declaration starts (`FMT_CONSTEXPR auto f()`, after
# `friend`) or after a parameter list (`f() const FMT_NOEXCEPT {`): an attribute or specifier in all likelihood,
# read as blank for the same reason; one in an expression (`f(MAX_SIZE)`) is left alone.
_MACRO_WORD = re.compile(rb"(?m)(^[ \t]*(?:(?:friend|inline|static|constexpr|virtual)[ \t]+)*"
                         rb"|\)[ \t]*(?:(?:const|noexcept|override)[ \t]*)*)"
                         rb"([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]*(?:$|[A-Za-z_~{;&*]))")
_LITERAL = re.compile(rb"//.*|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")  # a comment or literal: no braces
_QUERY = """
(call_expression function: (_) @callee arguments: (argument_list) @arguments) @call
(new_expression type: (_) @new) @call
[(declaration) (parameter_declaration) (optional_parameter_declaration) (for_range_loop)] @declaration
(function_definition) @function
"""


def extract(path: str, source: bytes) -> FileFacts:
    root = parse("cpp", _without_macros(source)).root_node
    facts = FileFacts(path=path, language=LANGUAGE, syntax_errors=count_syntax_errors(root))
    _Extractor(facts, SourceLines(source)).run(root)
    return facts


@dataclass(frozen=True)
class _Where:
    """Where a declaration stands: the dotted name of the enclosing namespaces and classes, the enclosing class's
    qualname (None outside classes), whether the names have internal linkage (an anonymous namespace), and the
    `template<…>` declaration that starts its span."""

    prefix: str = ""
    parent: str | None = None
    internal: bool = False
    template: Node | None = None

    def under(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name


def _without_macros(source: bytes) -> bytes:
    """The source with its attribute-like macros and alternative `#else` branches as spaces: every node keeps its
    place. Twice, for two macros in a row (`FMT_EXPORT FMT_CONSTEXPR auto f()`)."""
    source = _first_branches(_MACRO_LINE.sub(lambda line: b" " * len(line.group()), source))
    for _ in range(2):
        source = _MACRO_WORD.sub(lambda word: word.group(1) + b" " * len(word.group(2)), source)
    return source


def _first_branches(source: bytes) -> bytes:
    """Where every branch of an `#if` opens (or closes) the same number of braces, alternative headers of one
    function or block (`#if A` `if (x) {` `#else` `if (y) {` `#endif`), all but the first read as blank: read
    together, they nest the rest of the file inside the function (the ground truth kept the first too). An `#if`
    with one branch and neither braces nor `;` in it guards a piece of one declaration (a base clause, a
    parameter): its directive lines read as blank, for tree-sitter reads no directive inside a class head."""
    lines = source.split(b"\n")
    groups: list[list[list[int]]] = []  # open `#if`s: their branches as [first line, end line, brace balance, piece]
    blank: list[tuple[int, int]] = []
    for number, line in enumerate(lines):
        directive = line.lstrip()[1:].lstrip() if line.lstrip().startswith(b"#") else None
        if directive is not None and directive.startswith(b"if"):
            groups.append([[number + 1, number + 1, 0, 1]])
        elif directive is not None and directive.startswith((b"elif", b"else")) and groups:
            groups[-1][-1][1] = number
            groups[-1].append([number + 1, number + 1, 0, 1])
        elif directive is not None and directive.startswith(b"endif") and groups:
            branches = groups.pop()
            branches[-1][1] = number
            balance = branches[0][2]
            if len(branches) > 1 and balance and all(branch[2] == balance for branch in branches):
                blank.extend((start, end) for start, end, _, _ in branches[1:])
            start, end, _, piece = branches[0]
            if len(branches) == 1 and piece and end > start:
                blank.extend(((start - 1, start), (number, number + 1)))
            if groups:
                groups[-1][-1][2] += balance
                groups[-1][-1][3] &= int(all(branch[3] for branch in branches))
        elif groups:
            code = _LITERAL.sub(b"", line)
            groups[-1][-1][2] += code.count(b"{") - code.count(b"}")
            if any(mark in code for mark in (b"{", b"}", b";")):
                groups[-1][-1][3] = 0
    for start, end in blank:
        lines[start:end] = [b" " * len(line) for line in lines[start:end]]
    return b"\n".join(lines)


def scoped_name(node: Node | None) -> list[str] | None:
    """`ns::Foo<T>::bar` -> ["ns", "Foo", "bar"]; `~Foo` -> ["~Foo"]; `operator ==` -> ["operator=="]; None for
    anything that is no name."""
    parts: list[str] = []
    while node is not None and node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is not None:  # `::f` has none
            if scope.type == "template_type":
                scope = scope.child_by_field_name("name")
            if scope is None or scope.type not in ("namespace_identifier", "type_identifier"):
                return None
            parts.append(text(scope))
        if any(child.is_missing for child in node.children):  # `inline_macro T Foo::f()`: what came before the
            parts = []  # `::` tree-sitter made up is the return type
        elif error := next((child for child in node.children if child.type == "ERROR"), None):
            parts = [text(n) for n in error.named_children if n.type == "identifier"]  # `… ns::T ns::Foo::f()`
        node = node.child_by_field_name("name")
    if node is None:
        return None
    if node.type in ("template_function", "template_type", "template_method"):
        node = node.child_by_field_name("name")
    if node is None:
        return None
    if node.type in ("identifier", "field_identifier", "type_identifier", "namespace_identifier"):
        return [*parts, text(node)]
    if node.type == "destructor_name":
        return [*parts, "~" + _SPACES.sub("", text(node)).lstrip("~")]
    if node.type == "operator_name":
        return [*parts, "operator" + _SPACES.sub("", text(node))[len("operator"):]]
    if node.type == "operator_cast":
        cast = node.child_by_field_name("type")
        return [*parts, f"operator {_SPACES.sub(' ', text(cast))}"]
    return None


def _function_declarator(node: Node | None) -> Node | None:
    while node is not None and node.type in _AROUND:
        node = node.child_by_field_name("declarator") or (node.named_children[0] if node.named_child_count else None)
    return node if node is not None and node.type == "function_declarator" else None


def _definition_name(node: Node) -> tuple[list[str] | None, Node | None]:
    """The name a function definition defines and its function declarator (None for a conversion operator)."""
    declarator = node.child_by_field_name("declarator")
    if declarator is not None and declarator.type in ("operator_cast", "qualified_identifier"):
        return scoped_name(declarator), None  # `operator bool() {…}`, `Foo::operator bool() {…}`
    function = _function_declarator(declarator)
    if function is None:
        return None, None
    return scoped_name(function.child_by_field_name("declarator")), function


def _params(function: Node | None) -> int | None:
    """The declared parameter count: `(void)` is 0; None when variadic, with default arguments, or unknown."""
    parameters = function.child_by_field_name("parameters") if function is not None else None
    if parameters is None:
        return None
    named = [c for c in parameters.named_children if c.type != "comment"]
    if any(c.type in ("variadic_parameter", "optional_parameter_declaration", "variadic_parameter_declaration")
           for c in named):
        return None
    if len(named) == 1 and text(named[0]) == "void":
        return 0
    return sum(1 for c in named if c.type == "parameter_declaration")


def _is_static(node: Node) -> bool:
    return any(c.type == "storage_class_specifier" and text(c) == "static" for c in node.children)


def type_name(node: Node | None) -> list[str] | None:
    """The class a declared type names: `Foo`, `ns::Foo`, `Foo<T>` (template arguments dropped); None for
    builtins, `auto` and the like."""
    if node is None or node.type not in ("type_identifier", "qualified_identifier", "template_type"):
        return None
    return scoped_name(node)


class _Extractor:
    def __init__(self, facts: FileFacts, lines: SourceLines) -> None:
        self.facts = facts
        self.lines = lines
        self.registry = QualnameRegistry()
        self.classes: set[str] = set()  # dotted names of the classes the file defines
        self.not_functions: set[str] = set()  # the file's macros and namespace-scope variables
        self.definitions: list[tuple[Node, str]] = []  # (function_definition, qualname)

    def run(self, root: Node) -> None:
        for node, where in self._declarations(root):
            kind = node.type
            if kind == "function_definition":
                self.definition(node, where)
            elif kind in ("declaration", "field_declaration"):
                self.declaration(node, where)
            elif kind == "preproc_include":
                self.include(node)
            elif kind in ("preproc_def", "preproc_function_def"):
                name = node.child_by_field_name("name")
                if name is not None:
                    self.not_functions.add(text(name))
        for node, qualname in self.definitions:
            self.calls(node, qualname)

    def _declarations(self, root: Node) -> Iterator[tuple[Node, _Where]]:
        """Every declaration and definition with where it stands, in source order; class bodies are entered as
        their classes are made."""
        stack: list[tuple[Iterator[Node], _Where]] = [(iter(root.named_children), _Where())]
        while stack:
            children, where = stack[-1]
            node = next(children, None)
            if node is None:
                stack.pop()
            elif node.type in _CONTAINERS:
                stack.append((iter(node.named_children), where))
            elif node.type == "namespace_definition":
                name = node.child_by_field_name("name")
                body = node.child_by_field_name("body")
                if body is not None:
                    inner = where
                    if name is None:  # anonymous: its names have internal linkage
                        inner = _Where(where.prefix, where.parent, True)
                    else:  # `namespace a::b {`
                        parts = [text(n) for n in _identifiers(name)]
                        inner = _Where(".".join(filter(None, [where.prefix, *parts])), where.parent, where.internal)
                    stack.append((iter(body.named_children), inner))
            elif node.type == "template_declaration":
                inner = _Where(where.prefix, where.parent, where.internal, where.template or node)
                stack.append((iter([c for c in node.named_children if c.type != "template_parameter_list"]), inner))
            else:
                specifier = self._class_of(node)
                if specifier is not None:
                    entered = self.class_(specifier, node, where)
                    if entered is not None:
                        stack.append(entered)
                        continue
                yield node, where
                if node.type == "function_definition" and self.definitions and self.definitions[-1][0] == node:
                    stack.append(self._local_classes(node, where))

    def _local_classes(self, function: Node, where: _Where) -> tuple[Iterator[Node], _Where]:
        """The classes a function's body defines at its top (`struct handler {…};`): their methods are Functions
        under the function's name (`f.handler.m`)."""
        body = function.child_by_field_name("body")
        local = [c for c in body.named_children if self._class_of(c) is not None] if body is not None else []
        qualname = self.definitions[-1][1]
        return iter(local), _Where(_OVERLOAD.sub("", qualname), qualname, internal=True)

    def _class_of(self, node: Node) -> Node | None:
        """The class a node defines with a body: itself, or the type of `struct S {…} s;` / a member class."""
        if node.type not in _CLASSES and node.type in ("declaration", "field_declaration"):
            node = node.child_by_field_name("type")  # type: ignore[assignment]  # checked below
        if node is None or node.type not in _CLASSES or node.child_by_field_name("body") is None:
            return None
        return node

    def class_(self, specifier: Node, node: Node, where: _Where) -> tuple[Iterator[Node], _Where] | None:
        """Make the Class and return its body to enter; an anonymous class's members stay where they are."""
        body = specifier.child_by_field_name("body")
        name = scoped_name(specifier.child_by_field_name("name"))
        if body is None:
            return None
        if name is None:
            return iter(body.named_children), where
        dotted = where.under(name[-1])  # `class Outer::Inner {…}` is `Inner`, as the benchmark names it
        qualname = self.registry.claim(where.parent, dotted if where.parent is None else name[-1])
        self.classes.add(dotted)
        start = where.template or node
        self.facts.entities.append(self.lines.entity(Label.CLASS, qualname, name[-1], _CLASSES[specifier.type],
                                                     first_line(start), last_line(node), where.parent))
        for base in (c for b in specifier.named_children if b.type == "base_class_clause" for c in b.named_children):
            target = type_name(base)
            if target is not None:
                self.facts.references.append(Reference(qualname, RefKind.INHERIT, tuple(target), first_line(base)))
        return iter(body.named_children), _Where(dotted, qualname, where.internal)

    def definition(self, node: Node, where: _Where) -> None:
        name, function = _definition_name(node)
        if name is None or node.child_by_field_name("body") is None:  # `~T() = default;`, `= delete;`: no body
            return
        dotted = where.under(".".join(name))
        owner = dotted.rpartition(".")[0]
        inside = where.parent is not None and len(name) == 1
        parent = where.parent if inside else (owner if owner in self.classes else None)
        qualname = self.registry.claim(parent, name[-1]) if inside else self.registry.claim(None, dotted)
        member = inside or len(name) > 1
        kind = "constructor" if member and name[-1] == owner.rpartition(".")[2] else "method" if member else "function"
        start = where.template or node
        self.facts.entities.append(self.lines.entity(
            Label.FUNCTION, qualname, name[-1], kind, first_line(start), last_line(node), parent, _params(function)))
        if len(name) > 1 and parent is None:  # a member of a class another file defines, or a namespace's
            self.facts.references.append(
                Reference(qualname, RefKind.MEMBER, tuple(owner.split(".")), first_line(node)))
        if not (where.internal or (_is_static(node) and not inside)):  # a static member has external linkage
            self.facts.exports.append(Export(dotted, local=qualname))
        self.definitions.append((node, qualname))

    def declaration(self, node: Node, where: _Where) -> None:
        """A prototype or a method declared in its class gives its dotted name external linkage; a variable is no
        function to call."""
        internal = where.internal or (_is_static(node) and where.parent is None)
        for declarator in node.children_by_field_name("declarator"):
            function = _function_declarator(declarator)
            if function is None:
                name = declared_name(declarator)
                if name is not None and where.parent is None:
                    self.not_functions.add(name)
                continue
            scoped = scoped_name(function.child_by_field_name("declarator"))
            if scoped is not None and not internal:
                self.facts.exports.append(Export(where.under(".".join(scoped))))

    def include(self, node: Node) -> None:
        path = node.child_by_field_name("path")
        if path is None:
            return
        if path.type == "string_literal":
            module = "".join(text(c) for c in path.named_children if c.type == "string_content")
        elif path.type == "system_lib_string":
            module = text(path)
        else:  # `#include MACRO`
            return
        if module:
            self.facts.imports.append(Import(None, module, "*", "", first_line(node)))

    def calls(self, node: Node, qualname: str) -> None:
        matches = tree_sitter.QueryCursor(_query()).matches(node)
        shadowing: set[str] = set()  # parameters and locals: no function
        typed: dict[str, tuple[list[str], bool]] = {}  # variable -> (its class, whether inferred)
        constructed: list[Reference] = []  # `Foo x(1);`, `Foo x{1};`: calls of the class
        for declaration in (n for _, found in matches for n in found.get("declaration", ())):
            declared = type_name(declaration.child_by_field_name("type"))
            for declarator in declaration.children_by_field_name("declarator"):
                if _function_declarator(declarator) is not None and declaration.type == "declaration":
                    continue  # a local prototype
                name = declared_name(declarator) or _reference_name(declarator)
                if name is None:
                    continue
                shadowing.add(name)
                value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
                if declared is not None:
                    typed[name] = (declared, False)
                    if value is not None and value.type in ("argument_list", "initializer_list"):
                        constructed.append(Reference(qualname, RefKind.CALL, tuple(declared), first_line(declarator),
                                                     value.named_child_count))
                elif value is not None and value.type == "new_expression":  # `auto x = new Foo(…)`
                    made = type_name(value.child_by_field_name("type"))
                    if made is not None:
                        typed[name] = (made, False)
                elif value is not None and (made := _made(value)) is not None:  # `auto x = Foo(…)`: or a function
                    typed[name] = (made, True)
        nested = [(n.start_byte, n.end_byte) for _, found in matches for n in found.get("function", ()) if n != node]
        calls = sorted((found for _, found in matches if "call" in found
                        and not any(start <= found["call"][0].start_byte < end for start, end in nested)),
                       key=lambda f: f["call"][0].start_byte)  # a local class's methods make their own calls
        references = constructed
        for found in calls:
            line = first_line(found["call"][0])
            if "new" in found:
                made = type_name(found["new"][0])
                arguments = found["call"][0].child_by_field_name("arguments")
                if made is not None:
                    references.append(Reference(
                        qualname, RefKind.CALL, tuple(made), line,
                        arguments.named_child_count if arguments is not None else 0))
                continue
            callee, arity = found["callee"][0], found["arguments"][0].named_child_count
            target, inferred = self._target(callee, shadowing, typed)
            if target is not None:
                references.append(Reference(qualname, RefKind.CALL, target, line, arity, inferred))
        self.facts.references.extend(sorted(references, key=lambda reference: reference.line))

    def _target(self, callee: Node, shadowing: set[str], typed: dict[str, tuple[list[str], bool]]
                ) -> tuple[tuple[str, ...] | None, bool]:
        if callee.type == "field_expression":
            receiver, field = callee.child_by_field_name("argument"), callee.child_by_field_name("field")
            method = scoped_name(field)
            if receiver is None or method is None or len(method) != 1:
                return None, False
            if receiver.type == "this":
                return (SELF, method[0]), False
            if receiver.type == "pointer_expression":  # `(*p).m()`
                receiver = receiver.child_by_field_name("argument")
            if receiver is not None and receiver.type == "identifier" and text(receiver) in typed:
                cls, inferred = typed[text(receiver)]
                return (*cls, method[0]), inferred
            return None, False
        name = scoped_name(callee)
        if name is None or (len(name) == 1 and (name[0] in shadowing or name[0] in self.not_functions)):
            return None, False
        return tuple(name), False


def _identifiers(node: Node) -> list[Node]:
    """The identifiers of `a::b` in `namespace a::b {`."""
    if node.type == "namespace_identifier":
        return [node]
    return [n for n in node.named_children if n.type == "namespace_identifier"]


def _reference_name(declarator: Node | None) -> str | None:
    """`Foo& r` / `Foo&& r`: the name a reference declarator declares (C's declarators have none)."""
    while declarator is not None and declarator.type in ("reference_declarator", "init_declarator"):
        inner = declarator.child_by_field_name("declarator")
        declarator = inner if inner is not None else (declarator.named_children[0] if declarator.named_child_count
                                                       else None)
    return declared_name(declarator)


def _made(value: Node) -> list[str] | None:
    """The class `Foo(…)` / `Foo{…}` makes, if `Foo` is a class (it may be a function)."""
    if value.type == "call_expression":
        function = value.child_by_field_name("function")
        if function is not None and function.type in ("identifier", "qualified_identifier", "template_function"):
            return scoped_name(function)
    if value.type == "compound_literal_expression":
        return type_name(value.child_by_field_name("type"))
    return None


@cache
def _query() -> tree_sitter.Query:
    return tree_sitter.Query(language("cpp"), _QUERY)
