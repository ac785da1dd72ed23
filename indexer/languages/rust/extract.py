"""Rust extractor: one file's types, functions, methods, `use` imports, calls and trait impls, as `FileFacts`.

Pure and deterministic (`bytes -> FileFacts`). Structs, enums, unions and traits are Classes; functions with a body
are Functions: `f`, `Type.m` for a method of an `impl Type` or `impl Trait for Type` block (generics dropped), whose
parent is `Type` when the file declares it (elsewhere in the crate, `Type.m` stands in the file on its own, and
the resolver finds it through `methods_in_package`), `Trait.m` for a trait's default method. An inline `mod`
prefixes the names in it; a function inside a function is `outer.inner`. Spans start at the item's `#[...]`
attributes. Closures are no entities: their calls are their function's. Nothing in a `macro_rules!` body is read.
`impl Trait for Type` in the file that declares `Type` makes Type inherit Trait; a trait inherits its supertraits.
`mod foo;` is an import of the module file foo.

Calls are named as the compiler would find them from what the file says: `f()`, `path::f()`, `Self::f()` and
`Type::f()` as written (`Self` is the impl's type); `self.m()` on the impl's type; `x.m()` on `x`'s type where `x`
is bound once in the function, by a typed parameter (`x: &T`), `let x: T`, `let x = T { .. }` or
`let x = f()` / `T::f()` of a function of this file that declares its result (`?` takes it out of a `Result` or
an `Option`), `let x = T::new()` / `T::default()` otherwise (typed by that convention: inferred); `x.f.m()`
through the fields of this file's structs. A name bound by a pattern (a closure's parameters, `match`, `if let`, `for`) or bound twice is of
unknown type, and so is a generic type parameter (`T: Trait`) or a trait object (`dyn Trait`): which `impl` runs
is decided at run time, so such calls are named `<expr>.m` and dropped. Calls written in a macro's arguments are
read from its tokens where they are a plain `f(..)` or `path::f(..)`; items written in the braces of a macro call at
item level (`cfg_rt! { .. }`) are read as items. `self.m()` in a trait's default method is
left unknown too: the type implementing the trait may override `m`. Only nested functions and items take a Python
frame per level: a file nested deeper than the interpreter allows is skipped (`nesting too deep`).
"""

from __future__ import annotations

from dataclasses import dataclass

from spider.core.schema import Label
from spider.indexer.languages.rust import LANGUAGE, cargo
from spider.indexer.parse.facts import EXPR, FileFacts, Import, QualnameRegistry, Reference, RefKind
from spider.indexer.parse.treesitter import (
    Node,
    SourceLines,
    count_syntax_errors,
    first_line,
    last_line,
    parse,
    parse_inside,
    text,
)

Type = tuple[str, ...]  # ("Order",), ("shop", "Order")
Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Binding:
    type: Type | None  # None: unknown; (): a primitive type (`u32`, `str`): no repository's
    inferred: bool = False  # typed by the `T::new()` naming convention


_UNKNOWN = Binding(None)
_CLASS_KINDS = {"struct_item": "struct", "enum_item": "enum", "union_item": "union", "trait_item": "trait"}
_NESTED_ITEMS = frozenset({"impl_item", "trait_item", "mod_item", "struct_item", "enum_item", "union_item",
                           "macro_definition", "function_signature_item"})
_PATTERN_SITES = frozenset({"for_expression", "let_condition", "match_pattern", "closure_parameters"})
_CONSTRUCTORS = frozenset({"new", "default"})
_MAX_MODULES = 32  # inline modules nested deeper are not read
_MAX_FIELDS = 8  # `a.b.c.m()`: fields followed this deep
_MAX_MACRO_DEPTH = 4  # macro calls inside macro calls read this deep
_MAX_TYPE_NAME = 200  # an impl's type with no plain name (`impl T for [u8]`) is named by its text, this long at most


def extract(path: str, source: bytes) -> FileFacts:
    if path.rpartition("/")[2] == "Cargo.toml":
        return cargo.extract(path, source)
    root = parse("rust", source).root_node
    facts = FileFacts(path=path, language=LANGUAGE, syntax_errors=count_syntax_errors(root))
    _Extractor(facts, source).run(_items(root, source))
    return facts


@dataclass(frozen=True, slots=True)
class _Owner:
    """What a function's `Self` and `self` are: an impl's type (None: a generic or unnamed one), or a trait."""

    qualname: str  # `Type` or `Trait`, prefixed by the inline modules around it
    type: Type | None
    trait: bool
    generics: frozenset[str]


class _Extractor:
    def __init__(self, facts: FileFacts, source: bytes) -> None:
        self.facts = facts
        self.source = source
        self.lines = SourceLines(source)
        self.registry = QualnameRegistry()
        self.classes: set[str] = set()  # qualnames of the file's structs, enums, unions and traits
        self.fields: dict[str, dict[str, Binding] | None] = {}  # struct name -> its fields (None: two such structs)
        # `f` / `Type::f` of this file -> the type it declares it returns, and the one `?` takes out of it
        self.results: dict[Path, tuple[Type | None, Type | None]] = {}

    def run(self, items: list[tuple[Node, Path]]) -> None:
        for node, prefix in items:
            kind = _CLASS_KINDS.get(node.type)
            name = node.child_by_field_name("name")
            if kind and name is not None:
                self.classes.add(_dotted(prefix, text(name)))
                if node.type == "struct_item":
                    self.fields[text(name)] = None if text(name) in self.fields else _fields(node)
            elif node.type == "function_item" and name is not None and not prefix:
                self.results[(text(name),)] = _result(node, None, _generics(node))
            elif node.type == "impl_item" and not prefix:
                self.impl_results(node)
        for node, prefix in items:
            if node.type in _CLASS_KINDS:
                self.class_item(node, prefix)
            elif node.type == "impl_item":
                self.impl_item(node, prefix)
            elif node.type == "function_item":
                self.function(node, prefix, None, None)
            elif node.type == "use_declaration" and not prefix:  # an inline module's scope is no entity
                self.use(node, None)
            elif node.type == "mod_item" and not prefix and node.child_by_field_name("body") is None:
                self.module_file(node)

    def impl_results(self, node: Node) -> None:
        """What the associated functions of an `impl Type` block declare they return."""
        typed, generics = _type_path(node.child_by_field_name("type")), _generics(node)
        if not typed or len(typed) != 1 or typed[0] in generics:
            return
        for method in _members(node, self.source):
            method_name = method.child_by_field_name("name")
            if method.type == "function_item" and method_name is not None:
                self.results[(typed[0], text(method_name))] = _result(method, typed, generics | _generics(method))

    # declarations -------------------------------------------------------------------------------------
    def class_item(self, node: Node, prefix: Path) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        qualname = self.registry.claim(None, _dotted(prefix, text(name_node)))
        self.facts.entities.append(self.lines.entity(
            Label.CLASS, qualname, text(name_node), _CLASS_KINDS[node.type], _start(node), last_line(node), None))
        if node.type != "trait_item":
            return
        bounds = node.child_by_field_name("bounds")
        for bound in bounds.named_children if bounds is not None else ():
            supertrait = _type_path(bound)
            if supertrait:
                self.facts.references.append(Reference(qualname, RefKind.INHERIT, supertrait, first_line(bound)))
        owner = _Owner(qualname, None, True, _generics(node))
        for method in _members(node, self.source):
            if method.type == "function_item":
                self.function(method, prefix, owner, qualname)

    def impl_item(self, node: Node, prefix: Path) -> None:
        type_node = node.child_by_field_name("type")
        if type_node is None:
            return
        generics = _generics(node)
        typed = _type_path(type_node)
        name = typed[-1] if typed else " ".join(text(type_node).split())[:_MAX_TYPE_NAME]
        qualname = _dotted(prefix, name)
        parent = qualname if qualname in self.classes else None
        trait = node.child_by_field_name("trait")
        trait_path = _type_path(trait)
        if parent and trait is not None and trait_path:
            self.facts.references.append(Reference(parent, RefKind.INHERIT, trait_path, first_line(trait)))
        owner = _Owner(qualname, None if not typed or typed[-1] in generics else typed, False, generics)
        for method in _members(node, self.source):
            if method.type == "function_item":
                self.function(method, prefix, owner, parent)

    def function(self, node: Node, prefix: Path, owner: _Owner | None, parent: str | None,
                 outer: str | None = None) -> None:
        name_node, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name_node is None or body is None:
            return
        name = text(name_node)
        if outer is not None:
            qualname, kind = self.registry.claim(outer, name), "function"
        elif owner is not None:
            qualname = self.registry.claim(parent, name) if parent else self.registry.claim(None, f"{owner.qualname}.{name}")
            kind = "method"
        else:
            qualname, kind = self.registry.claim(None, _dotted(prefix, name)), "function"
        self.facts.entities.append(self.lines.entity(
            Label.FUNCTION, qualname, name, kind, _start(node), last_line(node), outer or parent))
        generics = _generics(node) | (owner.generics if owner else frozenset())
        _Body(self, qualname, prefix, owner, generics).read(node)

    def module_file(self, node: Node) -> None:
        """`mod foo;` binds the module file foo, as an import of it does: the file is kept for the module tree to
        pass through even where it declares nothing else."""
        name = node.child_by_field_name("name")
        if name is not None:
            self.facts.imports.append(Import(None, text(name), None, text(name), first_line(node)))

    def use(self, node: Node, scope: str | None) -> None:
        argument = node.child_by_field_name("argument")
        line = first_line(node)
        for path, alias in _use_paths(argument):
            if path[-1] == "self" and len(path) > 1:  # `use a::{self}`: the module a
                path = path[:-1]
            module, name = "::".join(path[:-1]), path[-1]
            bound = path[-1] if alias is None else alias
            if name == "*":
                self.facts.imports.append(Import(scope, module, "*", "", line))
            elif not module:  # `use a;`, `use a::{self}`: the module or crate a
                self.facts.imports.append(Import(scope, name, None, bound, line))
            else:
                self.facts.imports.append(Import(scope, module, name, bound, line))


class _Body:
    """One function's body: the names it binds, then its calls, each with its receiver typed by them."""

    def __init__(self, extractor: _Extractor, scope: str, prefix: Path, owner: _Owner | None,
                 generics: frozenset[str]) -> None:
        self.extractor = extractor
        self.scope = scope
        self.prefix = prefix
        self.owner = owner
        self.generics = generics
        self.sites: dict[str, list[Binding]] = {}  # every binding of each name in the function

    def read(self, function: Node) -> None:
        for parameter in _named(function.child_by_field_name("parameters")):
            if parameter.type == "parameter":
                self.bind(parameter.child_by_field_name("pattern"), self.declared(parameter.child_by_field_name("type")))
        calls: list[Node] = []
        nested: list[Node] = []
        items: list[Node] = []  # types, traits and impls declared in the body
        todo = list(reversed(_named(function.child_by_field_name("body"))))
        while todo:
            node = todo.pop()
            kind = node.type
            if kind == "function_item":
                nested.append(node)
                continue
            if kind in _NESTED_ITEMS:
                items.append(node)
                continue
            if kind in ("call_expression", "struct_expression", "macro_invocation"):
                calls.append(node)
            elif kind == "let_declaration":
                self.bind(node.child_by_field_name("pattern"), self.let_type(node))
            elif kind == "use_declaration":
                self.extractor.use(node, self.scope)
                continue
            elif kind in _PATTERN_SITES:
                pattern = node.child_by_field_name("pattern") if kind in ("for_expression", "let_condition") else node
                self.bind(pattern, _UNKNOWN)
            if kind != "macro_invocation":
                todo.extend(reversed(node.named_children))
        for node in calls:
            if node.type == "call_expression":
                self.call(node)
            elif node.type == "struct_expression":
                self.literal(node)
            else:
                self.macro_calls(node)
        for inner in nested:
            self.extractor.function(inner, self.prefix, None, None, outer=self.scope)
        prefix = tuple(self.scope.split("."))  # `outer.Guard.drop`: the body's items are named under its function
        for item in items:
            if item.type in _CLASS_KINDS:
                self.extractor.class_item(item, prefix)
            elif item.type == "impl_item":
                self.extractor.impl_item(item, prefix)

    # bindings -----------------------------------------------------------------------------------------
    def bind(self, pattern: Node | None, binding: Binding) -> None:
        """A pattern's names: a lone name gets the binding, the names inside a destructuring pattern are unknown."""
        if pattern is None:
            return
        if pattern.type == "identifier":
            self.sites.setdefault(text(pattern), []).append(binding)
            return
        todo = [pattern]
        while todo:
            node = todo.pop()
            if node.type == "identifier":
                self.sites.setdefault(text(node), []).append(_UNKNOWN)
            todo.extend(node.named_children)

    def lookup(self, name: str) -> Binding | None:
        """A local's binding: its type if it is bound once; None if it is no local."""
        sites = self.sites.get(name)
        if not sites:
            return None
        return sites[0] if len(sites) == 1 else _UNKNOWN

    def declared(self, type_node: Node | None) -> Binding:
        """What a written type says of a value: `T`, `&T`, `&mut T`, `a::T`, `T<U>`, `Self`."""
        while type_node is not None and type_node.type == "reference_type":
            type_node = type_node.child_by_field_name("type")
        if type_node is None:
            return _UNKNOWN
        if type_node.type == "primitive_type":
            return Binding(())
        typed = _type_path(type_node)
        return Binding(self.own_type(typed))

    def own_type(self, typed: Type | None) -> Type | None:
        """A type path with `Self` made the impl's type; None for a generic parameter."""
        if not typed or typed[0] in self.generics:
            return None
        if typed[0] == "Self":
            return self.owner.type if self.owner is not None and len(typed) == 1 else None
        return typed

    def let_type(self, node: Node) -> Binding:
        declared = node.child_by_field_name("type")
        if declared is not None:
            return self.declared(declared)
        value = node.child_by_field_name("value")
        tried = False  # `f()?`: what the Result or Option holds
        while value is not None and value.type in ("reference_expression", "try_expression"):
            tried = tried or value.type == "try_expression"
            value = value.child_by_field_name("value") if value.type == "reference_expression" \
                else (value.named_children[0] if value.named_child_count else None)
        if value is None:
            return _UNKNOWN
        if value.type == "struct_expression":
            return Binding(self.own_type(_type_path(value.child_by_field_name("name"))))
        if value.type == "call_expression":
            function = value.child_by_field_name("function")
            path = _expression_path(function) if function is not None else None
            if not path:
                return _UNKNOWN
            if path[0] == "Self" and self.owner is not None and self.owner.type:
                path = (*self.owner.type, *path[1:])
            result = self.extractor.results.get(path) if not self.prefix else None
            if result is not None and not (len(path) == 1 and self.lookup(path[0]) is not None):
                return Binding(result[1] if tried else result[0])  # this file's function, as it declares
            if len(path) > 1 and path[-1] in _CONSTRUCTORS:
                typed = self.own_type(path[:-1])
                return Binding(typed, inferred=True) if typed else _UNKNOWN
        return _UNKNOWN

    # references ---------------------------------------------------------------------------------------
    def add(self, target: tuple[str, ...], node: Node, arity: int | None, inferred: bool = False) -> None:
        self.extractor.facts.references.append(
            Reference(self.scope, RefKind.CALL, target, first_line(node), arity, inferred))

    def call(self, node: Node) -> None:
        function = node.child_by_field_name("function")
        if function is not None and function.type == "generic_function":
            function = function.child_by_field_name("function")
        if function is None:
            return
        arguments = node.child_by_field_name("arguments")
        arity = sum(1 for c in arguments.named_children if c.type not in ("line_comment", "block_comment")) \
            if arguments is not None else None
        if function.type == "field_expression":
            self.method_call(function, node, arity)
            return
        path = _expression_path(function)
        if path is None or (len(path) == 1 and self.lookup(path[0]) is not None):
            return  # a closure's or a function value's call
        target = self.path_target(path)
        if target:
            self.add(target, node, arity)

    def path_target(self, path: Path) -> Path | None:
        """A called path as the resolver reads it: `Self` made the impl's type; in an inline module, which sees
        only its own items and `use`s, a path prefixed by the module's qualname (`self::` by it, `super::` by
        its parent's)."""
        head = path[0]
        if head == "Self":
            if self.owner is None or not self.owner.type:
                return None
            path = (*self.owner.type, *path[1:])
        elif head in self.generics:
            return None  # `T::f()`: the impl of a generic parameter
        if not self.prefix or path[0] == "crate":
            return path
        if path[0] == "self":
            return (*self.prefix, *path[1:])
        if path[0] == "super":
            return (*self.prefix[:-1], *path[1:])
        return (*self.prefix, *path)

    def method_call(self, function: Node, node: Node, arity: int | None) -> None:
        field, value = function.child_by_field_name("field"), function.child_by_field_name("value")
        if field is None or value is None or field.type != "field_identifier":
            return
        binding = self.receiver(value)
        if binding.type == ():
            return  # a method of a primitive type
        target = self.path_target((*binding.type, text(field))) if binding.type else (EXPR, text(field))
        if target:
            self.add(target, node, arity, binding.inferred)

    def receiver(self, value: Node) -> Binding:
        """The type of `self`, a local, or a field of either, where the file says it."""
        fields: list[str] = []
        while value.type == "field_expression" and len(fields) < _MAX_FIELDS:
            field = value.child_by_field_name("field")
            inner = value.child_by_field_name("value")
            if field is None or inner is None:
                return _UNKNOWN
            fields.append(text(field))
            value = inner
        if value.type == "self":
            owner = self.owner
            binding = Binding(owner.type) if owner is not None and not owner.trait else _UNKNOWN
        elif value.type == "identifier":
            binding = self.lookup(text(value)) or _UNKNOWN
        else:
            return _UNKNOWN
        for name in reversed(fields):
            if not binding.type or len(binding.type) != 1:
                return _UNKNOWN
            declared = self.extractor.fields.get(binding.type[0])
            binding = declared.get(name, _UNKNOWN) if declared else _UNKNOWN
        return binding

    def literal(self, node: Node) -> None:
        """`T { .. }` makes a T: a call of the struct, as a constructor call is elsewhere."""
        typed = self.own_type(_type_path(node.child_by_field_name("name")))
        if typed:
            self.add(self.path_target(typed) or typed, node, None)

    def macro_calls(self, node: Node) -> None:
        """`f(..)` and `path::f(..)` among a macro's argument tokens (`println!("{}", total(x))`)."""
        todo = [c for c in node.named_children if c.type == "token_tree"]
        while todo:
            tree = todo.pop(0)
            tokens = tree.children
            for i, token in enumerate(tokens):
                if token.type == "token_tree":
                    todo.append(token)
                    if i and tokens[i - 1].type == "identifier" and text(token).startswith("("):
                        path = _token_path(tokens, i - 1)
                        if path and not (len(path) == 1 and self.lookup(path[0]) is not None):
                            target = self.path_target(path)
                            if target:
                                self.add(target, tokens[i - 1], None)


# ---------------------------------------------------------------------------------------------- helpers
def _items(root: Node, source: bytes) -> list[tuple[Node, Path]]:
    """The file's items with the inline modules around them, in source order; and the items written in the braces
    of an item-level macro call (`cfg_rt! { pub fn spawn() {..} }`, as the benchmark's ground truth reads them),
    parsed where they stand in the file."""
    found: list[tuple[Node, Path]] = []
    todo: list[tuple[Node, Path, int]] = [(root, (), 0)]
    while todo:
        container, prefix, depth = todo.pop()
        for node in container.named_children:
            found.append((node, prefix))
            body = node.child_by_field_name("body") if node.type == "mod_item" else None
            name = node.child_by_field_name("name") if body is not None else None
            if body is not None and name is not None and len(prefix) < _MAX_MODULES:
                todo.append((body, (*prefix, text(name)), depth))
            elif node.type == "macro_invocation" and depth < _MAX_MACRO_DEPTH:
                braces = next((c for c in node.named_children if c.type == "token_tree"), None)
                if braces is not None and braces.text.startswith(b"{"):  # type: ignore[union-attr]  # parsed
                    todo.append((parse_inside("rust", source, braces).root_node, prefix, depth + 1))
    return sorted(found, key=lambda item: item[0].start_byte)



def _members(node: Node, source: bytes) -> list[Node]:
    """The items of an impl's or a trait's body, those in the braces of a macro call there included."""
    found: list[Node] = []
    todo: list[tuple[Node, int]] = [(node, 0)]
    while todo:
        container, depth = todo.pop()
        body = container.child_by_field_name("body") if depth == 0 else container
        for member in _named(body):
            found.append(member)
            braces = next((c for c in member.named_children if c.type == "token_tree"), None) \
                if member.type == "macro_invocation" and depth < _MAX_MACRO_DEPTH else None
            if braces is not None and braces.text.startswith(b"{"):  # type: ignore[union-attr]  # parsed
                todo.append((parse_inside("rust", source, braces).root_node, depth + 1))
    return sorted(found, key=lambda member: member.start_byte)


def _named(node: Node | None) -> list[Node]:
    return list(node.named_children) if node is not None else []


def _start(node: Node) -> int:
    """The item's first line, its `#[...]` attributes included (doc comments are not, unless between them)."""
    start, sibling = node, node.prev_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        if sibling.type == "attribute_item":
            start = sibling
        sibling = sibling.prev_sibling
    return first_line(start)


def _dotted(prefix: Path, name: str) -> str:
    return ".".join((*prefix, name))


def _generics(node: Node) -> frozenset[str]:
    parameters = node.child_by_field_name("type_parameters")
    return frozenset(text(p.child_by_field_name("name")) for p in _named(parameters)
                     if p.type == "type_parameter" and p.child_by_field_name("name") is not None)


def _type_path(node: Node | None) -> Type | None:
    """`T`, `a::T`, `T<U>`, `a::T<U>` -> its path parts; None for anything else."""
    if node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None:
        return None
    if node.type == "type_identifier":
        return (text(node),)
    if node.type == "scoped_type_identifier":
        path = _expression_path(node.child_by_field_name("path"))
        name = node.child_by_field_name("name")
        return (*path, text(name)) if path and name is not None else None
    return None


def _expression_path(node: Node | None) -> Path | None:
    """`f`, `a::b::f`, `crate::a::f`, `T::<U>::f`, `Self::f` -> its segments; None for anything else (`<T as
    Trait>::f`, a closure)."""
    names: list[str] = []
    while node is not None and node.type == "scoped_identifier":
        name = node.child_by_field_name("name")
        if name is None:
            return None
        names.append(text(name))
        node = node.child_by_field_name("path")
    if node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None or node.type not in ("identifier", "type_identifier", "crate", "self", "super"):
        return None
    names.append(text(node))
    return tuple(reversed(names))


def _token_path(tokens: list[Node], last: int) -> Path | None:
    """The `a::b::f` that ends at token `last` in a macro's tokens; None after a `.` (a method call, its receiver
    unknown) or a `!` (a nested macro)."""
    names = [text(tokens[last])]
    i = last
    while i >= 2 and tokens[i - 1].type == "::" and tokens[i - 2].type in ("identifier", "crate", "self", "super"):
        names.append(text(tokens[i - 2]))
        i -= 2
    if i and tokens[i - 1].type in (".", "::", "!"):
        return None
    return tuple(reversed(names))


def _result(function: Node, self_type: Type | None, generics: frozenset[str]) -> tuple[Type | None, Type | None]:
    """The type a function declares it returns (`Self`: the impl's), and what `?` takes out of a `Result<T, _>` or
    an `Option<T>` it returns; None where that is no named type of the repository's."""
    declared = function.child_by_field_name("return_type")
    while declared is not None and declared.type == "reference_type":
        declared = declared.child_by_field_name("type")
    typed = _type_path(declared)
    if not typed or typed[0] in generics:
        return None, None
    if typed == ("Self",):
        return self_type, None
    arguments = declared.child_by_field_name("type_arguments") \
        if declared is not None and declared.type == "generic_type" and typed[-1] in ("Result", "Option") else None
    inner = _type_path(arguments.named_children[0]) if arguments is not None and arguments.named_child_count else None
    if inner == ("Self",):
        inner = self_type
    return typed, inner if inner and inner[0] not in generics else None


def _fields(struct: Node) -> dict[str, Binding]:
    """A struct's named fields with the types they are declared with (a primitive, a named type, or unknown)."""
    fields: dict[str, Binding] = {}
    generics = _generics(struct)
    for field in _named(struct.child_by_field_name("body")):
        name, declared = field.child_by_field_name("name"), field.child_by_field_name("type")
        if field.type != "field_declaration" or name is None:
            continue
        while declared is not None and declared.type == "reference_type":
            declared = declared.child_by_field_name("type")
        typed = _type_path(declared)
        fields[text(name)] = Binding(()) if declared is not None and declared.type == "primitive_type" else \
            Binding(typed if typed and typed[0] not in generics and typed[0] != "Self" else None)
    return fields


def _use_paths(node: Node | None) -> list[tuple[Path, str | None]]:
    """The paths a `use` tree names, each with the alias it binds (None: its last segment; "" for `as _`):
    `a::{b, c::d as e}` -> [(("a", "b"), None), (("a", "c", "d"), "e")]; a glob ends in "*"."""
    found: list[tuple[Path, str | None]] = []
    todo: list[tuple[Node, Path]] = [(node, ())] if node is not None else []
    while todo:
        current, prefix = todo.pop(0)
        kind = current.type
        if kind == "use_as_clause":
            path = _expression_path(current.child_by_field_name("path"))
            alias = current.child_by_field_name("alias")
            if path and alias is not None:
                found.append(((*prefix, *path), text(alias) if text(alias) != "_" else ""))
        elif kind == "scoped_use_list":
            inner = current.child_by_field_name("path")
            path = _expression_path(inner) if inner is not None else ()
            listed = current.child_by_field_name("list")
            if path is not None and listed is not None:
                todo[:0] = [(c, (*prefix, *path)) for c in listed.named_children]
        elif kind == "use_list":
            todo[:0] = [(c, prefix) for c in current.named_children]
        elif kind == "use_wildcard":
            inner = current.named_children[0] if current.named_child_count else None
            path = _expression_path(inner) if inner is not None else ()
            if path is not None:
                found.append(((*prefix, *path, "*"), None))
        else:
            path = _expression_path(current)
            if path:
                found.append(((*prefix, *path), None))
    return found
