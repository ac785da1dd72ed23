"""Java extractor: one file's classes, methods, imports, calls and base types, as `FileFacts`.

Pure and deterministic (`bytes -> FileFacts`). The tree is walked with an explicit stack, so long expression
chains (string concatenations of thousands of terms) cannot exhaust Python's stack.

Receivers of calls are typed from declarations when the file says so: a local variable, parameter, pattern
binding, resource, catch parameter or a field of an enclosing class declared `T x` (or `var x = new T(..)`)
makes `x.m()` a call to `("T", "m")`. Lexical scoping is followed (blocks, `for`, `catch`, lambdas, classes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from indexer.graph_schema import Label
from indexer.languages.treesitter import (
    Node,
    SourceLines,
    count_syntax_errors,
    first_line,
    last_line,
    parse,
    text,
)
from indexer.model import SELF, SUPER, FileFacts, Import, QualnameRegistry, Reference, RefKind

_CLASS_KINDS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "annotation_type_declaration": "annotation",
}
_METHOD_KINDS = {
    "method_declaration": "method",
    "annotation_type_element_declaration": "method",
    "constructor_declaration": "constructor",
    "compact_constructor_declaration": "constructor",
}
# Nodes that open a lexical scope for local declarations.
_SCOPES = {
    "block",
    "constructor_body",
    "for_statement",
    "enhanced_for_statement",
    "catch_clause",
    "try_with_resources_statement",
    "switch_block_statement_group",
    "switch_rule",
}
_COMMENTS = {"line_comment", "block_comment"}
_TYPE_NAMES = {"type_identifier", "scoped_type_identifier"}
_ANNOTATIONS = {"annotation", "marker_annotation"}

Type = tuple[str, ...]  # dotted type name, generics and array dimensions stripped: ("Map", "Entry")


class _Frame:
    """Names declared in one lexical scope, with their type (None: declared, type unknown)."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: _Frame | None, names: dict[str, Type | None] | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Type | None] = names if names is not None else {}

    def lookup(self, name: str) -> tuple[bool, Type | None]:
        frame: _Frame | None = self
        while frame is not None:
            if name in frame.names:
                return True, frame.names[name]
            frame = frame.parent
        return False, None


@dataclass(slots=True)
class _Class:
    qualname: str
    name: str  # simple name as written (`<new T>` for an anonymous class)
    superclass: str | None  # simple name of the `extends` class, for `super(...)`
    fields: dict[str, Type | None] = field(default_factory=dict)


class _Ctx(NamedTuple):
    scope: str | None  # qualname of the innermost enclosing entity
    cls: _Class | None  # innermost enclosing class
    frame: _Frame


def extract(path: str, source: bytes) -> FileFacts:
    root = parse("java", source).root_node
    facts = FileFacts(path=path, language="java", syntax_errors=count_syntax_errors(root))
    _Extractor(facts, SourceLines(source)).run(root)
    return facts


class _Extractor:
    def __init__(self, facts: FileFacts, lines: SourceLines) -> None:
        self.facts = facts
        self.lines = lines
        self.registry = QualnameRegistry()

    # ----------------------------------------------------------------------------------------------- walk
    def run(self, root: Node) -> None:
        stack: list[tuple[Node, _Ctx]] = [(root, _Ctx(None, None, _Frame(None)))]
        while stack:
            node, ctx = stack.pop()
            children = self.visit(node, ctx)
            stack.extend(reversed(children))

    def visit(self, node: Node, ctx: _Ctx) -> list[tuple[Node, _Ctx]]:
        """Record what `node` says; return the children to visit next, each with its context."""
        kind = node.type
        if kind in _CLASS_KINDS:
            return self.class_declaration(node, ctx)
        if kind in _METHOD_KINDS:
            return self.method_declaration(node, ctx)
        if kind == "object_creation_expression":
            return self.object_creation(node, ctx)
        if kind == "enum_constant":
            return self.enum_constant(node, ctx)
        if kind == "method_invocation":
            self.method_invocation(node, ctx)
        elif kind == "explicit_constructor_invocation":
            self.constructor_invocation(node, ctx)
        elif kind == "method_reference":
            self.method_reference(node, ctx)
        elif kind == "lambda_expression":
            return self.lambda_expression(node, ctx)
        elif kind in _SCOPES:
            ctx = ctx._replace(frame=_Frame(ctx.frame))
            if kind == "enhanced_for_statement":
                name = node.child_by_field_name("name")
                if name is not None:
                    ctx.frame.names[text(name)] = _var_type(node.child_by_field_name("type"), None)
        elif kind in ("local_variable_declaration", "resource"):
            _declare(ctx.frame.names, node)
        elif kind == "catch_formal_parameter":
            name = node.child_by_field_name("name")
            types = [c for c in node.named_children if c.type == "catch_type"]
            named = [c for c in types[0].named_children if c.type not in _ANNOTATIONS] if types else []
            if name is not None:
                ctx.frame.names[text(name)] = _type_parts(named[0]) if len(named) == 1 else None
        elif kind == "instanceof_expression":
            name, right = node.child_by_field_name("name"), node.child_by_field_name("right")
            if name is not None:
                ctx.frame.names[text(name)] = _type_parts(right)
        elif kind == "type_pattern":
            named = [c for c in node.named_children if c.type != "modifiers"]
            if len(named) == 2 and named[1].type == "identifier":
                ctx.frame.names[text(named[1])] = _type_parts(named[0])
        elif kind == "package_declaration":
            self.facts.package = next(
                (_dotted(c) for c in node.named_children if c.type in ("identifier", "scoped_identifier")), None
            )
            return []
        elif kind == "import_declaration":
            self.import_declaration(node)
            return []
        return [(c, ctx) for c in node.named_children]

    # ------------------------------------------------------------------------------------------- entities
    def add_entity(
        self, label: Label, node: Node, name: str, kind: str, parent: str | None, params: int | None = None
    ) -> str:
        qualname = self.registry.claim(parent, name)
        self.facts.entities.append(
            self.lines.entity(label, qualname, name, kind, first_line(node), last_line(node), parent, params)
        )
        return qualname

    def class_declaration(self, node: Node, ctx: _Ctx) -> list[tuple[Node, _Ctx]]:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return [(c, ctx) for c in node.named_children]
        name = text(name_node)
        qualname = self.add_entity(Label.CLASS, node, name, _CLASS_KINDS[node.type], ctx.scope)
        superclass = None
        for child in node.named_children:
            if child.type == "superclass":
                bases = [t for t in child.named_children if t.type not in _COMMENTS]
                base = _type_parts(bases[0]) if bases else None
                if base:
                    superclass = base[-1]
                    self.inherit(qualname, base, bases[0])
            elif child.type in ("super_interfaces", "extends_interfaces"):
                for type_list in child.named_children:
                    for t in type_list.named_children if type_list.type == "type_list" else [type_list]:
                        base = _type_parts(t)
                        if base:
                            self.inherit(qualname, base, t)
        cls = _Class(qualname, name, superclass)
        if node.type == "record_declaration":
            params = node.child_by_field_name("parameters")
            if params is not None:
                cls.fields.update(_parameters(params))
        body = node.child_by_field_name("body")
        return self.enter_class(cls, body, ctx)

    def enter_class(self, cls: _Class, body: Node | None, ctx: _Ctx) -> list[tuple[Node, _Ctx]]:
        if body is None:
            return []
        members = list(body.named_children)
        for member in body.named_children:
            if member.type == "enum_body_declarations":
                members.extend(member.named_children)
            elif member.type == "enum_constant":
                constant = member.child_by_field_name("name")
                if constant is not None:
                    cls.fields[text(constant)] = (cls.name,)
        for member in members:
            if member.type in ("field_declaration", "constant_declaration"):
                _declare(cls.fields, member)
        inner = _Ctx(cls.qualname, cls, _Frame(ctx.frame, cls.fields))
        return [(c, inner) for c in body.named_children]

    def method_declaration(self, node: Node, ctx: _Ctx) -> list[tuple[Node, _Ctx]]:
        constructor = _METHOD_KINDS[node.type] == "constructor"
        if constructor and ctx.cls is not None:
            name = ctx.cls.name
        else:
            name_node = node.child_by_field_name("name")
            if name_node is None:
                return [(c, ctx) for c in node.named_children]
            name = text(name_node)
        params = node.child_by_field_name("parameters")
        qualname = self.add_entity(Label.FUNCTION, node, name, _METHOD_KINDS[node.type], ctx.scope, _param_count(params))
        frame = _Frame(ctx.frame)
        if params is not None:
            frame.names.update(_parameters(params))
        body = node.child_by_field_name("body")
        if body is None:
            return []
        return [(body, _Ctx(qualname, ctx.cls, frame))]

    def object_creation(self, node: Node, ctx: _Ctx) -> list[tuple[Node, _Ctx]]:
        type_node = node.child_by_field_name("type")
        target = _type_parts(type_node)
        args = node.child_by_field_name("arguments")
        if target:
            self.call(ctx, target, node, _arity(args))
        body = next((c for c in node.named_children if c.type == "class_body"), None)
        children = [(c, ctx) for c in node.named_children if c != body]
        if body is None:
            return children
        name = f"<new {target[-1] if target else '?'}>"
        qualname = self.add_entity(Label.CLASS, node, name, "class", ctx.scope)
        if target:
            self.inherit(qualname, target, type_node)
        cls = _Class(qualname, name, target[-1] if target else None)
        return children + self.enter_class(cls, body, ctx)

    def enum_constant(self, node: Node, ctx: _Ctx) -> list[tuple[Node, _Ctx]]:
        args = node.child_by_field_name("arguments")
        children = [(args, ctx)] if args is not None else []
        body = node.child_by_field_name("body")
        name_node = node.child_by_field_name("name")
        if body is None or name_node is None:
            return children
        name = text(name_node)
        qualname = self.add_entity(Label.CLASS, node, name, "class", ctx.scope)
        enum = ctx.cls.name if ctx.cls is not None else None
        if enum:
            self.inherit(qualname, (enum,), name_node)
        return children + self.enter_class(_Class(qualname, name, enum), body, ctx)

    def lambda_expression(self, node: Node, ctx: _Ctx) -> list[tuple[Node, _Ctx]]:
        frame = _Frame(ctx.frame)
        params = node.child_by_field_name("parameters")
        if params is not None:
            if params.type == "identifier":
                frame.names[text(params)] = None
            elif params.type == "inferred_parameters":
                frame.names.update((text(p), None) for p in params.named_children if p.type == "identifier")
            else:
                frame.names.update(_parameters(params))
        body = node.child_by_field_name("body")
        return [(body, ctx._replace(frame=frame))] if body is not None else []

    # ------------------------------------------------------------------------------------------- imports
    def import_declaration(self, node: Node) -> None:
        path = next((c for c in node.named_children if c.type in ("identifier", "scoped_identifier")), None)
        if path is None:
            return
        parts = _dotted(path).split(".")
        line = first_line(node)
        if any(c.type == "asterisk" for c in node.named_children):
            self.facts.imports.append(Import(None, ".".join(parts), "*", "", line))
        else:
            self.facts.imports.append(Import(None, ".".join(parts[:-1]), parts[-1], parts[-1], line))

    # ------------------------------------------------------------------------------------------ references
    def call(self, ctx: _Ctx, target: Type, at: Node, arity: int | None) -> None:
        if ctx.scope is None:
            return  # only in broken files: no entity to start an INVOKES edge from
        self.facts.references.append(Reference(ctx.scope, RefKind.CALL, target, first_line(at), arity))

    def inherit(self, scope: str, target: Type, at: Node) -> None:
        self.facts.references.append(Reference(scope, RefKind.INHERIT, target, first_line(at)))

    def method_invocation(self, node: Node, ctx: _Ctx) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        obj = node.child_by_field_name("object")
        arity = _arity(node.child_by_field_name("arguments"))
        name = text(name_node)
        if obj is None:
            prefix: Type | None = ()
        elif any(c.type == "super" and c != obj for c in node.children):
            prefix = _chain(obj)  # `Iface.super.m()`: Iface's m
        else:
            prefix = self.receiver(obj, ctx)
        if prefix is not None:
            self.call(ctx, (*prefix, name), name_node, arity)

    def constructor_invocation(self, node: Node, ctx: _Ctx) -> None:
        which = node.child_by_field_name("constructor")
        cls = ctx.cls
        if which is None or cls is None:
            return
        arity = _arity(node.child_by_field_name("arguments"))
        if which.type == "this":
            self.call(ctx, (SELF, cls.name), node, arity)
        elif which.type == "super" and cls.superclass:
            self.call(ctx, (SUPER, cls.superclass), node, arity)

    def method_reference(self, node: Node, ctx: _Ctx) -> None:
        children = [c for c in node.children if c.type not in _COMMENTS]
        if len(children) < 3:
            return
        receiver, last = children[0], children[-1]
        if last.type == "new":
            if receiver.type == "array_type":
                return
            written = receiver.type in ("identifier", "field_access")
            target = _chain(receiver) if written else _type_parts(receiver)
            if target:
                self.call(ctx, target, node, None)
            return
        if last.type != "identifier":
            return
        if receiver.type in ("generic_type", "scoped_type_identifier", "type_identifier", "array_type"):
            prefix = _type_parts(receiver)
        else:
            prefix = self.receiver(receiver, ctx)
        if prefix:
            self.call(ctx, (*prefix, text(last)), node, None)

    def receiver(self, obj: Node, ctx: _Ctx) -> Type | None:
        """The target prefix a call on `obj` gets; None when the receiver cannot be named (skip the call)."""
        while obj.type == "parenthesized_expression" and obj.named_child_count == 1:
            obj = obj.named_children[0]
        kind = obj.type
        if kind == "this":
            return (SELF,)
        if kind == "super":
            return (SUPER,)
        if kind == "identifier":
            found, declared = ctx.frame.lookup(text(obj))
            return declared if found and declared else (text(obj),)
        if kind in ("object_creation_expression", "cast_expression"):
            return _type_parts(obj.child_by_field_name("type"))
        if kind != "field_access":
            return None
        fields: list[Node] = []
        base = obj
        while base.type == "field_access":
            fields.append(base.child_by_field_name("field"))
            base = base.child_by_field_name("object")
            if base is None or fields[-1] is None:
                return None
        fields.reverse()
        if fields[0].type == "this":  # `Outer.this.m()`
            return _chain(base) if len(fields) == 1 and base.type in ("identifier", "field_access") else None
        if any(f.type != "identifier" for f in fields):
            return None
        if base.type == "this":  # `this.f.m()`: f's declared type if this class declares it, else as written
            declared = ctx.cls.fields.get(text(fields[0])) if len(fields) == 1 and ctx.cls is not None else None
            return declared or (SELF, *(text(f) for f in fields))
        if base.type == "identifier":
            return (text(base), *(text(f) for f in fields))
        return None


# ------------------------------------------------------------------------------------------------- helpers
def _arity(args: Node | None) -> int | None:
    if args is None:
        return None
    return sum(1 for c in args.named_children if c.type not in _COMMENTS)


def _dotted(node: Node) -> str:
    """`a.b.C` from an identifier / scoped_identifier, without whitespace or comments."""
    parts: list[str] = []
    while node is not None and node.type == "scoped_identifier":
        parts.append(text(node.child_by_field_name("name")))
        node = node.child_by_field_name("scope")
    if node is not None:
        parts.append(text(node))
    return ".".join(reversed(parts))


def _chain(node: Node) -> Type | None:
    """`a.b.C` written as identifiers / field accesses, as parts; None for anything else."""
    parts: list[str] = []
    while node.type == "field_access":
        field_node = node.child_by_field_name("field")
        node = node.child_by_field_name("object")
        if field_node is None or field_node.type != "identifier" or node is None:
            return None
        parts.append(text(field_node))
    if node.type != "identifier":
        return None
    parts.append(text(node))
    return tuple(reversed(parts))


def _type_parts(node: Node | None) -> Type | None:
    """("a", "b", "C") for `a.b.C<T>[]`; None for primitives, `var` and anything unrecognised."""
    if node is None:
        return None
    while True:
        if node.type == "annotated_type":
            rest = [c for c in node.named_children if c.type not in _ANNOTATIONS]
            if not rest:
                return None
            node = rest[-1]
        elif node.type == "array_type":
            element = node.child_by_field_name("element")
            if element is None:
                return None
            node = element
        elif node.type == "generic_type":
            base = next((c for c in node.named_children if c.type in _TYPE_NAMES), None)
            if base is None:
                return None
            node = base
        else:
            break
    if node.type == "type_identifier":
        name = text(node)
        return (name,) if name != "var" else None
    if node.type != "scoped_type_identifier":
        return None
    parts: list[str] = []
    while node.type == "scoped_type_identifier":
        named = [c for c in node.named_children if c.type not in _ANNOTATIONS and c.type not in _COMMENTS]
        if len(named) < 2 or named[-1].type != "type_identifier":
            return None
        parts.append(text(named[-1]))
        node = named[0]
        if node.type == "generic_type":  # `Outer<T>.Inner`
            node = next((c for c in node.named_children if c.type != "type_arguments"), node)
            if node.type == "generic_type":
                return None
    if node.type != "type_identifier":
        return None
    parts.append(text(node))
    return tuple(reversed(parts))


def _var_type(type_node: Node | None, value: Node | None) -> Type | None:
    """The declared type; for `var`, the type of a `new T(..)` or `(T) x` initialiser."""
    if type_node is not None and type_node.type == "type_identifier" and text(type_node) == "var":
        while value is not None and value.type == "parenthesized_expression" and value.named_child_count == 1:
            value = value.named_children[0]
        if value is not None and value.type in ("object_creation_expression", "cast_expression"):
            return _type_parts(value.child_by_field_name("type"))
        return None
    return _type_parts(type_node)


def _declare(target: dict[str, Type | None], node: Node) -> None:
    """Bind the names a field / local variable / resource declaration introduces."""
    type_node = node.child_by_field_name("type")
    if node.type == "resource":
        name = node.child_by_field_name("name")
        if name is not None and type_node is not None:
            target[text(name)] = _var_type(type_node, node.child_by_field_name("value"))
        return
    for declarator in node.children_by_field_name("declarator"):
        name = declarator.child_by_field_name("name")
        if name is not None:
            target[text(name)] = _var_type(type_node, declarator.child_by_field_name("value"))


def _parameters(params: Node) -> dict[str, Type | None]:
    """Names and declared types of a method's / record's / lambda's formal parameters."""
    found: dict[str, Type | None] = {}
    for param in params.named_children:
        if param.type == "formal_parameter":
            name = param.child_by_field_name("name")
            if name is not None:
                found[text(name)] = _type_parts(param.child_by_field_name("type"))
        elif param.type == "spread_parameter":  # `T... xs`
            named = [c for c in param.named_children if c.type not in ("modifiers", *_ANNOTATIONS)]
            declarator = next((c for c in named if c.type == "variable_declarator"), None)
            name = declarator.child_by_field_name("name") if declarator is not None else None
            if name is not None:
                found[text(name)] = _type_parts(named[0]) if named[0] is not declarator else None
    return found


def _param_count(params: Node | None) -> int | None:
    """Declared parameters of a method; None for varargs (any count fits) or when there is no list."""
    if params is None:
        return None
    declared = [p for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")]
    return None if any(p.type == "spread_parameter" for p in declared) else len(declared)
