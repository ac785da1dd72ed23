"""Reading JavaScript / TypeScript syntax nodes as the names, strings and types the walk records."""

from __future__ import annotations

import re
from typing import overload

from spider.indexer.languages.javascript.grammar import DEFINITIONS, FUNCTIONS, WRAPPERS
from spider.indexer.parse.facts import EXPR, SELF, SUPER
from spider.indexer.parse.treesitter import Node, text

_MAX_CALLEE_TEXT = 120  # longer callee texts (they swallow earlier callbacks of a chain) are shortened
NEWLINE_RUN = re.compile(r"\s*\n\s*")


@overload
def unwrap(node: Node) -> Node: ...
@overload
def unwrap(node: Node | None) -> Node | None: ...
def unwrap(node: Node | None) -> Node | None:
    """`(x)`, `x as T`, `x satisfies T` -> x."""
    while node is not None and node.type in WRAPPERS:
        inner = node.named_children[0] if node.named_child_count else None
        if inner is None:
            return node
        node = inner
    return node


def expr_target(member: Node) -> tuple[str, ...] | None:
    """`make().then`, `arr[0].go`: only a repo-unique method name can match."""
    prop, obj = member.child_by_field_name("property"), unwrap(member.child_by_field_name("object"))
    if prop is not None and prop.type == "property_identifier" and obj is not None and obj.type not in DEFINITIONS:
        return (EXPR, text(prop))
    return None


def object_members(obj: Node, prefix: str) -> list[tuple[str, str]]:
    """(key, local binding) of an object literal's members: `{ a }` -> a, `{ b: c }` -> c, `{ m() {} }` and
    `{ k: function () {} }` -> the entity `<prefix>m` the walker names them."""
    members = []
    for prop in obj.named_children:
        if prop.type == "shorthand_property_identifier":
            members.append((text(prop), text(prop)))
        elif prop.type == "method_definition":
            key = key_name(prop.child_by_field_name("name"))
            members.append((key, prefix + key))
        elif prop.type == "pair":
            key, value = key_name(prop.child_by_field_name("key")), unwrap(prop.child_by_field_name("value"))
            if value is not None and value.type == "identifier":
                members.append((key, text(value)))
            elif value is not None and value.type in FUNCTIONS:
                members.append((key, prefix + key))
    return members


def block_body(node: Node) -> bool:
    body = node.child_by_field_name("body")
    return body is not None and body.type == "statement_block"


def last_component(name: str) -> str:
    return name.rsplit(".", 1)[-1] if not name.endswith(")") else name


def string_value(node: Node) -> str:
    if node.type == "string":
        return "".join(text(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence"))
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return text(node)[1:-1]
    return text(node)


def key_name(node: Node | None) -> str:
    """Property key / import-export specifier as a name: `a`, `"a b"` -> `a b`, `#p`, `[Symbol.iterator]`."""
    if node is None:
        return ""
    if node.type == "string":
        return string_value(node)
    return text(node)


def first_string_argument(args: Node | None) -> str | None:
    if args is None or args.type != "arguments":
        return None
    first = next((a for a in args.named_children if a.type != "comment"), None)
    if first is None:
        return None
    if first.type == "string" or (
        first.type == "template_string" and not any(c.type == "template_substitution" for c in first.named_children)
    ):
        return string_value(first)
    return None


def required_module(node: Node | None) -> str | None:
    """`require("m")` -> "m"."""
    if node is None or node.type != "call_expression":
        return None
    func = node.child_by_field_name("function")
    if func is None or func.type != "identifier" or text(func) != "require":
        return None
    return first_string_argument(node.child_by_field_name("arguments"))


def chain(node: Node | None) -> tuple[str, ...] | None:
    """`a.b.c` -> ("a", "b", "c"); `this.m` -> (SELF, "m"); `super.m` -> (SUPER, "m"); else None."""
    parts: list[str] = []
    while node is not None:
        t = node.type
        if t in ("member_expression", "nested_identifier"):
            prop = node.child_by_field_name("property")
            if prop is None or prop.type not in ("property_identifier", "private_property_identifier", "identifier"):
                return None
            parts.append(text(prop))
            node = node.child_by_field_name("object")
        elif t == "non_null_expression":
            node = node.named_children[0] if node.named_child_count else None
        elif t in ("identifier", "type_identifier"):
            parts.append(text(node))
            break
        elif t == "this":
            parts.append(SELF)
            break
        elif t == "super":
            parts.append(SUPER)
            break
        else:
            return None
    else:
        return None
    return tuple(reversed(parts))


def constructed(node: Node | None) -> tuple[str, ...] | None:
    """`new ns.Foo(…)` -> ("ns", "Foo")."""
    if node is None or node.type != "new_expression":
        return None
    return chain(node.child_by_field_name("constructor"))


def type_parts(node: Node | None) -> tuple[str, ...] | None:
    """A base / declared type without generics: `ns.Foo<T>` -> ("ns", "Foo")."""
    if node is None:
        return None
    if node.type == "generic_type":
        node = node.child_by_field_name("name")
        if node is None:
            return None
    if node.type == "nested_type_identifier":
        parts = tuple(p.strip() for p in text(node).split("."))
        return parts if all(parts) else None
    if node.type == "type_identifier":
        return (text(node),)
    return chain(node)


def annotation_parts(annotation: Node | None) -> tuple[str, ...] | None:
    if annotation is None or annotation.type != "type_annotation" or not annotation.named_child_count:
        return None
    return type_parts(annotation.named_children[0])


def parameter_types(function: Node) -> dict[str, tuple[tuple[str, ...], bool]]:
    params = function.child_by_field_name("parameters")
    types: dict[str, tuple[tuple[str, ...], bool]] = {}
    if params is None:
        return types
    for param in params.named_children:
        if param.type in ("required_parameter", "optional_parameter"):
            pattern = param.child_by_field_name("pattern")
            declared = annotation_parts(param.child_by_field_name("type"))
            if pattern is not None and pattern.type == "identifier" and declared:
                types[text(pattern)] = (declared, False)
    return types


def field_types(body: Node) -> dict[str, tuple[str, ...]]:
    """TS `this.x` types: `x: Foo;` fields and `constructor(private x: Foo)` parameter properties."""
    types: dict[str, tuple[str, ...]] = {}
    for member in body.named_children:
        if member.type == "public_field_definition":
            name = member.child_by_field_name("name")
            declared = annotation_parts(member.child_by_field_name("type"))
            if name is not None and declared:
                types.setdefault(text(name), declared)
        elif member.type == "method_definition" and text(member.child_by_field_name("name")) == "constructor":
            params = member.child_by_field_name("parameters")
            for param in params.named_children if params is not None else ():
                if param.type not in ("required_parameter", "optional_parameter"):
                    continue
                if not any(c.type in ("accessibility_modifier", "readonly") for c in param.children):
                    continue
                pattern = param.child_by_field_name("pattern")
                declared = annotation_parts(param.child_by_field_name("type"))
                if pattern is not None and pattern.type == "identifier" and declared:
                    types.setdefault(text(pattern), declared)
    return types


def declared_names(declaration: Node) -> list[str]:
    """Names an `export <declaration>` binds."""
    t = declaration.type
    if t in ("lexical_declaration", "variable_declaration"):
        names = []
        for declarator in declaration.named_children:
            name = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
            if name is not None and name.type == "identifier":
                names.append(text(name))
        return names
    if t == "ambient_declaration":  # export declare function f(): void;  export declare class C {}
        return [n for c in declaration.named_children for n in declared_names(c)]
    name = declaration.child_by_field_name("name")
    if name is not None and name.type in ("identifier", "type_identifier", "nested_identifier"):
        return [text(name)]
    return []


def callee_name(callee: Node) -> str:
    """The callee as written (`utils.forEach`, `$(document).ready`); a long one, or one that swallowed earlier
    callbacks of a chain, without its arguments: `fetch().then().then`."""
    callee = unwrap(callee) or callee
    if callee.type in DEFINITIONS:  # UMD: (function (root, factory) {…})(this, function () {…})
        return "<anonymous>"
    if callee.end_byte - callee.start_byte <= _MAX_CALLEE_TEXT:
        written = NEWLINE_RUN.sub("", text(callee))
        if not any(marker in written for marker in ("{", "=>", "function", "class")):
            return written
    pieces: list[str] = []
    node: Node | None = callee
    for _ in range(50):
        if node is None:
            break
        t = node.type
        if t == "member_expression":
            pieces.append("." + text(node.child_by_field_name("property")))
            node = node.child_by_field_name("object")
        elif t == "call_expression":
            pieces.append("()")
            node = node.child_by_field_name("function")
        elif t == "subscript_expression":
            pieces.append("[]")
            node = node.child_by_field_name("object")
        elif t in WRAPPERS or t == "non_null_expression":
            node = node.named_children[0] if node.named_child_count else None
        elif t in ("identifier", "this", "super", "import"):
            pieces.append(text(node))
            node = None
            break
        else:
            break
    if node is not None:
        pieces.append("<anonymous>")
    return "".join(reversed(pieces))
