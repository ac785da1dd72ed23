"""JavaScript / TypeScript extractor: classes, functions (however they are bound), imports, exports, calls, bases.

One walk over the tree (an explicit stack: minified and generated code nests deeper than Python's recursion limit)
that never asks a node for its parent (`Node.parent` searches from the root in tree-sitter >= 0.22, quadratic on
one-line files). A parent that knows how its child function will be called (`const f = () => {}`, `proto.tz =
function`, `{ key() {} }`, `utils.forEach(obj, function () {})`, an IIFE, `export default`) passes that name
down with the child as a hint.

Naming follows how JS benchmarks name functions: the declaration name, the variable, the assignment target as
written (`proto.tz`, `module.exports`), the object key prefixed by the object's variable (`expressions.MMM`),
`default` for an anonymous default export, `<anonymous>` for an IIFE, and the callee plus "()" for a block-bodied
callback (`utils.forEach()`); anything nested is prefixed by its parent's qualname. Bodiless TypeScript
declarations (overloads, `declare`, abstract and interface methods, all of a `.d.ts`) make no Function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexer.graph_schema import Label
from indexer.languages.treesitter import Node, SourceLines, count_syntax_errors, first_line, last_line, parse, text
from indexer.model import EXPR, SELF, SUPER, Export, FileFacts, Import, QualnameRegistry, Reference, RefKind

_FUNCTIONS = frozenset({
    "function_declaration", "generator_function_declaration", "function_expression", "function",
    "generator_function", "arrow_function",
})  # fmt: skip
_CLASSES = frozenset({
    "class_declaration", "class", "abstract_class_declaration", "interface_declaration", "enum_declaration",
})  # fmt: skip
_DEFINITIONS = _FUNCTIONS | _CLASSES
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression"})
_LEAVES = frozenset({
    "identifier", "property_identifier", "private_property_identifier", "shorthand_property_identifier",
    "type_identifier", "string", "number", "regex", "comment", "true", "false", "null", "undefined", "this",
    "super", "predefined_type", "type_annotation", "type_arguments", "type_parameters", "statement_identifier",
    "jsx_text", "hash_bang_line", "html_comment", "escape_sequence", "string_fragment",
})  # fmt: skip
_MAX_CALLEE_TEXT = 120  # longer callee texts (they swallow earlier callbacks of a chain) are shortened
_NEWLINE_RUN = re.compile(r"\s*\n\s*")


def extract(path: str, source: bytes) -> FileFacts:
    lower = path.lower()
    if lower.endswith(".tsx"):
        grammar = "tsx"
    elif lower.endswith((".ts", ".mts", ".cts")):
        grammar = "typescript"
    else:
        grammar = "javascript"
    tree = parse(grammar, source)
    root = tree.root_node
    facts = FileFacts(
        path=path,
        language="javascript" if grammar == "javascript" else "typescript",
        syntax_errors=count_syntax_errors(root),
    )
    declaration_file = lower.endswith((".d.ts", ".d.mts", ".d.cts")) or re.search(r"\.d\.[^/]*\.ts$", lower)
    _Walker(facts, SourceLines(source)).run(root, ambient=bool(declaration_file))
    return facts


# --------------------------------------------------------------------------------------------------- the walk


@dataclass(slots=True)
class _Ctx:
    """Where the walk is."""

    scope: str | None  # qualname of the innermost entity: parent of new entities, scope of references
    prefix: str = ""  # TS namespaces since that entity: "NS." (claimed names get it)
    types: dict[str, tuple[tuple[str, ...], bool]] = field(default_factory=dict)  # x -> (("Foo",), inferred)
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)  # this.x -> declared type (TS)
    module_level: bool = True  # ESM exports count here (not inside a TS namespace / ambient module)
    ambient: bool = False  # .d.ts: no Function entities


@dataclass(frozen=True, slots=True)
class _Name:
    """What a parent tells its function/class child: how it is named and where its span is."""

    claim: str | None  # name to claim under the scope (may be dotted); None: the node's own `name`
    display: str | None  # Entity.name; None: last component of `claim`
    start: int
    end: int
    kind: str | None = None  # None: by node type
    extra: tuple[Node, ...] = ()  # decorators outside the node, visited in the entity's scope


_OBJ, _DECL, _STMT, _REQUIRE = "obj", "decl", "stmt", "require"


class _Walker:
    def __init__(self, facts: FileFacts, lines: SourceLines) -> None:
        self.facts = facts
        self.lines = lines
        self.names = QualnameRegistry()
        self.bound: dict[tuple[str | None, str], str] = {}  # (scope, claimed name) -> qualname, first wins
        self.exports: list[tuple[str | None, Export]] = []
        self.stack: list[tuple[Node, _Ctx, object]] = []

    # ---- driver

    def run(self, root: Node, ambient: bool) -> None:
        stack = self.stack
        stack.append((root, _Ctx(None, ambient=ambient), None))
        handlers = _HANDLERS
        while stack:
            node, ctx, hint = stack.pop()
            handler = handlers.get(node.type)
            if handler is not None:
                handler(self, node, ctx, hint)
            else:
                self.children(node, ctx)
        self.finish_exports()

    def children(self, node: Node, ctx: _Ctx) -> None:
        leaves = _LEAVES
        self.stack.extend((c, ctx, None) for c in reversed(node.named_children) if c.type not in leaves)

    def push(self, items: list[tuple[Node, _Ctx, object]]) -> None:
        self.stack.extend(reversed(items))

    def leaf(self, node: Node, ctx: _Ctx, hint: object) -> None:
        pass

    # ---- entities

    def entity(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """A function or class node: an entity when it has a name (its own or its parent's) and a body."""
        t = node.type
        is_class = t in _CLASSES
        name_hint = hint if isinstance(hint, _Name) else None
        body = node.child_by_field_name("body")
        if t != "arrow_function" and not is_class and body is not None and body.type != "statement_block":
            body = None  # error recovery
        if body is None or (ctx.ambient and not is_class):
            self.children(node, ctx)
            return
        claim = name_hint.claim if name_hint is not None else None
        if claim is None:
            own = node.child_by_field_name("name")
            claim = text(own) if own is not None and own.type in ("identifier", "type_identifier") else ""
        if not claim:  # an anonymous function whose role the parent did not know: part of the enclosing entity
            self.children(node, ctx)
            return
        display = (name_hint.display if name_hint is not None else None) or _last_component(claim)
        if is_class:
            kind = {"interface_declaration": "interface", "enum_declaration": "enum"}.get(t, "class")
        else:
            kind = "function"
        if name_hint is not None and name_hint.kind:
            kind = name_hint.kind
        start = name_hint.start if name_hint is not None else first_line(node)
        end = name_hint.end if name_hint is not None else last_line(node)
        start, end = min(start, first_line(node)), max(end, last_line(node))
        qualname = self.define(Label.CLASS if is_class else Label.FUNCTION, ctx, claim, display, kind, start, end)
        if is_class:
            inner = _Ctx(qualname, types={}, fields=_field_types(body), module_level=ctx.module_level,
                         ambient=ctx.ambient)  # fmt: skip
            self.heritage(node, qualname)
        else:
            inner = _Ctx(qualname, types=_parameter_types(node), fields=ctx.fields,
                         module_level=ctx.module_level, ambient=ctx.ambient)  # fmt: skip
        items = [(n, inner, None) for n in (name_hint.extra if name_hint is not None else ())]
        items.extend((c, inner, None) for c in node.named_children if c.type not in _LEAVES)
        self.push(items)

    def define(self, label: Label, ctx: _Ctx, claim: str, display: str, kind: str, start: int, end: int) -> str:
        name = ctx.prefix + claim
        qualname = self.names.claim(ctx.scope, name)
        self.bound.setdefault((ctx.scope, name), qualname)
        self.facts.entities.append(self.lines.entity(label, qualname, display, kind, start, end, ctx.scope))
        return qualname

    def method(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """`method_definition` in a class body or an object literal."""
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if body is None or name_node is None or ctx.ambient:
            self.children(node, ctx)
            return
        if isinstance(hint, _Name):
            claim, start, kind, extra = hint.claim or _key_name(name_node), hint.start, hint.kind, hint.extra
        else:
            claim, start, kind, extra = _key_name(name_node), first_line(node), "method", ()
        display = _key_name(name_node)
        start = min(start, first_line(node))
        qualname = self.define(Label.FUNCTION, ctx, claim, display, kind or "method", start, last_line(node))
        inner = _Ctx(qualname, types=_parameter_types(node), fields=ctx.fields, module_level=ctx.module_level)
        items = [(n, inner, None) for n in extra]
        items.extend((c, inner, None) for c in node.named_children if c.type not in _LEAVES and c != name_node)
        if name_node.type == "computed_property_name":
            items.append((name_node, ctx, None))
        self.push(items)

    def class_body(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """Members: methods, constructor, accessors, field arrow functions; TS member decorators are siblings."""
        items: list[tuple[Node, _Ctx, object]] = []
        decorators: list[Node] = []
        for member in node.named_children:
            t = member.type
            if t == "decorator":
                decorators.append(member)
                continue
            start = first_line(decorators[0]) if decorators else first_line(member)
            if t == "method_definition":
                name = _key_name(member.child_by_field_name("name"))
                kind = "constructor" if name == "constructor" else "method"
                items.append((member, ctx, _Name(name, name, start, last_line(member), kind, tuple(decorators))))
            elif t in ("field_definition", "public_field_definition"):
                key = member.child_by_field_name("property") or member.child_by_field_name("name")
                value = _unwrap(member.child_by_field_name("value"))
                if key is not None and value is not None and value.type in _DEFINITIONS:
                    name = _key_name(key)
                    extra = tuple(decorators) + tuple(c for c in member.named_children if c.type == "decorator")
                    kind = "method" if value.type in _FUNCTIONS else None
                    items.append((value, ctx, _Name(name, name, start, last_line(member), kind, extra)))
                    if key.type == "computed_property_name":
                        items.append((key, ctx, None))
                else:
                    items.extend((d, ctx, None) for d in decorators)
                    items.append((member, ctx, None))
            else:
                items.extend((d, ctx, None) for d in decorators)
                items.append((member, ctx, None))
            decorators = []
        items.extend((d, ctx, None) for d in decorators)
        self.push(items)

    def object(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """Object literal: `key: function`, `key: () =>`, `key() {}` become `<object variable>.key` entities."""
        prefix = hint[1] if isinstance(hint, tuple) and hint[0] == _OBJ else ""
        items: list[tuple[Node, _Ctx, object]] = []
        for member in node.named_children:
            t = member.type
            if t == "pair":
                key, value = member.child_by_field_name("key"), _unwrap(member.child_by_field_name("value"))
                if key is not None and key.type == "computed_property_name":
                    items.append((key, ctx, None))
                if value is None:
                    continue
                name = _key_name(key) if key is not None else ""
                if name and value.type in _DEFINITIONS:
                    items.append((value, ctx, _Name(prefix + name, name, first_line(member), last_line(member))))
                elif name and value.type == "object":
                    items.append((value, ctx, (_OBJ, prefix + name + ".")))
                elif value.type not in _LEAVES:
                    items.append((value, ctx, None))
            elif t == "method_definition":
                name = _key_name(member.child_by_field_name("name"))
                items.append((member, ctx, _Name(prefix + name, name, first_line(member), last_line(member), "method")))
            elif t not in _LEAVES:
                items.append((member, ctx, None))
        self.push(items)

    def heritage(self, node: Node, qualname: str) -> None:
        add = self.facts.references.append
        for child in node.named_children:
            if child.type == "class_heritage":
                for part in child.named_children:
                    if part.type == "extends_clause":
                        targets = part.children_by_field_name("value")
                    elif part.type == "implements_clause":
                        targets = part.named_children
                    else:  # JavaScript: the expression itself
                        targets = [part]
                    for target in targets:
                        parts = _type_parts(target)
                        if parts:
                            add(Reference(qualname, RefKind.INHERIT, parts, first_line(target)))
            elif child.type == "extends_type_clause":  # interface I extends A, B
                for target in child.children_by_field_name("type"):
                    parts = _type_parts(target)
                    if parts:
                        add(Reference(qualname, RefKind.INHERIT, parts, first_line(target)))

    # ---- declarations and assignments

    def declaration(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """`const|let|var a = …, b = …`: the whole statement (with `export`) is each function's span."""
        if isinstance(hint, _Name):
            start, end = hint.start, hint.end
        else:
            start, end = first_line(node), last_line(node)
        self.push([(c, ctx, (_DECL, start, end)) if c.type == "variable_declarator" else (c, ctx, None)
                   for c in node.named_children if c.type not in _LEAVES])  # fmt: skip

    def declarator(self, node: Node, ctx: _Ctx, hint: object) -> None:
        if isinstance(hint, tuple) and hint[0] == _DECL:
            start, end = hint[1], hint[2]
        else:
            start, end = first_line(node), last_line(node)
        name_node = node.child_by_field_name("name")
        raw_value = node.child_by_field_name("value")
        value = _unwrap(raw_value)
        items: list[tuple[Node, _Ctx, object]] = []
        if name_node is None:
            self.children(node, ctx)
            return
        is_identifier = name_node.type == "identifier"
        name = text(name_node) if is_identifier else ""
        if is_identifier:
            declared = _annotation_parts(node.child_by_field_name("type"))
            constructed = _constructed(value)
            if declared:
                ctx.types[name] = (declared, False)
            elif constructed:
                ctx.types[name] = (constructed, True)
            else:
                ctx.types.pop(name, None)
        else:
            items.append((name_node, ctx, None))  # defaults inside a destructuring pattern
        if value is None:
            pass
        elif value.type in _DEFINITIONS and is_identifier:
            items.append((value, ctx, _Name(name, name, start, end)))
        elif value.type == "object" and is_identifier:
            items.append((value, ctx, (_OBJ, name + ".")))
        elif (module := _require(value)) is not None:
            self.require_binding(name_node, module, None, first_line(node), ctx)
            items.append((value, ctx, _REQUIRE))
        elif value.type == "member_expression" and (module := _require(value.child_by_field_name("object"))):
            prop = value.child_by_field_name("property")
            self.require_binding(name_node, module, text(prop), first_line(node), ctx)
            items.append((value.child_by_field_name("object"), ctx, _REQUIRE))
        elif value.type not in _LEAVES:
            items.append((value, ctx, None))
        self.push(items)

    def require_binding(self, pattern: Node, module: str, member: str | None, line: int, ctx: _Ctx) -> None:
        """`const x = require(m)`, `const {a, b: c} = require(m)`, `const x = require(m).y`."""
        add = self.facts.imports.append
        if pattern.type == "identifier":
            add(Import(ctx.scope, module, member, text(pattern), line))
        elif pattern.type == "object_pattern" and member is None:
            for prop in pattern.named_children:
                if prop.type == "shorthand_property_identifier_pattern":
                    add(Import(ctx.scope, module, text(prop), text(prop), line))
                elif prop.type == "object_assignment_pattern":
                    left = prop.child_by_field_name("left")
                    if left is not None and left.type == "shorthand_property_identifier_pattern":
                        add(Import(ctx.scope, module, text(left), text(left), line))
                elif prop.type == "pair_pattern":
                    key, val = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                    if val is not None and val.type == "assignment_pattern":
                        val = val.child_by_field_name("left")
                    if key is not None and val is not None and val.type == "identifier":
                        add(Import(ctx.scope, module, _key_name(key), text(val), line))
        else:
            add(Import(ctx.scope, module, None, "", line))

    def statement(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """expression_statement: an assignment in it spans the whole statement."""
        items = []
        for c in node.named_children:
            if c.type == "assignment_expression":
                items.append((c, ctx, (_STMT, first_line(node), last_line(node))))
            elif c.type not in _LEAVES:
                items.append((c, ctx, None))
        self.push(items)

    def assignment(self, node: Node, ctx: _Ctx, hint: object) -> None:
        if isinstance(hint, tuple) and hint[0] == _STMT:
            start, end = hint[1], hint[2]
        else:
            start, end = first_line(node), last_line(node)
        left, right = node.child_by_field_name("left"), _unwrap(node.child_by_field_name("right"))
        if left is None or right is None:
            self.children(node, ctx)
            return
        items: list[tuple[Node, _Ctx, object]] = []
        if left.type == "identifier":
            target = text(left)
            if cls := _constructed(right):
                ctx.types[target] = (cls, True)
            elif not (target in ctx.types and not ctx.types[target][1]):  # a declared type survives
                ctx.types.pop(target, None)
        elif left.type in ("member_expression", "subscript_expression"):
            target = _NEWLINE_RUN.sub("", text(left)) if left.end_byte - left.start_byte < 400 else ""
            items.append((left, ctx, None))
        else:
            target = ""
            items.append((left, ctx, None))
        if target:
            self.commonjs_export(left, right, target, ctx)
        if target and right.type in _DEFINITIONS:
            display = text(left.child_by_field_name("property")) if left.type == "member_expression" else None
            items.append((right, ctx, _Name(target, display or None, start, end)))
        elif target and right.type == "object":
            items.append((right, ctx, (_OBJ, target + ".")))
        elif right.type not in _LEAVES:
            items.append((right, ctx, None))
        self.push(items)

    def commonjs_export(self, left: Node, right: Node, target: str, ctx: _Ctx) -> None:
        parts = _chain(left)
        if not parts:
            return
        if parts == ("module", "exports"):
            if right.type == "identifier":
                self.export(ctx, Export("default", local=text(right)))
            elif right.type in _DEFINITIONS:
                self.export(ctx, Export("default", local=target))
            elif right.type == "object":
                for member in right.named_children:
                    if member.type == "shorthand_property_identifier":
                        self.export(ctx, Export(text(member), local=text(member)))
                    elif member.type in ("pair", "method_definition"):
                        key = member.child_by_field_name("key") or member.child_by_field_name("name")
                        value = _unwrap(member.child_by_field_name("value")) if member.type == "pair" else member
                        if key is None or key.type == "computed_property_name":
                            continue
                        name = _key_name(key)
                        if value is None:
                            continue
                        if value.type == "identifier":
                            self.export(ctx, Export(name, local=text(value)))
                        elif value.type in _DEFINITIONS or value.type == "method_definition":
                            self.export(ctx, Export(name, local=f"module.exports.{name}"))
                        else:
                            self.export(ctx, Export(name))
            elif (module := _require(right)) is not None:
                self.export(ctx, Export("*", module=module, imported="*"))
            else:
                self.export(ctx, Export("default"))
        elif len(parts) == 2 and parts[0] == "exports" or len(parts) == 3 and parts[:2] == ("module", "exports"):
            name = parts[-1]
            if right.type == "identifier":
                self.export(ctx, Export(name, local=text(right)))
            elif right.type in _DEFINITIONS:
                self.export(ctx, Export(name, local=target))
            else:
                self.export(ctx, Export(name))

    # ---- modules

    def import_statement(self, node: Node, ctx: _Ctx, hint: object) -> None:
        source = node.child_by_field_name("source")
        module = _string_value(source) if source is not None else None
        line = first_line(node)
        add = self.facts.imports.append
        bound = False
        for child in node.named_children:
            if child.type == "import_clause":
                for part in child.named_children:
                    if part.type == "identifier":
                        bound = True
                        if module is not None:
                            add(Import(ctx.scope, module, "default", text(part), line))
                    elif part.type == "namespace_import":
                        alias = next((text(c) for c in part.named_children if c.type == "identifier"), "")
                        bound = True
                        if module is not None:
                            add(Import(ctx.scope, module, None, alias, line))
                    elif part.type == "named_imports":
                        bound = True
                        for spec in part.named_children:
                            if spec.type != "import_specifier":
                                continue
                            name_node = spec.child_by_field_name("name")
                            alias_node = spec.child_by_field_name("alias") or name_node
                            if module is not None and name_node is not None:
                                add(Import(ctx.scope, module, _key_name(name_node), _key_name(alias_node), line))
            elif child.type == "import_require_clause":  # TS: import x = require("m")
                bound = True
                alias = next((text(c) for c in child.named_children if c.type == "identifier"), "")
                src = child.child_by_field_name("source")
                if src is not None:
                    add(Import(ctx.scope, _string_value(src), None, alias, line))
        if not bound and module is not None:
            add(Import(ctx.scope, module, None, "", line))

    def export_statement(self, node: Node, ctx: _Ctx, hint: object) -> None:
        start, end = first_line(node), last_line(node)
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        source = node.child_by_field_name("source")
        module = _string_value(source) if source is not None else None
        decorators = tuple(c for c in node.named_children if c.type == "decorator")
        is_default = any(c.type == "default" for c in node.children)
        items: list[tuple[Node, _Ctx, object]] = []
        if declaration is not None:
            items.append((declaration, ctx, _Name(None, None, start, end, None, decorators)))
            decorators = ()
            for name in _declared_names(declaration):
                self.export(ctx, Export("default" if is_default else name, local=name))
        elif is_default and value is not None:
            inner = _unwrap(value)
            if inner.type == "identifier":
                self.export(ctx, Export("default", local=text(inner)))
            elif inner.type in _DEFINITIONS:
                own = inner.child_by_field_name("name")
                claim = text(own) if own is not None else "default"
                items.append((inner, ctx, _Name(claim, claim, start, end, None, decorators)))
                decorators = ()
                self.export(ctx, Export("default", local=claim))
            elif inner.type == "object":  # `export default { a, b: c, m() {} }`: the module is the namespace
                items.append((inner, ctx, (_OBJ, "default.")))
                self.export(ctx, Export("default"))
                for key, local in _object_members(inner, "default."):
                    self.export(ctx, Export(key, local=local))
            else:
                items.append((inner, ctx, None))
                self.export(ctx, Export("default"))
        else:
            equals = any(c.type == "=" for c in node.children)  # TS: export = X
            for child in node.named_children:
                if child.type == "export_clause":
                    for spec in child.named_children:
                        if spec.type != "export_specifier":
                            continue
                        name_node = spec.child_by_field_name("name")
                        alias_node = spec.child_by_field_name("alias") or name_node
                        if name_node is None:
                            continue
                        name, alias = _key_name(name_node), _key_name(alias_node)
                        if module is not None:
                            self.export(ctx, Export(alias, module=module, imported=name))
                        else:
                            self.export(ctx, Export(alias, local=name))
                elif child.type == "namespace_export":
                    alias = next((_key_name(c) for c in child.named_children), "")
                    if module is not None and alias:
                        self.export(ctx, Export(alias, module=module, imported=None))
                elif equals and child.type not in ("decorator", "string"):
                    inner = _unwrap(child)
                    if inner.type == "identifier":
                        self.export(ctx, Export("default", local=text(inner)))
                    else:
                        self.export(ctx, Export("default"))
                        items.append((inner, ctx, None))
            if module is not None and any(c.type == "*" for c in node.children) and not any(
                c.type == "namespace_export" for c in node.named_children
            ):
                self.export(ctx, Export("*", module=module, imported="*"))
        items[:0] = [(d, ctx, None) for d in decorators]
        self.push(items)

    def export(self, ctx: _Ctx, export: Export) -> None:
        if ctx.module_level:
            self.exports.append((ctx.scope, export))

    def finish_exports(self) -> None:
        """Point `local` at the entity's qualname (a duplicate name may be `f#2`, a CommonJS export in an IIFE
        `<anonymous>.f`); names that are no entity (constants, imports) stay as written."""
        seen: set[Export] = set()
        for scope, export in self.exports:
            if export.local is not None:
                qualname = self.bound.get((scope, export.local)) or self.bound.get((None, export.local))
                if qualname is not None and qualname != export.local:
                    export = Export(export.name, qualname, export.module, export.imported)
            if export not in seen:
                seen.add(export)
                self.facts.exports.append(export)

    def namespace(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """TS `namespace A.B {}` / `module M {}`: no entity, but prefixes what is inside; `declare module "m"`
        and `declare global` do not."""
        name = node.child_by_field_name("name")
        prefix = ctx.prefix
        if name is not None and name.type in ("identifier", "nested_identifier"):
            prefix += "".join(text(name).split()) + "."
        inner = _Ctx(ctx.scope, prefix, ctx.types, ctx.fields, module_level=False, ambient=ctx.ambient)
        self.push([(c, inner, None) for c in node.named_children if c.type not in _LEAVES and c != name])

    def ambient(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """`declare …`: bodiless by definition; `declare global {}` exports nothing from this module."""
        is_global = any(c.type == "global" for c in node.children)
        inner = ctx
        if is_global:
            inner = _Ctx(ctx.scope, ctx.prefix, ctx.types, ctx.fields, module_level=False, ambient=ctx.ambient)
        self.children(node, inner)

    # ---- calls

    def call(self, node: Node, ctx: _Ctx, hint: object) -> None:
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if func is None:
            self.children(node, ctx)
            return
        if hint == _REQUIRE:
            return
        items: list[tuple[Node, _Ctx, object]] = []
        if func.type == "import" or (func.type == "identifier" and text(func) == "require"):
            module = _first_string_argument(args)
            if module is not None:
                self.facts.imports.append(Import(ctx.scope, module, None, "", first_line(node)))
                return
        else:
            self.reference(ctx, func, args, first_line(node), constructor=False)
            inner = _unwrap(func)
            if inner.type in _DEFINITIONS:  # IIFE: (function () {…})(), !function () {…}()
                items.append((inner, ctx, _Name("<anonymous>", "<anonymous>", first_line(inner), last_line(inner))))
            elif (
                inner.type == "member_expression"
                and (obj := _unwrap(inner.child_by_field_name("object"))).type in _FUNCTIONS
                and text(inner.child_by_field_name("property")) in ("call", "apply")
            ):  # (function () {…}).call(this)
                items.append((obj, ctx, _Name("<anonymous>", "<anonymous>", first_line(obj), last_line(obj))))
            elif inner.type not in _LEAVES:
                items.append((inner, ctx, None))
        if args is not None:
            items.extend(self.arguments(func, args, ctx))
        self.push(items)

    def new(self, node: Node, ctx: _Ctx, hint: object) -> None:
        ctor = node.child_by_field_name("constructor")
        args = node.child_by_field_name("arguments")
        items: list[tuple[Node, _Ctx, object]] = []
        if ctor is not None:
            self.reference(ctx, ctor, args, first_line(node), constructor=True)
            if ctor.type not in _LEAVES:
                items.append((ctor, ctx, None))
            if args is not None:
                items.extend(self.arguments(ctor, args, ctx))
        self.push(items)

    def arguments(self, callee: Node, args: Node, ctx: _Ctx) -> list[tuple[Node, _Ctx, object]]:
        """Block-bodied callbacks become `<callee>()` entities; expression-bodied arrows stay in the caller."""
        items: list[tuple[Node, _Ctx, object]] = []
        name = None
        for arg in args.named_children:
            inner = _unwrap(arg)
            t = inner.type
            if t in _DEFINITIONS and (t in _CLASSES or t != "arrow_function" or _block_body(inner)):
                if name is None:
                    name = _callee_name(callee) + "()"
                items.append((inner, ctx, _Name(name, name, first_line(inner), last_line(inner))))
            elif t not in _LEAVES:
                items.append((inner, ctx, None))
        return items

    def reference(self, ctx: _Ctx, func: Node, args: Node | None, line: int, constructor: bool) -> None:
        if func.type == "super" and not constructor:
            target: tuple[str, ...] | None = (SUPER, "constructor")
        else:
            target = _chain(func)
        member = _unwrap(func)
        if not target and member is not None and member.type == "member_expression" and not constructor:
            prop, obj = member.child_by_field_name("property"), _unwrap(member.child_by_field_name("object"))
            if prop is not None and prop.type == "property_identifier" and obj is not None and obj.type not in _DEFINITIONS:
                target = (EXPR, text(prop))  # make().then(), arr[0].go(): only a repo-unique method name can match
        if not target:
            return
        inferred = False
        if len(target) >= 2 and target[0] in ctx.types:
            typ, inferred = ctx.types[target[0]]
            target = typ + target[1:]
        elif len(target) >= 3 and target[0] == SELF and target[1] in ctx.fields:
            target = ctx.fields[target[1]] + target[2:]
        if args is None:
            arity: int | None = 0 if constructor else None
        elif args.type == "arguments":
            arity = sum(1 for a in args.named_children if a.type != "comment")
        else:  # tagged template
            arity = None
        self.facts.references.append(Reference(ctx.scope, RefKind.CALL, target, line, arity, inferred))

    def decorator(self, node: Node, ctx: _Ctx, hint: object) -> None:
        """`@dec` wraps the entity: a call from it (like the Python extractor); `@dec(...)` is a call anyway."""
        expr = node.named_children[0] if node.named_child_count else None
        if expr is not None and expr.type in ("identifier", "member_expression"):
            target = _chain(expr)
            if target:
                self.facts.references.append(Reference(ctx.scope, RefKind.CALL, target, first_line(node), 1))
                return
        self.children(node, ctx)


_HANDLERS = {
    **{t: _Walker.entity for t in _DEFINITIONS},
    "method_definition": _Walker.method,
    "class_body": _Walker.class_body,
    "object": _Walker.object,
    "lexical_declaration": _Walker.declaration,
    "variable_declaration": _Walker.declaration,
    "variable_declarator": _Walker.declarator,
    "expression_statement": _Walker.statement,
    "assignment_expression": _Walker.assignment,
    "import_statement": _Walker.import_statement,
    "export_statement": _Walker.export_statement,
    "internal_module": _Walker.namespace,
    "module": _Walker.namespace,
    "ambient_declaration": _Walker.ambient,
    "call_expression": _Walker.call,
    "new_expression": _Walker.new,
    "decorator": _Walker.decorator,
    **{t: _Walker.leaf for t in _LEAVES},
}


# --------------------------------------------------------------------------------------------------- helpers


def _unwrap(node: Node | None) -> Node | None:
    """`(x)`, `x as T`, `x satisfies T` -> x."""
    while node is not None and node.type in _WRAPPERS:
        inner = node.named_children[0] if node.named_child_count else None
        if inner is None:
            return node
        node = inner
    return node


def _object_members(obj: Node, prefix: str) -> list[tuple[str, str]]:
    """(key, local binding) of an object literal's members: `{ a }` -> a, `{ b: c }` -> c, `{ m() {} }` and
    `{ k: function () {} }` -> the entity `<prefix>m` the walker names them."""
    members = []
    for prop in obj.named_children:
        if prop.type == "shorthand_property_identifier":
            members.append((text(prop), text(prop)))
        elif prop.type == "method_definition":
            key = _key_name(prop.child_by_field_name("name"))
            members.append((key, prefix + key))
        elif prop.type == "pair":
            key, value = _key_name(prop.child_by_field_name("key")), _unwrap(prop.child_by_field_name("value"))
            if value is not None and value.type == "identifier":
                members.append((key, text(value)))
            elif value is not None and value.type in _FUNCTIONS:
                members.append((key, prefix + key))
    return members


def _block_body(node: Node) -> bool:
    body = node.child_by_field_name("body")
    return body is not None and body.type == "statement_block"


def _last_component(name: str) -> str:
    return name.rsplit(".", 1)[-1] if not name.endswith(")") else name


def _string_value(node: Node) -> str:
    if node.type == "string":
        return "".join(text(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence"))
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return text(node)[1:-1]
    return text(node)


def _key_name(node: Node | None) -> str:
    """Property key / import-export specifier as a name: `a`, `"a b"` -> `a b`, `#p`, `[Symbol.iterator]`."""
    if node is None:
        return ""
    if node.type == "string":
        return _string_value(node)
    return text(node)


def _first_string_argument(args: Node | None) -> str | None:
    if args is None or args.type != "arguments":
        return None
    first = next((a for a in args.named_children if a.type != "comment"), None)
    if first is None:
        return None
    if first.type == "string" or (
        first.type == "template_string" and not any(c.type == "template_substitution" for c in first.named_children)
    ):
        return _string_value(first)
    return None


def _require(node: Node | None) -> str | None:
    """`require("m")` -> "m"."""
    if node is None or node.type != "call_expression":
        return None
    func = node.child_by_field_name("function")
    if func is None or func.type != "identifier" or text(func) != "require":
        return None
    return _first_string_argument(node.child_by_field_name("arguments"))


def _chain(node: Node | None) -> tuple[str, ...] | None:
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


def _constructed(node: Node | None) -> tuple[str, ...] | None:
    """`new ns.Foo(…)` -> ("ns", "Foo")."""
    if node is None or node.type != "new_expression":
        return None
    return _chain(node.child_by_field_name("constructor"))


def _type_parts(node: Node | None) -> tuple[str, ...] | None:
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
    return _chain(node)


def _annotation_parts(annotation: Node | None) -> tuple[str, ...] | None:
    if annotation is None or annotation.type != "type_annotation" or not annotation.named_child_count:
        return None
    return _type_parts(annotation.named_children[0])


def _parameter_types(function: Node) -> dict[str, tuple[tuple[str, ...], bool]]:
    params = function.child_by_field_name("parameters")
    types: dict[str, tuple[tuple[str, ...], bool]] = {}
    if params is None:
        return types
    for param in params.named_children:
        if param.type in ("required_parameter", "optional_parameter"):
            pattern = param.child_by_field_name("pattern")
            declared = _annotation_parts(param.child_by_field_name("type"))
            if pattern is not None and pattern.type == "identifier" and declared:
                types[text(pattern)] = (declared, False)
    return types


def _field_types(body: Node) -> dict[str, tuple[str, ...]]:
    """TS `this.x` types: `x: Foo;` fields and `constructor(private x: Foo)` parameter properties."""
    types: dict[str, tuple[str, ...]] = {}
    for member in body.named_children:
        if member.type == "public_field_definition":
            name = member.child_by_field_name("name")
            declared = _annotation_parts(member.child_by_field_name("type"))
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
                declared = _annotation_parts(param.child_by_field_name("type"))
                if pattern is not None and pattern.type == "identifier" and declared:
                    types.setdefault(text(pattern), declared)
    return types


def _declared_names(declaration: Node) -> list[str]:
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
        return [n for c in declaration.named_children for n in _declared_names(c)]
    name = declaration.child_by_field_name("name")
    if name is not None and name.type in ("identifier", "type_identifier", "nested_identifier"):
        return [text(name)]
    return []


def _callee_name(callee: Node) -> str:
    """The callee as written (`utils.forEach`, `$(document).ready`); a long one, or one that swallowed earlier
    callbacks of a chain, without its arguments: `fetch().then().then`."""
    callee = _unwrap(callee) or callee
    if callee.type in _DEFINITIONS:  # UMD: (function (root, factory) {…})(this, function () {…})
        return "<anonymous>"
    if callee.end_byte - callee.start_byte <= _MAX_CALLEE_TEXT:
        written = _NEWLINE_RUN.sub("", text(callee))
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
        elif t in _WRAPPERS or t == "non_null_expression":
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
