"""Go extractor: one file's types, functions, methods, imports, calls and embeddings, as `FileFacts`.

Pure and deterministic (`bytes -> FileFacts`). Named types are Classes (kind struct, interface or type), functions
and methods with a body are Functions: `F`, and `T.M` for a method on `T` or `*T` (type parameters dropped), whose
parent is `T` when the file declares it (elsewhere in the package, `T.M` stands in the file on its own, and the
resolver finds it through `methods_in_package`). Closures are no entities: their calls are their function's.
Embedded struct fields and embedded interfaces are bases.

Receivers are typed as the Go compiler types them, from what the file says: the method's receiver, parameters,
`var x T`, `x := T{..}` / `&T{..}`, a conversion `T(y)`, `x := f()` where `f` is this file's and declares its
result, the fields of this file's structs (promoted ones too) and the elements a `range` over a typed slice or map
hands out. Block scoping is followed (a name declared in an `if` is not seen after it). `x := NewT()`
or `pkg.NewT()` of a function the file does not hold is typed `T` by the naming convention (an inferred, heuristic
type). A value of unknown type is called through `<expr>`, so that a local variable never passes for the package it
shadows. Nothing recurses over the tree: deeply nested code cannot exhaust Python's stack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Callable, Iterator

import tree_sitter
from spider.core.schema import Label
from spider.indexer.languages.go import LANGUAGE, gomod
from spider.indexer.parse.facts import EXPR, FileFacts, Import, QualnameRegistry, Reference, RefKind
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

Type = tuple[str, ...]  # ("Order",), ("pay", "Card")
Frame = tuple[dict[str, "Binding"], "Frame | None"]  # names declared in a block, and the enclosing block's frame


@dataclass(frozen=True, slots=True)
class Binding:
    type: Type | None  # None: declared, type unknown; (): a predeclared type (`error`, `string`): no repository's
    inferred: bool = False  # typed by the `NewT()` naming convention
    element: Type | None = None  # a slice's, array's or map's values: what `range` hands out


_UNKNOWN = Binding(None)
_PREDECLARED_VALUE = Binding(())
_KINDS = {"struct_type": "struct", "interface_type": "interface"}
_TYPE_WRAPPERS = frozenset({"pointer_type", "parenthesized_type"})
# What function bodies are read for: blocks (what is declared inside is not seen after them), calls, composite
# literals, declarations, and the local type and const declarations holding nothing to read.
_QUERY = """
[(block) (if_statement) (for_statement) (expression_switch_statement) (type_switch_statement) (select_statement)
 (expression_case) (type_case) (default_case) (communication_case) (func_literal)] @block
(call_expression) @call
(type_conversion_expression) @conversion
(composite_literal) @literal
[(short_var_declaration) (var_spec) (range_clause)] @declare
[(type_declaration) (const_declaration)] @skip
"""
# The predeclared types: a method called on one of these is no repository function.
_PREDECLARED = frozenset(
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string "
    "uint uint8 uint16 uint32 uint64 uintptr".split()
)
_MAX_EMBEDDED = 16  # struct types looked through for a promoted field
_CONSTRUCTOR = re.compile(r"[Nn]ew([A-Z]\w*)\Z")  # NewOrder / newOrder -> Order
_MAJOR_VERSION = re.compile(r"v[0-9]+\Z")
_IDENTIFIER = re.compile(r"[^\W\d]\w*\Z")


def extract(path: str, source: bytes) -> FileFacts:
    if path.rpartition("/")[2] == "go.mod":
        return gomod.extract(path, source)
    root = parse("go", source).root_node
    facts = FileFacts(path=path, language=LANGUAGE, syntax_errors=count_syntax_errors(root))
    _Extractor(facts, SourceLines(source)).run(root)
    return facts


def package_name(import_path: str) -> str:
    """The name an import binds when it names none: its package's name, by the convention that it is the path's
    last element, less a major version (`/v2`, `yaml.v3`) and a `go-` prefix or `-go` suffix; "" where that is no
    identifier (then nothing is bound)."""
    parts = import_path.split("/")
    last = parts[-2] if len(parts) > 1 and _MAJOR_VERSION.match(parts[-1]) else parts[-1]
    last = re.sub(r"\.v[0-9]+\Z", "", last).removeprefix("go-").removesuffix("-go")
    return last if _IDENTIFIER.match(last) else ""


def type_of(node: Node | None) -> Type | None:
    """`T`, `*T`, `pkg.T`, `T[K]` -> its name parts; None for anything unnamed (slices, maps, literals, funcs)."""
    while node is not None and node.type in _TYPE_WRAPPERS:
        node = node.named_children[0] if node.named_child_count else None
    if node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None:
        return None
    if node.type == "type_identifier":
        return (text(node),)
    if node.type == "qualified_type":
        package, name = node.child_by_field_name("package"), node.child_by_field_name("name")
        return (text(package), text(name)) if package is not None and name is not None else None
    return None


def _chain(node: Node) -> Type | None:
    """`a.b.c` written as identifiers and selectors, as parts; None for anything else."""
    parts: list[str] = []
    while node.type == "selector_expression":
        operand, field = node.child_by_field_name("operand"), node.child_by_field_name("field")
        if operand is None or field is None:
            return None
        parts.append(text(field))
        node = operand
    if node.type != "identifier":
        return None
    parts.append(text(node))
    return tuple(reversed(parts))


def _names(node: Node, field: str) -> list[str]:
    return [text(n) for n in node.children_by_field_name(field) if n.type == "identifier"]


def _expressions(node: Node | None) -> list[Node]:
    if node is None:
        return []
    return list(node.named_children) if node.type == "expression_list" else [node]


class _Extractor:
    def __init__(self, facts: FileFacts, lines: SourceLines) -> None:
        self.facts = facts
        self.lines = lines
        self.registry = QualnameRegistry()
        self.types: set[str] = set()  # the file's named types
        # the file's structs -> their fields (an embedded one by its type's name) and which of them are embedded
        self.fields: dict[str, tuple[dict[str, Binding], list[str]]] = {}
        self.results: dict[str, Type | None] = {}  # the file's functions -> the type of their first result
        self.globals: dict[str, Binding] = {}  # the file's package-level variables
        self.body_frames: list[tuple[int, int, str, Frame]] = []  # each function's body: start, end, scope, frame

    def run(self, root: Node) -> None:
        declarations = root.named_children
        for node in declarations:  # what later declarations refer to: types, results, package-level variables
            if node.type == "type_declaration":
                for spec in node.named_children:
                    if spec.type == "type_spec":
                        self.types.add(text(spec.child_by_field_name("name")))
                        self.fields[text(spec.child_by_field_name("name"))] = _fields(spec.child_by_field_name("type"))
            elif node.type == "function_declaration":
                self.results[text(node.child_by_field_name("name"))] = self.result_type(node)
        file_frame: Frame = (self.globals, None)
        for node in declarations:
            if node.type == "var_declaration":
                for spec in node.named_children:
                    if spec.type == "var_spec":
                        self.declare(self.globals, spec, file_frame)
        for node in declarations:
            kind = node.type
            if kind == "package_clause":
                name = next((c for c in node.named_children if c.type == "package_identifier"), None)
                self.facts.package = text(name) if name is not None else None
            elif kind == "import_declaration":
                self.imports(node)
            elif kind == "type_declaration":
                self.type_declaration(node)
            elif kind in ("function_declaration", "method_declaration"):
                self.function(node, file_frame)
        self.bodies(root)

    # ------------------------------------------------------------------------------------------ declarations
    def imports(self, node: Node) -> None:
        for spec in _descendants_of_type(node, "import_spec"):
            path_node = spec.child_by_field_name("path")
            if path_node is None:
                continue
            import_path = text(path_node).strip('"`')
            name = spec.child_by_field_name("name")
            line = first_line(spec)
            if name is not None and name.type == "dot":
                self.facts.imports.append(Import(None, import_path, "*", "", line))
            elif name is not None and name.type == "blank_identifier":
                self.facts.imports.append(Import(None, import_path, None, "", line))
            else:
                alias = text(name) if name is not None else package_name(import_path)
                self.facts.imports.append(Import(None, import_path, None, alias, line))

    def type_declaration(self, node: Node) -> None:
        specs = [c for c in node.named_children if c.type == "type_spec"]
        grouped = any(c.type == "(" for c in node.children)
        for spec in specs:
            name_node, type_node = spec.child_by_field_name("name"), spec.child_by_field_name("type")
            if name_node is None or type_node is None:
                continue
            name = text(name_node)
            qualname = self.registry.claim(None, name)
            outer = spec if grouped else node
            self.facts.entities.append(self.lines.entity(
                Label.CLASS, qualname, name, _KINDS.get(type_node.type, "type"), first_line(outer), last_line(outer),
                None,
            ))
            for embedded, at in _embedded(type_node):
                self.facts.references.append(Reference(qualname, RefKind.INHERIT, embedded, first_line(at)))

    def function(self, node: Node, file_frame: Frame) -> None:
        body = node.child_by_field_name("body")
        name_node = node.child_by_field_name("name")
        if body is None or name_node is None:
            return  # implemented elsewhere (assembly, linkname): no Function
        name = text(name_node)
        frame: dict[str, Binding] = {}
        if node.type == "method_declaration":
            receiver = next((p for p in _parameters(node.child_by_field_name("receiver"))), None)
            receiver_type = type_of(receiver.child_by_field_name("type")) if receiver is not None else None
            if receiver_type is None or len(receiver_type) != 1:
                return  # not a method Go accepts
            owner = receiver_type[0]
            parent = owner if owner in self.types else None
            qualname = self.registry.claim(parent, name) if parent else self.registry.claim(None, f"{owner}.{name}")
            kind = "method"
            self.bind_parameters(frame, node.child_by_field_name("receiver"))
        else:
            parent, qualname, kind = None, self.registry.claim(None, name), "function"
        self.facts.entities.append(
            self.lines.entity(Label.FUNCTION, qualname, name, kind, first_line(node), last_line(node), parent)
        )
        self.bind_parameters(frame, node.child_by_field_name("parameters"))
        self.body_frames.append((body.start_byte, body.end_byte, qualname, (frame, file_frame)))

    def result_type(self, node: Node) -> Type | None:
        result = node.child_by_field_name("result")
        if result is not None and result.type == "parameter_list":
            first = next(_parameters(result), None)
            result = first.child_by_field_name("type") if first is not None else None
        return type_of(result)

    # ----------------------------------------------------------------------------------------------- bodies
    def bodies(self, root: Node) -> None:
        """The calls in the function bodies, each with its receiver typed by the declarations in scope. A query
        finds what matters (calls, literals, declarations, blocks) in C; it is read in source order, enclosing
        nodes first, with a stack of open blocks and the declarations waiting for their values to be read."""
        found = sorted(
            ((node.start_byte, -node.end_byte, name, node)
             for name, nodes in tree_sitter.QueryCursor(_query()).captures(root).items() for node in nodes),
            key=_position,
        )
        bodies = iter(sorted(self.body_frames))
        body = next(bodies, None)
        frames: list[tuple[int, Frame]] = []  # open blocks: (end byte, frame)
        binders: list[tuple[int, Callable[[], None]]] = []  # declarations whose values are being read: (end, bind)
        skip_until = -1  # inside a type or const declaration: nothing to look at
        switches: list[tuple[int, list[str]]] = []  # open type switches: (end byte, the names they bind)
        for start, _, name, node in found:
            while body is not None and body[1] <= start:  # past this function: the next one
                body, frames, binders, switches = next(bodies, None), [], [], []
            if body is None:
                break
            body_start, body_end, scope, frame = body
            if start < body_start or start < skip_until:
                continue
            if not frames:
                frames.append((body_end, frame))
            while binders and binders[-1][0] <= start:
                binders.pop()[1]()
            while frames[-1][0] <= start:
                frames.pop()
            frame = frames[-1][1]
            if name == "block":
                if start == body_start:
                    continue  # the body's block is the parameters' scope: `x, err := f()` reuses a parameter err
                frame = ({}, frame)
                frames.append((node.end_byte, frame))
                if node.type == "func_literal":
                    self.bind_parameters(frame[0], node.child_by_field_name("parameters"))
                elif node.type == "type_switch_statement":  # `switch v := x.(type)`: v has each case's type
                    names = [text(c) for alias in node.children_by_field_name("alias") for c in _expressions(alias)
                             if c.type == "identifier"]
                    frame[0].update((name, _UNKNOWN) for name in names)
                    switches.append((node.end_byte, names))
                elif node.type == "type_case":  # `case *T:` (one type): v is a *T here
                    while switches and switches[-1][0] <= start:
                        switches.pop()
                    types = node.children_by_field_name("type")
                    if switches and len(types) == 1 and text(types[0]) != "nil":
                        frame[0].update((name, _declared(types[0])) for name in switches[-1][1])
            elif name == "call":
                self.call(node, scope, frame)
            elif name == "conversion":  # `Map[int](xs)`: a generic function's call
                self.conversion(node, scope)
            elif name == "literal":
                self.literal(node, scope)
            elif name == "declare":
                binders.append((node.end_byte, self.binder(node, frame)))
            else:
                skip_until = node.end_byte

    def binder(self, node: Node, frame: Frame) -> Callable[[], None]:
        """What binds the names a declaration introduces, run after its values are walked (`x := x.f()` reads
        the outer `x`)."""
        def bind() -> None:
            names = frame[0]
            if node.type == "var_spec":
                self.declare(names, node, frame)
            elif node.type == "short_var_declaration":
                left = [text(c) for c in _expressions(node.child_by_field_name("left")) if c.type == "identifier"]
                known = {name: names[name] for name in left if name in names}  # reused, not declared again
                self.assign(names, left, _expressions(node.child_by_field_name("right")), frame)
                names.update(known)
            else:  # `for k, v := range xs`: v is an element of xs
                left = [text(c) for c in _expressions(node.child_by_field_name("left")) if c.type == "identifier"]
                ranged = node.child_by_field_name("right")
                element = self.expression(ranged, frame).element if ranged is not None else None
                names.update((name, _UNKNOWN) for name in left)
                if len(left) == 2 and element:
                    names[left[1]] = _binding(element)
        return bind

    def declare(self, names: dict[str, Binding], spec: Node, frame: Frame) -> None:
        """`var a, b T` / `var a, b = x, y`."""
        declared = spec.child_by_field_name("type")
        if declared is not None:
            for name in _names(spec, "name"):
                names[name] = _declared(declared)
        else:
            self.assign(names, _names(spec, "name"), _expressions(spec.child_by_field_name("value")), frame)

    def assign(self, names: dict[str, Binding], left: list[str], right: list[Node], frame: Frame) -> None:
        for i, name in enumerate(left):
            if name == "_":
                continue
            if len(right) == len(left):
                names[name] = self.value_type(right[i], frame)
            elif len(right) == 1 and i == 0:  # `x, err := NewX()`: the first result
                names[name] = self.value_type(right[0], frame)
            else:
                names[name] = _UNKNOWN

    def expression(self, value: Node, frame: Frame) -> Binding:
        """The static type of a name or a field of one (`o.items`), where the file says it."""
        parts = _chain(value)
        binding = _lookup(frame, parts[0]) if parts else None
        if parts is None or binding is None:
            return _UNKNOWN
        for field in parts[1:]:
            binding = self.field(binding, field)
        return binding

    def field(self, owner: Binding, name: str) -> Binding:
        """Field `name` of a value of a struct type this file declares, or promoted from a struct of this file it
        embeds (the shallowest, as Go promotes)."""
        todo, seen = [owner.type], set[str]()
        while todo and len(seen) < _MAX_EMBEDDED:
            typed = todo.pop(0)
            if not typed or len(typed) != 1 or typed[0] in seen:
                continue
            seen.add(typed[0])
            fields, embedded = self.fields.get(typed[0], ({}, []))
            if name in fields:
                return fields[name]
            todo.extend(fields[e].type for e in embedded)
        return _UNKNOWN

    def value_type(self, value: Node, frame: Frame) -> Binding:
        """The static type of an initialiser, where the file says it."""
        if value.type == "unary_expression" and text(value.child_by_field_name("operator")) == "&":
            value = value.child_by_field_name("operand") or value
        if value.type == "composite_literal":
            declared = value.child_by_field_name("type")
            return _declared(declared) if declared is not None else _UNKNOWN
        if value.type in ("identifier", "selector_expression"):
            return self.expression(value, frame)
        if value.type != "call_expression":
            return _UNKNOWN
        callee = value.child_by_field_name("function")
        parts = _chain(callee) if callee is not None else None
        if parts is None or len(parts) > 2 or _lookup(frame, parts[0]) is not None:
            return _UNKNOWN
        if len(parts) == 1 and parts[0] in ("new", "make") and parts[0] not in self.results:  # the builtins
            arguments = value.child_by_field_name("arguments")
            made = arguments.named_children[0] if arguments is not None and arguments.named_child_count else None
            return _declared(made) if made is not None else _UNKNOWN
        if len(parts) == 1 and parts[0] in self.results:  # this file's function: its declared result
            return _binding(self.results[parts[0]])
        if len(parts) == 1 and parts[0] in self.types:  # a conversion `T(x)`
            return Binding(parts)
        constructed = _CONSTRUCTOR.match(parts[-1])
        if constructed is None:
            return _UNKNOWN
        return Binding((*parts[:-1], constructed[1]), inferred=True)

    def bind_parameters(self, names: dict[str, Binding], parameters: Node | None) -> None:
        for parameter in _parameters(parameters):
            declared = parameter.child_by_field_name("type")
            binding = _declared(declared) if declared is not None else _UNKNOWN
            if parameter.type == "variadic_parameter_declaration":  # a slice of them
                binding = Binding(None, element=binding.type) if binding.type else _UNKNOWN
            for name in _names(parameter, "name"):
                names[name] = binding

    # ------------------------------------------------------------------------------------------ references
    def call(self, node: Node, scope: str, frame: Frame) -> None:
        callee = node.child_by_field_name("function")
        parts = _chain(callee) if callee is not None else None
        if parts is None:
            return  # a closure called in place, a call's result called: nothing to name
        binding = _lookup(frame, parts[0])
        inferred = False
        if binding is not None:
            if len(parts) == 1:
                return  # a function value called
            inferred = binding.inferred
            for name in parts[1:-1]:  # `o.items.Add()`: the fields on the way
                binding = self.field(binding, name)
                if binding.type is None:
                    return  # a field of a value of unknown type
            if binding.type == ():
                return  # a method of a predeclared type (`err.Error()`)
            parts = (*binding.type, parts[-1]) if binding.type else (EXPR, parts[-1])
        arguments = node.child_by_field_name("arguments")
        arity = sum(1 for c in arguments.named_children if c.type != "comment") if arguments is not None else None
        self.facts.references.append(Reference(scope, RefKind.CALL, parts, first_line(node), arity, inferred))

    def conversion(self, node: Node, scope: str) -> None:
        converted = node.child_by_field_name("type")
        if converted is not None and converted.type == "generic_type":
            typed = type_of(converted)
            if typed:
                self.facts.references.append(Reference(scope, RefKind.CALL, typed, first_line(node), 1))

    def literal(self, node: Node, scope: str) -> None:
        """`T{..}` makes a T: a call of the class, as a constructor call is elsewhere."""
        typed = type_of(node.child_by_field_name("type"))
        if typed and _binding(typed).type:
            self.facts.references.append(Reference(scope, RefKind.CALL, typed, first_line(node), None))


def _declared(node: Node) -> Binding:
    """What a declared type says of its values: their type, or the type of a slice's, array's or map's values."""
    if node.type in ("slice_type", "array_type", "implicit_length_array_type"):
        element = type_of(node.child_by_field_name("element"))
        return Binding(None, element=element) if element else _UNKNOWN
    if node.type == "map_type":
        value = type_of(node.child_by_field_name("value"))
        return Binding(None, element=value) if value else _UNKNOWN
    return _binding(type_of(node))


def _fields(type_node: Node | None) -> tuple[dict[str, Binding], list[str]]:
    """A struct's fields with their declared types, and the names of the embedded ones (their types' names)."""
    fields: dict[str, Binding] = {}
    embedded: list[str] = []
    declarations = next((c for c in type_node.named_children if c.type == "field_declaration_list"), None) \
        if type_node is not None and type_node.type == "struct_type" else None
    for field in declarations.named_children if declarations is not None else ():
        declared = field.child_by_field_name("type")
        if field.type != "field_declaration" or declared is None:
            continue
        names = [text(n) for n in field.children_by_field_name("name")]
        if not names:
            typed = type_of(declared)
            if typed:
                embedded.append(typed[-1])
                fields[typed[-1]] = _binding(typed)
            continue
        for name in names:
            fields[name] = _declared(declared)
    return fields, embedded


def _binding(typed: Type | None) -> Binding:
    if typed is None:
        return _UNKNOWN
    return _PREDECLARED_VALUE if len(typed) == 1 and typed[0] in _PREDECLARED else Binding(typed)


@cache
def _query() -> tree_sitter.Query:
    return tree_sitter.Query(language("go"), _QUERY)


def _position(found: tuple[int, int, str, Node]) -> tuple[int, int]:
    return found[0], found[1]


def _lookup(frame: Frame | None, name: str) -> Binding | None:
    while frame is not None:
        found = frame[0].get(name)
        if found is not None:
            return found
        frame = frame[1]
    return None


def _parameters(parameters: Node | None) -> Iterator[Node]:
    if parameters is None:
        return
    for parameter in parameters.named_children:
        if parameter.type in ("parameter_declaration", "variadic_parameter_declaration"):
            yield parameter


def _embedded(type_node: Node) -> list[tuple[Type, Node]]:
    """The types a struct embeds (fields without a name) or an interface embeds (a lone type element), each with
    where."""
    found: list[tuple[Type, Node]] = []
    if type_node.type == "struct_type":
        fields = next((c for c in type_node.named_children if c.type == "field_declaration_list"), None)
        for field in fields.named_children if fields is not None else ():
            if field.type == "field_declaration" and field.child_by_field_name("name") is None:
                typed = type_of(field.child_by_field_name("type"))
                if typed:
                    found.append((typed, field))
    elif type_node.type == "interface_type":
        for element in type_node.named_children:
            if element.type == "type_elem" and element.named_child_count == 1:
                typed = type_of(element.named_children[0])
                if typed and _binding(typed).type:
                    found.append((typed, element))
    return found


def _descendants_of_type(node: Node, kind: str) -> Iterator[Node]:
    todo = [node]
    while todo:
        current = todo.pop()
        if current.type == kind:
            yield current
        else:
            todo.extend(reversed(current.named_children))
