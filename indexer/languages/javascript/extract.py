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

Speed (every call expression is visited, and the walk cost more than the parse): the hot paths compare
`Node.kind_id` and ask `child_by_field_id` (see `Grammar`) instead of building `Node.type` strings, slice the
source instead of `Node.text`, and, in a tree without ERROR/MISSING nodes, skip what the grammar says holds
nothing to walk (a callee that is a plain dotted name, the property of a member). References and imports are
built through their slot descriptors, not the frozen dataclass `__init__` (`model.built_through_slots`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import cast

from spider.core.schema import Label
from spider.indexer.languages.javascript import JAVASCRIPT, TYPESCRIPT
from spider.indexer.languages.javascript.grammar import CLASSES, DEFINITIONS, FUNCTIONS, LEAVES, Grammar
from spider.indexer.languages.javascript.syntax import (
    NEWLINE_RUN,
    annotation_parts,
    block_body,
    callee_name,
    chain,
    constructed,
    declared_names,
    expr_target,
    field_types,
    first_string_argument,
    key_name,
    last_component,
    object_members,
    parameter_types,
    required_module,
    string_value,
    type_parts,
    unwrap,
)
from spider.indexer.parse.facts import (
    EXPR,
    SELF,
    SUPER,
    Export,
    FileFacts,
    Import,
    QualnameRegistry,
    Reference,
    RefKind,
)
from spider.indexer.parse.treesitter import Node, SourceLines, count_syntax_errors, first_line, last_line, parse, text

_DOTTED_BYTES = re.compile(rb"[A-Za-z_$][\w$]*(?:\.#?[A-Za-z_$][\w$]*)+\Z")  # a.b, this.#c (ASCII, no spaces)
_NOT_HEADS = frozenset({"import", "new", "undefined", "null", "true", "false"})  # no identifiers: not a chain
_MAX_DOTTED_TEXT = 200  # longer callees are not read as text (a chain of calls would be copied again and again)


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
        language=JAVASCRIPT if grammar == "javascript" else TYPESCRIPT,
        syntax_errors=count_syntax_errors(root),
    )
    declaration_file = lower.endswith((".d.ts", ".d.mts", ".d.cts")) or re.search(r"\.d\.[^/]*\.ts$", lower)
    walker = _Walker(facts, SourceLines(source), _grammar(grammar))
    walker.src = source
    walker.typed = grammar != "javascript"  # the JavaScript grammar has no annotations (nor their node types)
    walker.run(root, ambient=bool(declaration_file))
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


@dataclass(slots=True)
class _Name:
    """What a parent tells its function/class child: how it is named and where its span is (never changed;
    not frozen, which would make each of these, one per callback, several times dearer to make)."""

    claim: str | None  # name to claim under the scope (may be dotted); None: the node's own `name`
    display: str | None  # Entity.name; None: last component of `claim`
    start: int
    end: int
    kind: str | None = None  # None: by node type
    extra: tuple[Node, ...] = ()  # decorators outside the node, visited in the entity's scope


_OBJ, _DECL, _STMT, _REQUIRE = "obj", "decl", "stmt", "require"

# What a parent hands a child to walk with: a `_Name`, a (marker, value) pair, a marker, or None.
_Hint = object
_Item = tuple[Node, _Ctx, _Hint]  # a node to walk, in its context


class _Walker:
    def __init__(self, facts: FileFacts, lines: SourceLines, grammar: Grammar) -> None:
        self.facts = facts
        self.lines = lines
        self.g = grammar
        self.src = b""  # the parsed bytes: `src[node.start_byte:node.end_byte]` is `node.text`, but cheaper
        self.names = QualnameRegistry()
        self.bound: dict[tuple[str | None, str], str] = {}  # (scope, claimed name) -> qualname, first wins
        self.exports: list[tuple[str | None, Export]] = []
        self.stack: list[_Item] = []
        self.clean = True  # no ERROR / MISSING node in the tree: node shapes are as the grammar says
        self.typed = True  # TypeScript: type annotations to read

    # ---- driver

    def run(self, root: Node, ambient: bool) -> None:
        self.clean = not root.has_error
        stack = self.stack
        stack.append((root, _Ctx(None, ambient=ambient), None))
        handlers = self.g.handlers
        leaves = self.g.leaves
        pop, push = stack.pop, stack.append
        while stack:
            node, ctx, hint = pop()
            handler = handlers.get(node.kind_id)
            if handler is not None:
                handler(self, node, ctx, hint)
            else:  # any other node: its children, in order
                for c in reversed(node.named_children):
                    if c.kind_id not in leaves:
                        push((c, ctx, None))
        self.finish_exports()

    def children(self, node: Node, ctx: _Ctx) -> None:
        leaves = self.g.leaves
        push = self.stack.append
        for c in reversed(node.named_children):
            if c.kind_id not in leaves:
                push((c, ctx, None))

    def push(self, items: list[_Item]) -> None:
        self.stack.extend(reversed(items))

    def leaf(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        pass

    # ---- entities

    def entity(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """A function or class node: an entity when it has a name (its own or its parent's) and a body."""
        t = node.type
        name_hint = hint if isinstance(hint, _Name) else None
        if name_hint is None and t == "arrow_function":  # no name of its own: part of the enclosing entity
            self.children(node, ctx)
            return
        is_class = t in CLASSES
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
        display = (name_hint.display if name_hint is not None else None) or last_component(claim)
        if is_class:
            kind = {"interface_declaration": "interface", "enum_declaration": "enum"}.get(t, "class")
        else:
            kind = "function"
        if name_hint is not None and name_hint.kind:
            kind = name_hint.kind
        first, last = first_line(node), last_line(node)
        if name_hint is not None:
            start, end = min(name_hint.start, first), max(name_hint.end, last)
        else:
            start, end = first, last
        qualname = self.define(Label.CLASS if is_class else Label.FUNCTION, ctx, claim, display, kind, start, end)
        if is_class:
            fields_ = field_types(body) if self.typed else {}
            inner = _Ctx(qualname, types={}, fields=fields_, module_level=ctx.module_level, ambient=ctx.ambient)
            self.heritage(node, qualname)
        else:
            inner = _Ctx(qualname, types=parameter_types(node) if self.typed else {}, fields=ctx.fields,
                         module_level=ctx.module_level, ambient=ctx.ambient)  # fmt: skip
        items: list[_Item] = [(n, inner, None) for n in (name_hint.extra if name_hint is not None else ())]
        leaves = self.g.leaves
        items.extend((c, inner, None) for c in node.named_children if c.kind_id not in leaves)
        self.push(items)

    def define(self, label: Label, ctx: _Ctx, claim: str, display: str, kind: str, start: int, end: int) -> str:
        name = ctx.prefix + claim
        qualname = self.names.claim(ctx.scope, name)
        self.bound.setdefault((ctx.scope, name), qualname)
        self.facts.entities.append(self.lines.entity(label, qualname, display, kind, start, end, ctx.scope))
        return qualname

    def method(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """`method_definition` in a class body or an object literal."""
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if body is None or name_node is None or ctx.ambient:
            self.children(node, ctx)
            return
        if isinstance(hint, _Name):
            claim, start, kind, extra = hint.claim or key_name(name_node), hint.start, hint.kind, hint.extra
        else:
            claim, start, kind, extra = key_name(name_node), first_line(node), "method", ()
        display = key_name(name_node)
        start = min(start, first_line(node))
        qualname = self.define(Label.FUNCTION, ctx, claim, display, kind or "method", start, last_line(node))
        types = parameter_types(node) if self.typed else {}
        inner = _Ctx(qualname, types=types, fields=ctx.fields, module_level=ctx.module_level)
        items: list[_Item] = [(n, inner, None) for n in extra]
        items.extend((c, inner, None) for c in node.named_children if c.type not in LEAVES and c != name_node)
        if name_node.type == "computed_property_name":
            items.append((name_node, ctx, None))
        self.push(items)

    def class_body(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """Members: methods, constructor, accessors, field arrow functions; TS member decorators are siblings."""
        items: list[_Item] = []
        decorators: list[Node] = []
        for member in node.named_children:
            t = member.type
            if t == "decorator":
                decorators.append(member)
                continue
            start = first_line(decorators[0]) if decorators else first_line(member)
            if t == "method_definition":
                name = key_name(member.child_by_field_name("name"))
                kind: str | None = "constructor" if name == "constructor" else "method"
                items.append((member, ctx, _Name(name, name, start, last_line(member), kind, tuple(decorators))))
            elif t in ("field_definition", "public_field_definition"):
                key = member.child_by_field_name("property") or member.child_by_field_name("name")
                value = unwrap(member.child_by_field_name("value"))
                if key is not None and value is not None and value.type in DEFINITIONS:
                    name = key_name(key)
                    extra = tuple(decorators) + tuple(c for c in member.named_children if c.type == "decorator")
                    kind = "method" if value.type in FUNCTIONS else None
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

    def object(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """Object literal: `key: function`, `key: () =>`, `key() {}` become `<object variable>.key` entities."""
        prefix = hint[1] if isinstance(hint, tuple) and hint[0] == _OBJ else ""
        items: list[_Item] = []
        g = self.g
        for member in node.named_children:
            t = member.kind_id
            if t in g.pair:
                key, value = member.child_by_field_id(g.f_key), member.child_by_field_id(g.f_value)
                if key is not None and key.kind_id in g.computed_property_name:
                    items.append((key, ctx, None))
                if value is None:
                    continue
                vt = value.kind_id
                if vt in g.wrappers:
                    value = unwrap(value)
                    vt = value.kind_id
                if vt in g.definitions_or_object:
                    name = key_name(key) if key is not None else ""
                    if name and vt in g.object:
                        items.append((value, ctx, (_OBJ, prefix + name + ".")))
                        continue
                    if name:
                        items.append((value, ctx, _Name(prefix + name, name, first_line(member), last_line(member))))
                        continue
                if vt in g.array and key is not None:
                    # `MMM: [matchWord, function (input) {...}]` (a table of handlers): the array's one function
                    # is the key's; with several, none is (they stay anonymous)
                    functions = [e for e in value.named_children if e.kind_id in g.functions]
                    if len(functions) == 1 and (name := key_name(key)):
                        items.append((functions[0], ctx, _Name(prefix + name, name, first_line(member), last_line(member))))
                        items.extend((e, ctx, None) for e in value.named_children
                                     if e is not functions[0] and e.kind_id not in g.leaves)
                        continue
                if vt not in g.leaves:
                    items.append((value, ctx, None))
            elif t in g.method_definition:
                name = key_name(member.child_by_field_name("name"))
                items.append((member, ctx, _Name(prefix + name, name, first_line(member), last_line(member), "method")))
            elif t not in g.leaves:
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
                        parts = type_parts(target)
                        if parts:
                            add(Reference(qualname, RefKind.INHERIT, parts, first_line(target)))
            elif child.type == "extends_type_clause":  # interface I extends A, B
                for target in child.children_by_field_name("type"):
                    parts = type_parts(target)
                    if parts:
                        add(Reference(qualname, RefKind.INHERIT, parts, first_line(target)))

    # ---- declarations and assignments

    def declaration(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """`const|let|var a = …, b = …`: the whole statement (with `export`) is each function's span."""
        span = (_DECL, hint if isinstance(hint, _Name) else node)  # the lines are only read for a function
        leaves = self.g.leaves
        self.push([(c, ctx, span) if c.type == "variable_declarator" else (c, ctx, None)
                   for c in node.named_children if c.kind_id not in leaves])  # fmt: skip

    def declarator(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        span = hint[1] if isinstance(hint, tuple) and hint[0] == _DECL else node
        name_node = node.child_by_field_name("name")
        raw_value = node.child_by_field_name("value")
        value = unwrap(raw_value)
        items: list[_Item] = []
        if name_node is None:
            self.children(node, ctx)
            return
        is_identifier = name_node.type == "identifier"
        name = text(name_node) if is_identifier else ""
        vt = value.type if value is not None else None
        if is_identifier:
            declared = annotation_parts(node.child_by_field_name("type")) if self.typed else None
            constructed = (  # `vt` is the type of `value`, a node when it is "new_expression"
                chain(cast(Node, value).child_by_field_name("constructor")) if vt == "new_expression" else None
            )
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
        elif vt in DEFINITIONS and is_identifier:
            start, end = (span.start, span.end) if isinstance(span, _Name) else (first_line(span), last_line(span))
            items.append((value, ctx, _Name(name, name, start, end)))
        elif vt == "object" and is_identifier:
            items.append((value, ctx, (_OBJ, name + ".")))
        elif vt == "call_expression" and (module := required_module(value)) is not None:
            self.require_binding(name_node, module, None, first_line(node), ctx)
            items.append((value, ctx, _REQUIRE))
        elif vt == "member_expression" and (module := required_module(value.child_by_field_name("object"))):
            prop = value.child_by_field_name("property")
            self.require_binding(name_node, module, text(prop), first_line(node), ctx)
            items.append((cast(Node, value.child_by_field_name("object")), ctx, _REQUIRE))  # a module was read from it
        elif vt not in LEAVES:
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
                        add(Import(ctx.scope, module, key_name(key), text(val), line))
        else:
            add(Import(ctx.scope, module, None, "", line))

    def statement(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """expression_statement: an assignment in it spans the whole statement."""
        if self.clean:  # one expression (then `;` and comments, nothing to walk): no list of every child
            c = node.child(0)
            g = self.g
            t = c.kind_id
            if t not in g.comment:
                if t in g.call:  # the most common statement: handled now rather than pushed and popped
                    self.call(c, ctx, None)
                elif t in g.assignment:
                    self.stack.append((c, ctx, (_STMT, node)))
                elif t not in g.leaves:
                    self.stack.append((c, ctx, None))
                return
        items: list[_Item] = []
        for c in node.named_children:
            if c.type == "assignment_expression":
                items.append((c, ctx, (_STMT, node)))
            elif c.type not in LEAVES:
                items.append((c, ctx, None))
        self.push(items)

    def assignment(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        span = hint[1] if isinstance(hint, tuple) and hint[0] == _STMT else node
        left, right = node.child_by_field_name("left"), unwrap(node.child_by_field_name("right"))
        if left is None or right is None:
            self.children(node, ctx)
            return
        items: list[_Item] = []
        if left.type == "identifier":
            target = text(left)
            if cls := constructed(right):
                ctx.types[target] = (cls, True)
            elif not (target in ctx.types and not ctx.types[target][1]):  # a declared type survives
                ctx.types.pop(target, None)
        elif left.type in ("member_expression", "subscript_expression"):
            target = NEWLINE_RUN.sub("", text(left)) if left.end_byte - left.start_byte < 400 else ""
            items.append((left, ctx, None))
        else:
            target = ""
            items.append((left, ctx, None))
        if target:
            self.commonjs_export(left, right, target, ctx)
        if target and right.type in DEFINITIONS:
            display = text(left.child_by_field_name("property")) if left.type == "member_expression" else None
            items.append((right, ctx, _Name(target, display or None, first_line(span), last_line(span))))
        elif target and right.type == "object":
            items.append((right, ctx, (_OBJ, target + ".")))
        elif right.type not in LEAVES:
            items.append((right, ctx, None))
        self.push(items)

    def commonjs_export(self, left: Node, right: Node, target: str, ctx: _Ctx) -> None:
        parts = chain(left)
        if not parts:
            return
        if parts == ("module", "exports"):
            if right.type == "identifier":
                self.export(ctx, Export("default", local=text(right)))
            elif right.type in DEFINITIONS:
                self.export(ctx, Export("default", local=target))
            elif right.type == "object":
                for member in right.named_children:
                    if member.type == "shorthand_property_identifier":
                        self.export(ctx, Export(text(member), local=text(member)))
                    elif member.type in ("pair", "method_definition"):
                        key = member.child_by_field_name("key") or member.child_by_field_name("name")
                        value = unwrap(member.child_by_field_name("value")) if member.type == "pair" else member
                        if key is None or key.type == "computed_property_name":
                            continue
                        name = key_name(key)
                        if value is None:
                            continue
                        if value.type == "identifier":
                            self.export(ctx, Export(name, local=text(value)))
                        elif value.type in DEFINITIONS or value.type == "method_definition":
                            self.export(ctx, Export(name, local=f"module.exports.{name}"))
                        else:
                            self.export(ctx, Export(name))
            elif (module := required_module(right)) is not None:
                self.export(ctx, Export("*", module=module, imported="*"))
            else:
                self.export(ctx, Export("default"))
        elif len(parts) == 2 and parts[0] == "exports" or len(parts) == 3 and parts[:2] == ("module", "exports"):
            name = parts[-1]
            if right.type == "identifier":
                self.export(ctx, Export(name, local=text(right)))
            elif right.type in DEFINITIONS:
                self.export(ctx, Export(name, local=target))
            else:
                self.export(ctx, Export(name))

    # ---- modules

    def import_statement(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        source = node.child_by_field_name("source")
        if source is None:
            module = None
        elif self.clean and source.type == "string" and b"&" not in (
            raw := self.src[source.start_byte + 1 : source.end_byte - 1]
        ):
            module = raw.decode("utf-8", "replace")  # the fragments and escapes between the quotes, read at once
        else:
            module = string_value(source)
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
                                add(Import(ctx.scope, module, key_name(name_node), key_name(alias_node), line))
            elif child.type == "import_require_clause":  # TS: import x = require("m")
                bound = True
                alias = next((text(c) for c in child.named_children if c.type == "identifier"), "")
                src = child.child_by_field_name("source")
                if src is not None:
                    add(Import(ctx.scope, string_value(src), None, alias, line))
        if not bound and module is not None:
            add(Import(ctx.scope, module, None, "", line))

    def export_statement(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        start, end = first_line(node), last_line(node)
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        source = node.child_by_field_name("source")
        module = string_value(source) if source is not None else None
        decorators = tuple(c for c in node.named_children if c.type == "decorator")
        is_default = any(c.type == "default" for c in node.children)
        items: list[_Item] = []
        if declaration is not None:
            items.append((declaration, ctx, _Name(None, None, start, end, None, decorators)))
            decorators = ()
            for name in declared_names(declaration):
                self.export(ctx, Export("default" if is_default else name, local=name))
        elif is_default and value is not None:
            inner = unwrap(value)
            if inner.type == "identifier":
                self.export(ctx, Export("default", local=text(inner)))
            elif inner.type in DEFINITIONS:
                own = inner.child_by_field_name("name")
                claim = text(own) if own is not None else "default"
                items.append((inner, ctx, _Name(claim, claim, start, end, None, decorators)))
                decorators = ()
                self.export(ctx, Export("default", local=claim))
            elif inner.type == "object":  # `export default { a, b: c, m() {} }`: the module is the namespace
                items.append((inner, ctx, (_OBJ, "default.")))
                self.export(ctx, Export("default"))
                for key, local in object_members(inner, "default."):
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
                        name, alias = key_name(name_node), key_name(alias_node)
                        if module is not None:
                            self.export(ctx, Export(alias, module=module, imported=name))
                        else:
                            self.export(ctx, Export(alias, local=name))
                elif child.type == "namespace_export":
                    alias = next((key_name(c) for c in child.named_children), "")
                    if module is not None and alias:
                        self.export(ctx, Export(alias, module=module, imported=None))
                elif equals and child.type not in ("decorator", "string"):
                    inner = unwrap(child)
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

    def namespace(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """TS `namespace A.B {}` / `module M {}`: no entity, but prefixes what is inside; `declare module "m"`
        and `declare global` do not."""
        name = node.child_by_field_name("name")
        prefix = ctx.prefix
        if name is not None and name.type in ("identifier", "nested_identifier"):
            prefix += "".join(text(name).split()) + "."
        inner = _Ctx(ctx.scope, prefix, ctx.types, ctx.fields, module_level=False, ambient=ctx.ambient)
        self.push([(c, inner, None) for c in node.named_children if c.type not in LEAVES and c != name])

    def ambient(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """`declare …`: bodiless by definition; `declare global {}` exports nothing from this module."""
        is_global = any(c.type == "global" for c in node.children)
        inner = ctx
        if is_global:
            inner = _Ctx(ctx.scope, ctx.prefix, ctx.types, ctx.fields, module_level=False, ambient=ctx.ambient)
        self.children(node, inner)

    # ---- calls

    def call(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        g = self.g
        func = node.child_by_field_id(g.f_function)
        if func is None:
            self.children(node, ctx)
            return
        if hint is not None and hint == _REQUIRE:
            return
        args = node.child_by_field_id(g.f_arguments)
        ft = func.kind_id
        if ft in g.identifier:
            name = self.src[func.start_byte:func.end_byte].decode("utf-8", "replace")
            if name == "require":
                if self.import_call(node, args, ctx):
                    return
                target: tuple[str, ...] | None = None
            else:
                target = (name,)
            items: list[_Item] = []
        elif ft in g.member:
            target, items = self.member_callee(func, ctx, False)
        elif ft in g.import_:
            if self.import_call(node, args, ctx):
                return
            target, items = None, []
        else:
            target, items = self.other_callee(func, ctx)
        if args is not None:
            arity = self.arguments(func, args, ctx, items)
        else:
            arity = None
        if target:
            self.add_call(ctx, target, node.start_point[0] + 1, arity)
        if items:
            self.stack.extend(reversed(items))

    def other_callee(self, func: Node, ctx: _Ctx) -> tuple[tuple[str, ...] | None, list[_Item]]:
        """Any callee but a name or a member: `super(…)`, `(function () {…})()`, `(a || b)()`, `f()()`."""
        target = (SUPER, "constructor") if func.type == "super" else chain(func)
        inner = unwrap(func)
        if not target and inner is not None and inner.type == "member_expression":
            target = expr_target(inner)
        it = inner.type
        if it in DEFINITIONS:  # IIFE: (function () {…})(), !function () {…}()
            return target, [(inner, ctx, _Name("<anonymous>", "<anonymous>", first_line(inner), last_line(inner)))]
        if (
            it == "member_expression"
            # a member expression has an object
            and (obj := unwrap(cast(Node, inner.child_by_field_name("object")))).type in FUNCTIONS
            and text(inner.child_by_field_name("property")) in ("call", "apply")
        ):  # (function () {…}).call(this)
            return target, [(obj, ctx, _Name("<anonymous>", "<anonymous>", first_line(obj), last_line(obj)))]
        if it not in LEAVES:
            return target, [(inner, ctx, None)]
        return target, []

    def import_call(self, node: Node, args: Node | None, ctx: _Ctx) -> bool:
        """`require("m")`, `import("m")`: an import (nothing else is looked at inside)."""
        module = first_string_argument(args)
        if module is None:
            return False
        self.facts.imports.append(Import(ctx.scope, module, None, "", node.start_point[0] + 1))
        return True

    def member_callee(self, func: Node, ctx: _Ctx, constructor: bool) -> tuple[tuple[str, ...] | None, list[_Item]]:
        """`a.b.c` / `f().m` as callee: the call target, and what of the callee is still to be walked."""
        g = self.g
        obj = func.child_by_field_id(g.f_object)
        prop = func.child_by_field_id(g.f_property)
        if obj is None or prop is None:
            return None, [(func, ctx, None)]
        pt = prop.kind_id
        ot = obj.kind_id
        src = self.src
        if pt in g.properties:
            if ot in g.name:
                target: tuple[str, ...] | None = (
                    src[obj.start_byte:obj.end_byte].decode("utf-8", "replace"),
                    src[prop.start_byte:prop.end_byte].decode("utf-8", "replace"),
                )
            elif ot in g.this:
                target = (SELF, src[prop.start_byte:prop.end_byte].decode("utf-8", "replace"))
            elif ot in g.super:
                target = (SUPER, src[prop.start_byte:prop.end_byte].decode("utf-8", "replace"))
            elif ot in g.chain_links:
                if self.clean and func.end_byte - func.start_byte <= _MAX_DOTTED_TEXT:
                    written = func.text
                    assert written is not None  # the tree was parsed from bytes
                    if _DOTTED_BYTES.match(written):  # a plain dotted name
                        parts = written.decode().split(".")
                        head = parts[0]
                        if head not in _NOT_HEADS:
                            if head == "this":
                                parts[0] = SELF
                            elif head == "super":
                                parts[0] = SUPER
                            return tuple(parts), []
                head_parts = chain(obj)
                target = (*head_parts, text(prop)) if head_parts else None
            else:
                target = None
            if target:  # nothing to walk in a chain of names (unless error recovery put more into it)
                return target, ([] if self.clean else [(func, ctx, None)])
        if ot in g.wrappers:
            uobj = unwrap(obj)
            uot = uobj.kind_id
        else:
            uobj, uot = obj, ot
        target = None
        if not constructor:
            if uot in g.functions:
                if text(prop) in ("call", "apply"):  # (function () {…}).call(this)
                    return None, [(uobj, ctx, _Name("<anonymous>", "<anonymous>", first_line(uobj), last_line(uobj)))]
            elif pt in g.property_identifier and uot not in g.definitions:
                # make().then(), arr[0].go(): only a repo-unique method name can match
                target = (EXPR, src[prop.start_byte:prop.end_byte].decode("utf-8", "replace"))
        if self.clean and pt in g.leaves:  # the member's only other named children: a leaf property, `?.`
            return target, ([(obj, ctx, None)] if ot not in g.leaves else [])
        return target, [(func, ctx, None)]

    def member(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """`a.b` read (not called): only the object can hold anything to walk; the property is a name."""
        if not self.clean:
            self.children(node, ctx)
            return
        obj = node.child_by_field_id(self.g.f_object)
        if obj is not None and obj.kind_id not in self.g.leaves:
            self.stack.append((obj, ctx, None))

    def new(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        ctor = node.child_by_field_id(self.g.f_constructor)
        if ctor is None:
            return
        args = node.child_by_field_id(self.g.f_arguments)
        ct = ctor.type
        if ct == "identifier":
            target: tuple[str, ...] | None = (text(ctor),)
            items: list[_Item] = []
        elif ct == "member_expression":
            target, items = self.member_callee(ctor, ctx, True)
        else:
            target = chain(ctor)
            items = [(ctor, ctx, None)] if ct not in LEAVES else []
        arity = self.arguments(ctor, args, ctx, items) if args is not None else 0
        if target:
            self.add_call(ctx, target, node.start_point[0] + 1, arity)
        self.stack.extend(reversed(items))

    def callback(self, callee: Node, arg: Node, ctx: _Ctx, items: list[_Item]) -> None:
        """An argument that is (or wraps) a function or class: block-bodied callbacks become `<callee>()`
        entities; expression-bodied arrows stay in the caller."""
        arg = unwrap(arg)
        t = arg.type
        if t in DEFINITIONS and (t in CLASSES or t != "arrow_function" or block_body(arg)):
            name = callee_name(callee) + "()"
            items.append((arg, ctx, _Name(name, name, first_line(arg), last_line(arg))))
        elif t not in LEAVES:
            items.append((arg, ctx, None))

    def arguments(self, callee: Node, args: Node, ctx: _Ctx, items: list[_Item]) -> int | None:
        """Adds the arguments to walk to `items`; returns the arity (None for a tagged template)."""
        g = self.g
        count = 0
        leaves = g.leaves
        for arg in args.named_children:
            t = arg.kind_id
            if t in leaves:
                if t not in g.comment:
                    count += 1
                continue
            count += 1
            if t in g.callbacks:
                self.callback(callee, arg, ctx, items)
            else:
                items.append((arg, ctx, None))
        return count if args.kind_id in g.arguments else None

    def add_call(self, ctx: _Ctx, target: tuple[str, ...], line: int, arity: int | None) -> None:
        inferred = False
        if len(target) >= 2:
            types = ctx.types
            if target[0] in types:
                typ, inferred = types[target[0]]
                target = typ + target[1:]
            elif len(target) >= 3 and target[0] == SELF and target[1] in ctx.fields:
                target = ctx.fields[target[1]] + target[2:]
        self.facts.references.append(Reference(ctx.scope, RefKind.CALL, target, line, arity, inferred))

    def decorator(self, node: Node, ctx: _Ctx, hint: _Hint) -> None:
        """`@dec` wraps the entity: a call from it (like the Python extractor); `@dec(...)` is a call anyway."""
        expr = node.named_children[0] if node.named_child_count else None
        if expr is not None and expr.type in ("identifier", "member_expression"):
            target = chain(expr)
            if target:
                self.facts.references.append(Reference(ctx.scope, RefKind.CALL, target, first_line(node), 1))
                return
        self.children(node, ctx)


_HANDLERS = {
    **{t: _Walker.entity for t in DEFINITIONS},
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
    "member_expression": _Walker.member,
    "decorator": _Walker.decorator,
    **{t: _Walker.leaf for t in LEAVES},
}


@cache
def _grammar(name: str) -> Grammar:
    return Grammar(name, _HANDLERS)
