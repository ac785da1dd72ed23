"""Python extractor: classes, functions (methods, nested, decorated), imports, calls and bases of one file.

One compiled tree-sitter query finds the nodes that matter (definitions, imports, calls, assignments) in C;
they are then read in source order with a stack of open definitions, so each lands in its enclosing scope.
Walking every node in Python instead cost more than the parse itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache

import tree_sitter
from spider.core.schema import Label
from spider.indexer.languages.python import LANGUAGE
from spider.indexer.parse.facts import EXPR, SELF, SUPER, FileFacts, Import, QualnameRegistry, Reference, RefKind
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

_SELF_NAMES = frozenset({"self", "cls"})
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*\Z")
_QUERY = """
(decorated_definition) @decorated
(function_definition) @def
(class_definition) @def
(import_statement) @import
(import_from_statement) @import
(call) @call
(assignment) @assign
"""


@cache
def _query() -> tree_sitter.Query:
    return tree_sitter.Query(language("python"), _QUERY)


@dataclass
class _ClassState:
    """`self.x = Foo()` seen in any method, and the `self.x.m()` references to rewrite once the class ends."""

    attr_types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    self_attr_refs: list[int] = field(default_factory=list)  # indexes into FileFacts.references


@dataclass
class _Scope:
    """An open definition: the entity references belong to, and what receiver names are known to be."""

    qualname: str | None = None
    is_class: bool = False
    in_method: bool = False
    local_types: dict[str, tuple[str, ...]] = field(default_factory=dict)  # x = Foo() -> {"x": ("Foo",)}
    cls: _ClassState | None = None  # the class whose methods the walk is in
    end: int = 1 << 62  # end byte of the definition (decorators included)
    params: tuple[int, int] = (0, 0)  # byte range of the parameter list: defaults belong to the enclosing scope


# tree-sitter-python's scanner follows this many levels of indentation (measured: 511 nested blocks parse, 512 do
# not, whatever the indent width); past it the whole file becomes one ERROR node.
SCANNER_INDENT_LEVELS = 511


def indentation_levels(source: bytes) -> int:
    """How deep the source's indentation nests (a stack of indent widths, as Python's tokenizer keeps; lines
    inside brackets or strings are not told apart: it is only asked whether a broken file nests too deep)."""
    widths = [0]
    for line in source.splitlines():
        stripped = line.lstrip(b" \t")
        if not stripped or stripped.startswith(b"#"):
            continue
        width = len(line) - len(stripped)
        while width < widths[-1]:
            widths.pop()
        if width > widths[-1]:
            widths.append(width)
    return len(widths) - 1


def extract(path: str, source: bytes) -> FileFacts:
    tree = parse("python", source)
    facts = FileFacts(path=path, language=LANGUAGE, syntax_errors=count_syntax_errors(tree.root_node))
    facts.nesting_too_deep = bool(facts.syntax_errors) and indentation_levels(source) > SCANNER_INDENT_LEVELS
    _Walker(facts, SourceLines(source)).run(tree.root_node)
    return facts


def dotted_parts(node: Node) -> tuple[str, ...] | None:
    """`a.b.c` -> ("a", "b", "c"); None for anything that is not a plain dotted name."""
    if node.type == "identifier":
        return (text(node),)
    if node.type != "attribute":
        return None
    written = text(node)
    if _DOTTED.match(written):
        return tuple(written.split("."))
    parts: list[str] = []  # spaces, comments or line breaks inside the chain
    while node.type == "attribute":
        parts.append(text(node.child_by_field_name("attribute")))
        node = node.child_by_field_name("object")  # type: ignore[assignment]  # a required field
    return (text(node), *reversed(parts)) if node.type == "identifier" else None


class _Walker:
    def __init__(self, facts: FileFacts, lines: SourceLines) -> None:
        self.facts = facts
        self.lines = lines
        self.names = QualnameRegistry()
        self.stack: list[_Scope] = [_Scope()]

    def run(self, root: Node) -> None:
        captures = tree_sitter.QueryCursor(_query()).captures(root)
        found = sorted(
            ((node.start_byte, -node.end_byte, kind, node) for kind, nodes in captures.items() for node in nodes),
            key=lambda item: item[:3],
        )
        decorated: set[int] = set()
        for start, _, kind, node in found:
            self.close_until(start)
            if kind == "decorated":
                definition = node.child_by_field_name("definition")
                if definition is not None:
                    decorated.add(definition.id)
                    self.definition(definition, node)
            elif kind == "def" and node.id not in decorated:
                self.definition(node, node)
            elif kind == "import":
                self.imports(node, self.stack[-1])
            elif kind == "call":
                self.call(node, self.scope_of(start))
            elif kind == "assign" and not self.stack[-1].is_class:
                self.remember_type(node, self.stack[-1])
        self.close_until(1 << 62)

    def close_until(self, position: int) -> None:
        while len(self.stack) > 1 and self.stack[-1].end <= position:
            closed = self.stack.pop()
            if closed.is_class:
                self.type_self_attributes(closed.cls)  # type: ignore[arg-type]  # a class scope has its state

    def scope_of(self, position: int) -> _Scope:
        top = self.stack[-1]
        if top.params[0] <= position < top.params[1]:
            return self.stack[-2]
        return top

    def definition(self, node: Node, outer: Node) -> None:
        scope = self.stack[-1]
        name = text(node.child_by_field_name("name"))
        is_class = node.type == "class_definition"
        qualname = self.names.claim(scope.qualname, name)
        kind = "class" if is_class else ("method" if scope.is_class else "function")
        self.facts.entities.append(
            self.lines.entity(
                Label.CLASS if is_class else Label.FUNCTION, qualname, name, kind,
                first_line(outer), last_line(outer), scope.qualname,
            )
        )
        params = node.child_by_field_name("parameters")
        inner = _Scope(
            qualname=qualname,
            is_class=is_class,
            in_method=(scope.is_class or scope.in_method) and not is_class,
            local_types=dict(scope.local_types),
            cls=_ClassState() if is_class else scope.cls,
            end=outer.end_byte,
            params=(params.start_byte, params.end_byte) if params is not None else (0, 0),
        )
        if is_class:
            self.bases(node, qualname)
        for decorator in outer.children if outer is not node else ():
            if decorator.type == "decorator":
                self.decorator(decorator, qualname)
        self.stack.append(inner)

    def decorator(self, decorator: Node, qualname: str) -> None:
        """`@name` wraps the function: a call from the decorated entity (`@name(...)` is found as a call)."""
        expr = decorator.named_children[0] if decorator.named_children else None
        parts = dotted_parts(expr) if expr is not None else None
        if parts:
            assert expr is not None  # the parts were read from it
            self.facts.references.append(Reference(qualname, RefKind.CALL, parts, first_line(expr), arity=1))

    def bases(self, class_node: Node, qualname: str) -> None:
        superclasses = class_node.child_by_field_name("superclasses")
        if superclasses is None:
            return
        for arg in superclasses.named_children:
            parts = dotted_parts(arg)
            if parts:
                self.facts.references.append(Reference(qualname, RefKind.INHERIT, parts, first_line(arg)))

    def imports(self, node: Node, scope: _Scope) -> None:
        line = first_line(node)
        add = self.facts.imports.append
        if node.type == "import_statement":
            for item in node.named_children:
                if item.type == "aliased_import":
                    add(Import(scope.qualname, text(item.child_by_field_name("name")), None,
                               text(item.child_by_field_name("alias")), line))
                else:
                    module = text(item)
                    add(Import(scope.qualname, module, None, "", line))  # the IMPORTS edge to a.b.c
                    add(Import(scope.qualname, module.split(".")[0], None, module.split(".")[0], line))
            return
        module = text(node.child_by_field_name("module_name"))
        if any(c.type == "wildcard_import" for c in node.children):
            add(Import(scope.qualname, module, "*", "", line))
            return
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                name, alias = text(item.child_by_field_name("name")), text(item.child_by_field_name("alias"))
            else:
                name = alias = text(item)
            add(Import(scope.qualname, module, name, alias, line))

    def call(self, node: Node, scope: _Scope) -> None:
        if scope.qualname is None:
            return  # module-level calls have no entity to start an INVOKES edge from
        # a call's function is a required field: tree-sitter always gives a node
        target, inferred = self.call_target(node.child_by_field_name("function"), scope)  # type: ignore[arg-type]
        if target:
            args = node.child_by_field_name("arguments")
            arity = args.named_child_count if args is not None and args.type == "argument_list" else None
            if target[0] == SELF and len(target) > 2 and scope.cls is not None:
                scope.cls.self_attr_refs.append(len(self.facts.references))
            self.facts.references.append(
                Reference(scope.qualname, RefKind.CALL, target, first_line(node), arity, inferred)
            )

    def call_target(self, func: Node, scope: _Scope) -> tuple[tuple[str, ...] | None, bool]:
        parts = dotted_parts(func)
        if parts is None:
            if func.type != "attribute":
                return None, False
            obj: Node = func.child_by_field_name("object")  # type: ignore[assignment]  # a required field
            attr = text(func.child_by_field_name("attribute"))
            if obj.type == "call" and text(obj.child_by_field_name("function")) == "super":
                return (SUPER, attr), False
            constructed = _constructed_class(obj)
            if constructed:  # Foo(x).m()
                return (*constructed, attr), True
            return (EXPR, attr), False  # f().m(), a[0].m(): the receiver has no name
        head, rest = parts[0], parts[1:]
        if scope.in_method and head in _SELF_NAMES and rest:
            return (SELF, *rest), False
        if rest and head in scope.local_types:
            return scope.local_types[head] + rest, True
        return parts, False

    def remember_type(self, node: Node, scope: _Scope) -> None:
        """`x = Foo(...)` / `self.x = Foo(...)` with a capitalised callee: later `x.m()` / `self.x.m()` is
        probably `Foo.m` (a heuristic edge)."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        cls = _constructed_class(right)
        if left.type == "identifier":
            if cls:
                scope.local_types[text(left)] = cls
            else:
                scope.local_types.pop(text(left), None)
        elif cls and scope.in_method and scope.cls is not None:
            parts = dotted_parts(left)
            if parts and len(parts) == 2 and parts[0] == "self":
                scope.cls.attr_types.setdefault(parts[1], cls)

    def type_self_attributes(self, cls: _ClassState) -> None:
        """Rewrite the class's `self.x.m()` references now that every `self.x = Foo()` has been seen."""
        refs = self.facts.references
        for index in cls.self_attr_refs:
            ref = refs[index]
            typ = cls.attr_types.get(ref.target[1])
            if typ:
                refs[index] = replace(ref, target=typ + ref.target[2:], inferred=True)


def _constructed_class(node: Node) -> tuple[str, ...] | None:
    if node.type != "call":
        return None
    parts = dotted_parts(node.child_by_field_name("function"))  # type: ignore[arg-type]  # a required field
    if parts and parts[-1][:1].isupper():
        return parts
    return None
