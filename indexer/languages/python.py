"""Python extractor: classes, functions (methods, nested, decorated), imports, calls and bases of one file."""

from __future__ import annotations

from dataclasses import dataclass, field

from indexer.graph_schema import Label
from indexer.languages.treesitter import Node, SourceLines, count_syntax_errors, first_line, last_line, parse, text
from indexer.model import EXPR, SELF, SUPER, FileFacts, Import, QualnameRegistry, Reference, RefKind

_SELF_NAMES = frozenset({"self", "cls"})


@dataclass
class _Scope:
    """Where the walk is: the entity references belong to, and what the receiver names are known to be."""

    qualname: str | None = None
    is_class: bool = False
    in_method: bool = False
    local_types: dict[str, tuple[str, ...]] = field(default_factory=dict)  # x = Foo() -> {"x": ("Foo",)}
    attr_types: dict[str, tuple[str, ...]] = field(default_factory=dict)  # self.x = Foo() in any method


def extract(path: str, source: bytes) -> FileFacts:
    tree = parse("python", source)
    facts = FileFacts(path=path, language="python", syntax_errors=count_syntax_errors(tree.root_node))
    _Walker(facts, SourceLines(source)).block(tree.root_node, _Scope())
    return facts


def dotted_parts(node: Node) -> tuple[str, ...] | None:
    """`a.b.c` -> ("a", "b", "c"); None for anything that is not a plain dotted name."""
    parts: list[str] = []
    while node.type == "attribute":
        parts.append(text(node.child_by_field_name("attribute")))
        node = node.child_by_field_name("object")
    if node.type != "identifier":
        return None
    parts.append(text(node))
    return tuple(reversed(parts))


class _Walker:
    def __init__(self, facts: FileFacts, lines: SourceLines) -> None:
        self.facts = facts
        self.lines = lines
        self.names = QualnameRegistry()

    def block(self, node: Node, scope: _Scope) -> None:
        """Visit children, descending into definitions as new scopes and collecting everything else."""
        stack = list(reversed(node.children))
        while stack:
            child = stack.pop()
            kind = child.type
            if kind == "decorated_definition":
                self.definition(child.child_by_field_name("definition"), child, scope)
            elif kind in ("function_definition", "class_definition"):
                self.definition(child, child, scope)
            elif kind in ("import_statement", "import_from_statement", "future_import_statement"):
                self.imports(child, scope)
            else:
                if kind == "call":
                    self.call(child, scope)
                elif kind == "assignment" and not scope.is_class:
                    self.remember_type(child, scope)
                stack.extend(reversed(child.children))

    def definition(self, node: Node, outer: Node, scope: _Scope) -> None:
        name = text(node.child_by_field_name("name"))
        is_class = node.type == "class_definition"
        qualname = self.names.claim(scope.qualname, name)
        kind = "class" if is_class else ("method" if scope.is_class else "function")
        start, end = first_line(outer), last_line(outer)
        self.facts.entities.append(
            self.lines.entity(Label.CLASS if is_class else Label.FUNCTION, qualname, name, kind, start, end, scope.qualname)
        )
        inner = _Scope(
            qualname=qualname,
            is_class=is_class,
            in_method=(scope.is_class and not is_class) or (scope.in_method and not is_class),
            local_types=dict(scope.local_types),
            attr_types=scope.attr_types if not is_class else {},
        )
        if is_class:
            self.bases(node, qualname)
            inner.attr_types = self.attribute_types(node)
        for decorator in (c for c in outer.children if c.type == "decorator"):
            self.decorator(decorator, inner, scope)
        params = node.child_by_field_name("parameters")
        if params is not None:  # default values are evaluated in the enclosing scope
            self.block(params, scope)
        self.block(node.child_by_field_name("body"), inner)

    def decorator(self, decorator: Node, inner: _Scope, outer: _Scope) -> None:
        """`@name` wraps the function: a call from the decorated entity; `@name(...)` is visited as a call."""
        expr = decorator.named_children[0] if decorator.named_children else None
        if expr is None:
            return
        if expr.type == "call":
            self.block(decorator, _Scope(inner.qualname, local_types=outer.local_types))
            return
        parts = dotted_parts(expr)
        if parts:
            self.facts.references.append(Reference(inner.qualname, RefKind.CALL, parts, first_line(expr), arity=1))

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
        if node.type == "future_import_statement":
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
        target, inferred = self.call_target(node.child_by_field_name("function"), scope)
        if target:
            args = node.child_by_field_name("arguments")
            arity = len(args.named_children) if args is not None and args.type == "argument_list" else None
            self.facts.references.append(
                Reference(scope.qualname, RefKind.CALL, target, first_line(node), arity, inferred)
            )

    def call_target(self, func: Node, scope: _Scope) -> tuple[tuple[str, ...] | None, bool]:
        if func.type == "attribute":
            obj = func.child_by_field_name("object")
            attr = text(func.child_by_field_name("attribute"))
            if obj.type == "call" and text(obj.child_by_field_name("function")) == "super":
                return (SUPER, attr), False
            constructed = _constructed_class(obj)
            if constructed:  # Foo(x).m()
                return (*constructed, attr), True
            if dotted_parts(obj) is None:  # f().m(), a[0].m(): the receiver has no name
                return (EXPR, attr), False
        parts = dotted_parts(func)
        if not parts:
            return None, False
        head, rest = parts[0], parts[1:]
        if scope.in_method and head in _SELF_NAMES and rest:
            if len(rest) >= 2 and rest[0] in scope.attr_types:
                return scope.attr_types[rest[0]] + rest[1:], True
            return (SELF, *rest), False
        if rest and head in scope.local_types:
            return scope.local_types[head] + rest, True
        return parts, False

    def remember_type(self, node: Node, scope: _Scope) -> None:
        """`x = Foo(...)` with a capitalised callee: later `x.m()` is probably `Foo.m` (a heuristic edge)."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return
        cls = _constructed_class(right)
        if cls:
            scope.local_types[text(left)] = cls
        else:
            scope.local_types.pop(text(left), None)

    def attribute_types(self, class_node: Node) -> dict[str, tuple[str, ...]]:
        """`self.x = Foo(...)` anywhere in the class's own methods."""
        types: dict[str, tuple[str, ...]] = {}
        body = class_node.child_by_field_name("body")
        stack = list(body.children)
        while stack:
            node = stack.pop()
            if node.type == "class_definition":
                continue
            if node.type == "assignment":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                parts = dotted_parts(left) if left is not None else None
                cls = _constructed_class(right) if right is not None else None
                if parts and len(parts) == 2 and parts[0] == "self" and cls:
                    types.setdefault(parts[1], cls)
            stack.extend(node.children)
        return types


def _constructed_class(node: Node) -> tuple[str, ...] | None:
    if node.type != "call":
        return None
    parts = dotted_parts(node.child_by_field_name("function"))
    if parts and parts[-1][:1].isupper():
        return parts
    return None
