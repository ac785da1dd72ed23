"""Java extractor: one file's classes, methods, imports, calls and base types, as `FileFacts`.

Pure and deterministic (`bytes -> FileFacts`). One compiled tree-sitter query finds the nodes that matter
(declarations, calls, imports) in C; they are then read in source order, the order a pre-order walk visits
them, with a stack of open regions (a class body, a method body, a block with declarations, or a part of the
file where nothing is looked at, such as a method's header) giving each the context it is read in. Walking
every node in Python instead cost more than the parse itself. Nothing recurses, so long expression chains
(string concatenations of thousands of terms) cannot exhaust Python's stack.

Receivers of calls are typed from declarations when the file says so: a local variable, parameter, pattern
binding, resource, catch parameter or a field of an enclosing class declared `T x` (or `var x = new T(..)`)
makes `x.m()` a call to `("T", "m")`. Lexical scoping is followed (blocks, `for`, `catch`, lambdas, classes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter
from typing import Callable

import tree_sitter
from spider.core.schema import Label
from spider.indexer.languages.java import LANGUAGE
from spider.indexer.parse.facts import SELF, SUPER, Entity, FileFacts, Import, QualnameRegistry, Reference, RefKind
from spider.indexer.parse.treesitter import Node, SourceLines, count_syntax_errors, field_id, language, parse, text

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
_HEADER = {"package_declaration", "import_declaration", *_COMMENTS}
_TYPE_NAMES = {"type_identifier", "scoped_type_identifier"}
_ANNOTATIONS = {"annotation", "marker_annotation"}
_PRIMITIVE_TYPES = {"integral_type", "floating_point_type", "boolean_type", "void_type"}

# The nodes looked at, by what is done with them (the handlers of `_Extractor.run`); anything else only
# through these. Block-like scopes are found from what is declared in them (`_Extractor.frame`); import
# declarations are added when they may stand elsewhere than at the top (`_query`).
_QUERY = """
[(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)
 (annotation_type_declaration)] @class
[(method_declaration) (annotation_type_element_declaration) (constructor_declaration)
 (compact_constructor_declaration)] @method
(method_invocation) @call
(object_creation_expression) @new
(enum_constant) @enum_constant
(explicit_constructor_invocation) @ctor_call
(method_reference) @method_ref
(lambda_expression) @lambda
(enhanced_for_statement) @for_each
(local_variable_declaration) @declare
(resource) @resource
(catch_formal_parameter) @catch
(instanceof_expression) @instanceof
(type_pattern) @type_pattern
(package_declaration) @package
"""

# A dotted name written plainly (ASCII identifiers, no spaces, comments, generics or annotations): its text
# split on "." is what walking its nodes gives. Keywords are left to the walk (`this`, `super`, `class`, ..).
_DOTTED = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*\Z")
# `import [static] a.b.C[.*];` written plainly.
_IMPORT = re.compile(
    rb"import\s+(?:static\s+)?([A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*)(\.\*)?\s*;"
)
_KEYWORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double else enum "
    "extends final finally float for goto if implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while true false null".split()
)

_LANGUAGE = language("java")
_NAME = field_id(_LANGUAGE, "name")
_OBJECT = field_id(_LANGUAGE, "object")
_ARGUMENTS = field_id(_LANGUAGE, "arguments")
_TYPE = field_id(_LANGUAGE, "type")
_BODY = field_id(_LANGUAGE, "body")
_PARAMETERS = field_id(_LANGUAGE, "parameters")
_DECLARATOR = field_id(_LANGUAGE, "declarator")
_VALUE = field_id(_LANGUAGE, "value")


def _kinds(*names: str) -> frozenset[int]:
    """The ids of the node kinds so named (`node.kind_id in ..` is `node.type in names`, cheaper)."""
    return frozenset(i for i in range(_LANGUAGE.node_kind_count) if _LANGUAGE.node_kind_for_id(i) in names)


_IDENTIFIER = _kinds("identifier")
_TYPE_IDENTIFIER = _kinds("type_identifier")
_GENERIC_TYPE = _kinds("generic_type")
_PRIMITIVE_TYPE = _kinds(*_PRIMITIVE_TYPES)
_SCOPE = _kinds(*_SCOPES)
_FIELDS = _kinds("field_declaration", "constant_declaration")
_ENUM_CONSTANT = _kinds("enum_constant")
_ENUM_BODY_DECLARATIONS = _kinds("enum_body_declarations")

_first = itemgetter(0)
_CALL = RefKind.CALL
_INHERIT = RefKind.INHERIT


Type = tuple[str, ...]  # dotted type name, generics and array dimensions stripped: ("Map", "Entry")


# A lexical scope: the names declared in it with their type (None: declared, type unknown), and the
# enclosing scope. A class's scope holds its fields.
Frame = tuple[dict[str, "Type | None"], "Frame | None"]


@dataclass(slots=True)
class _Class:
    qualname: str
    name: str  # simple name as written (`<new T>` for an anonymous class)
    superclass: str | None  # simple name of the `extends` class, for `super(...)`
    fields: dict[str, Type | None] = field(default_factory=dict)


# What a node is looked at in: (qualname of the innermost enclosing entity, innermost enclosing class, frame).
Ctx = tuple[str | None, _Class | None, Frame]
# Part of the file looked at in one context: (start byte, end byte, context; None: nothing inside is looked at).
Region = tuple[int, int, Ctx | None]
# A region whose context is looked at: what a handler of `_Extractor.run` is given.
Open = tuple[int, int, Ctx]
Handler = Callable[[Node, Open], None]


class _Utf8Text:
    """A source that is not ASCII, cut by byte offsets (which are not those of its characters) as text."""

    __slots__ = ("source",)

    def __init__(self, source: bytes) -> None:
        self.source = source

    def __getitem__(self, cut: slice) -> str:
        return self.source[cut].decode("utf-8", "replace")


def extract(path: str, source: bytes) -> FileFacts:
    root = parse("java", source).root_node
    facts = FileFacts(path=path, language=LANGUAGE, syntax_errors=count_syntax_errors(root))
    _Extractor(facts, SourceLines(source), source).run(root)
    return facts


@cache
def _query(imports: bool) -> tree_sitter.Query:
    """The query; with `imports`, import declarations too (else they are all read at the top)."""
    return tree_sitter.Query(_LANGUAGE, _QUERY + ("(import_declaration) @import\n" if imports else ""))


class _Extractor:
    def __init__(self, facts: FileFacts, lines: SourceLines, source: bytes) -> None:
        self.facts = facts
        self.lines = lines
        self.source = source
        # The source as text, to cut a node's text from by its byte offsets: when it is ASCII, without decoding.
        self.code: str | _Utf8Text = source.decode("ascii") if source.isascii() else _Utf8Text(source)
        self.broken = False  # whether the file has syntax errors (else no node has)
        self.registry = QualnameRegistry()
        self.add_reference = facts.references.append
        # Open regions, innermost last: (start byte, end byte, context; None: nothing inside is looked at).
        # A region may be pushed before it starts (the body of `new T(args) {..}`, while `args` come first):
        # the regions beneath it then hold what comes before.
        self.regions: list[Region] = []

    def text(self, node: Node) -> str:
        return self.code[node.start_byte : node.end_byte]

    # ----------------------------------------------------------------------------------------------- walk
    def run(self, root: Node) -> None:
        """Read the file's heading, then every node the query finds, in source order, each in the context of
        the innermost region around it."""
        handlers: dict[str, Handler] = {
            "class": self.class_declaration,
            "method": self.method_declaration,
            "call": self.method_invocation,
            "new": self.object_creation,
            "enum_constant": self.enum_constant,
            "ctor_call": self.constructor_invocation,
            "method_ref": self.method_reference,
            "lambda": self.lambda_expression,
            "for_each": self.enhanced_for,
            "declare": self.declaration,
            "resource": self.resource,
            "catch": self.catch_parameter,
            "instanceof": self.instanceof,
            "type_pattern": self.type_pattern,
            "package": self.package_declaration,
            "import": self.import_declaration,
        }
        found: list[tuple[int, Handler, Node]] = []
        for kind, nodes in self.read_heading(root).items():
            handler = handlers[kind]
            # Source order, enclosing nodes first (the order a pre-order walk visits them): by start, then
            # by end descending.
            found += [((node.start_byte << 32) | (0xFFFFFFFF - node.end_byte), handler, node) for node in nodes]
        found.sort(key=_first)
        regions = self.regions
        regions.append((-1, 1 << 62, (None, None, ({}, None))))
        for key, handler, node in found:
            start = key >> 32
            region = regions[-1]
            while region[1] <= start:
                regions.pop()
                region = regions[-1]
            if region[0] > start:  # pushed ahead of its start: look beneath it
                index = len(regions) - 2
                region = regions[index]
                while region[0] > start:
                    index -= 1
                    region = regions[index]
            if region[2] is not None:
                handler(node, region)  # type: ignore[arg-type]  # its context is not None: an `Open`

    def read_heading(self, root: Node) -> dict[str, list[Node]]:
        """The query's captures, by name. The package and import declarations stand at the top of the file,
        outside any region, and their order among the rest does not matter: unless some stand elsewhere, they
        are read here, first, and left out of the captures."""
        self.broken = root.has_error
        children = root.named_children
        top = [c for c in children if c.type in ("import_declaration", "package_declaration")]
        top_imports = [c for c in top if c.type == "import_declaration"]
        # Without syntax errors each import declaration starts with `import`: when the file has no more of those
        # than declarations at the top, there are none elsewhere, and the query need not look for them, nor
        # look at the package and import declarations heading the file (nothing inside is looked at).
        elsewhere = self.broken or self.source.count(b"import") != len(top_imports)
        cursor = tree_sitter.QueryCursor(_query(elsewhere))
        if elsewhere:
            captures = cursor.captures(root)
        else:
            first = next((c for c in children if c.type not in _HEADER), None)
            if first is None:
                captures, begin = {}, 1 << 62
            else:
                begin = first.start_byte
                cursor.set_byte_range(begin, 0xFFFFFFFF)
                captures = cursor.captures(root)
            captures["import"] = top_imports
            heading = [c for c in top if c.type == "package_declaration" and c.start_byte < begin]
            captures["package"] = heading + captures.get("package", [])
        imports = captures.get("import", ())
        package = captures.get("package", ())
        if (imports or package) and len(top) == len(imports) + len(package):
            captures.pop("import", None)
            captures.pop("package", None)
            for node in top:
                if node.type == "import_declaration":
                    self.read_import(node)
                else:
                    self.read_package(node)
        return captures

    def method_invocation(self, node: Node, region: Open) -> None:
        """`m(..)`, `x.m(..)`, `a.b.m(..)`: most of what is found, so the common forms are read from the text."""
        ctx = region[2]
        scope = ctx[0]
        if scope is None:
            return  # only in broken files: no entity to start an INVOKES edge from
        name_node = node.child_by_field_id(_NAME)
        if name_node is None:
            return
        broken = self.broken and node.has_error
        obj = node.child_by_field_id(_OBJECT)
        if obj is None:
            target: Type | None = (self.code[name_node.start_byte : name_node.end_byte],)
        else:
            target = self.invocation_target(node, obj, name_node, ctx, broken)
        if target is None:
            return  # a receiver that cannot be named
        args = node.child_by_field_id(_ARGUMENTS)
        if args is None:
            arity = None
        else:
            arity = args.named_child_count  # as `arity`, but with the errors of the whole call
            if arity and (
                broken
                or args.child_count != 2 * arity + 1
                or (arity == 1 and self.source.find(b"/", args.start_byte, args.end_byte) >= 0)
            ):
                arity = sum(1 for c in args.named_children if c.type not in _COMMENTS)
        self.add_reference(Reference(scope, _CALL, target, name_node.start_point[0] + 1, arity))

    def invocation_target(self, node: Node, obj: Node, name_node: Node, ctx: Ctx, broken: bool) -> Type | None:
        """The target of `obj.m(..)`: the receiver's declared type, or its name as written, then `m`; None when
        the receiver cannot be named (the call is skipped)."""
        receiver = name = None
        if not broken and obj.kind_id in _IDENTIFIER:  # the receiver most calls have
            receiver, _, name = self.code[obj.start_byte : name_node.end_byte].partition(".")
            if not (receiver.isidentifier() and name.isidentifier()):
                receiver = name = None  # spaces, comments, `<T>`, `Iface.super.m()`: as below
        if receiver is None:
            # `obj.m(..)` has 4 children; `Iface.super.m()` more.
            if (node.child_count != 4 or broken) and any(c.type == "super" and c != obj for c in node.children):
                prefix = _chain(obj)  # `Iface.super.m()`: Iface's m
            elif obj.kind_id in _IDENTIFIER:
                receiver = self.code[obj.start_byte : obj.end_byte]
            else:
                prefix = self.receiver(obj, ctx)
        if receiver is not None:  # looked up here
            prefix = (receiver,)
            frame: Frame | None = ctx[2]
            while frame is not None:
                names = frame[0]
                if receiver in names:
                    prefix = names[receiver] or prefix
                    break
                frame = frame[1]
        if prefix is None:
            return None
        return (*prefix, name if name is not None else self.code[name_node.start_byte : name_node.end_byte])

    def skip(self, node: Node) -> None:
        """Nothing inside `node` is looked at (but inside the regions pushed after this)."""
        self.regions.append((node.start_byte, node.end_byte, None))

    def frame(self, node: Node, region: Open) -> dict[str, Type | None]:
        """The names declared in the innermost scope around `node` (a block-like scope gets its frame, and
        becomes a region, once something is declared in it: most never have anything)."""
        begin, end, ctx = region
        parent = node.parent
        while parent is not None:
            start = parent.start_byte
            if start < begin:
                break  # the scope encloses the region: the region's frame
            stop = parent.end_byte
            if start == begin and stop >= end:
                # The region itself: its frame (a method's or lambda's body holding both the parameters and
                # the locals is looked up the same as two frames).
                break
            if parent.kind_id in _SCOPE:
                names: dict[str, Type | None] = {}
                self.regions.append((start, stop, (ctx[0], ctx[1], (names, ctx[2]))))
                return names
            parent = parent.parent
        return ctx[2][0]

    def enhanced_for(self, node: Node, region: Open) -> None:
        ctx = region[2]
        names: dict[str, Type | None] = {}
        self.regions.append((node.start_byte, node.end_byte, (ctx[0], ctx[1], (names, ctx[2]))))
        name = node.child_by_field_id(_NAME)
        if name is not None:
            names[self.text(name)] = self.var_type(node.child_by_field_id(_TYPE), None)

    def declaration(self, node: Node, region: Open) -> None:
        self.declare(self.frame(node, region), node)

    def resource(self, node: Node, region: Open) -> None:
        """`try (T x = ..)`."""
        type_node = node.child_by_field_id(_TYPE)
        name = node.child_by_field_id(_NAME)
        if name is not None and type_node is not None:
            value = self.var_type(type_node, node.child_by_field_id(_VALUE))
            self.frame(node, region)[self.text(name)] = value

    def catch_parameter(self, node: Node, region: Open) -> None:
        name = node.child_by_field_id(_NAME)
        types = [c for c in node.named_children if c.type == "catch_type"]
        named = [c for c in types[0].named_children if c.type not in _ANNOTATIONS] if types else []
        if name is not None:
            self.frame(node, region)[self.text(name)] = self.type_parts(named[0]) if len(named) == 1 else None

    def instanceof(self, node: Node, region: Open) -> None:
        name = node.child_by_field_id(_NAME)
        if name is not None:
            self.frame(node, region)[self.text(name)] = self.type_parts(node.child_by_field_name("right"))

    def type_pattern(self, node: Node, region: Open) -> None:
        named = [c for c in node.named_children if c.type != "modifiers"]
        if len(named) == 2 and named[1].type == "identifier":
            self.frame(node, region)[self.text(named[1])] = self.type_parts(named[0])

    def package_declaration(self, node: Node, region: Open) -> None:
        self.skip(node)
        self.read_package(node)

    def read_package(self, node: Node) -> None:
        self.facts.package = next(
            (self.dotted(c) for c in node.named_children if c.type in ("identifier", "scoped_identifier")), None
        )

    # ------------------------------------------------------------------------------------------- entities
    def add_entity(
        self, label: Label, node: Node, name: str, kind: str, parent: str | None, params: int | None = None
    ) -> str:
        qualname = self.registry.claim(parent, name)
        first = node.start_point[0]
        row, column = node.end_point
        last = row if column == 0 and row > first else row + 1  # as `last_line`
        # As `SourceLines.entity`.
        code = self.lines.cut(first + 1, last)
        self.facts.entities.append(Entity(label, qualname, name, kind, first + 1, last, code, parent, params))
        return qualname

    def class_declaration(self, node: Node, region: Open) -> None:
        ctx = region[2]
        name_node = node.child_by_field_id(_NAME)
        if name_node is None:
            return  # everything inside is looked at, in this context
        name = self.text(name_node)
        qualname = self.add_entity(Label.CLASS, node, name, _CLASS_KINDS[node.type], ctx[0])
        superclass = None
        for child in node.named_children:
            if child.type == "superclass":
                bases = [t for t in child.named_children if t.type not in _COMMENTS]
                base = self.type_parts(bases[0]) if bases else None
                if base:
                    superclass = base[-1]
                    self.inherit(qualname, base, bases[0])
            elif child.type in ("super_interfaces", "extends_interfaces"):
                for type_list in child.named_children:
                    for t in type_list.named_children if type_list.type == "type_list" else [type_list]:
                        base = self.type_parts(t)
                        if base:
                            self.inherit(qualname, base, t)
        cls = _Class(qualname, name, superclass)
        if node.type == "record_declaration":
            params = node.child_by_field_id(_PARAMETERS)
            if params is not None:
                fields: dict[str, Type | None] = {}
                self.declare_parameters(fields, params)
                cls.fields.update(fields)
        self.skip(node)  # only the members are looked at
        self.enter_class(cls, node.child_by_field_id(_BODY), ctx)

    def enter_class(self, cls: _Class, body: Node | None, ctx: Ctx) -> None:
        """Declare the class's fields (and enum constants), then look at its members."""
        if body is None:
            return
        fields: list[Node] = []  # declared after the enum constants, in this order
        more: list[Node] = []
        for member in body.named_children:
            kind = member.kind_id
            if kind in _FIELDS:
                fields.append(member)
            elif kind in _ENUM_CONSTANT:
                constant = member.child_by_field_id(_NAME)
                if constant is not None:
                    cls.fields[self.text(constant)] = (cls.name,)
            elif kind in _ENUM_BODY_DECLARATIONS:
                more.extend(c for c in member.named_children if c.kind_id in _FIELDS)
        for member in fields + more:
            self.declare(cls.fields, member)
        self.regions.append((body.start_byte, body.end_byte, (cls.qualname, cls, (cls.fields, ctx[2]))))

    def method_declaration(self, node: Node, region: Open) -> None:
        ctx = region[2]
        kind = _METHOD_KINDS[node.type]
        cls = ctx[1]
        if kind == "constructor" and cls is not None:
            name = cls.name
        else:
            name_node = node.child_by_field_id(_NAME)
            if name_node is None:
                return  # everything inside is looked at, in this context
            name = self.code[name_node.start_byte : name_node.end_byte]
        params = node.child_by_field_id(_PARAMETERS)
        names: dict[str, Type | None] = {}
        if params is None:
            count = None
        elif params.named_child_count:
            count = self.declare_parameters(names, params)
        else:
            count = 0
        qualname = self.add_entity(Label.FUNCTION, node, name, kind, ctx[0], count)
        regions = self.regions
        regions.append((node.start_byte, node.end_byte, None))  # only the body is looked at
        body = node.child_by_field_id(_BODY)
        if body is not None:
            regions.append((body.start_byte, body.end_byte, (qualname, cls, (names, ctx[2]))))

    def object_creation(self, node: Node, region: Open) -> None:
        ctx = region[2]
        type_node = node.child_by_field_id(_TYPE)
        if type_node is not None and type_node.kind_id in _TYPE_IDENTIFIER:  # as `type_parts`, for `new T(..)`
            written = self.code[type_node.start_byte : type_node.end_byte]
            target: Type | None = (written,) if written != "var" else None
        else:
            target = self.type_parts(type_node)
        args = node.child_by_field_id(_ARGUMENTS)
        if target and ctx[0] is not None:
            self.add_reference(Reference(ctx[0], _CALL, target, node.start_point[0] + 1, self.arity(args)))
        if not (self.broken and node.has_error) and (
            node.named_child_count == 2  # the type and the arguments
            or (args is not None and node.end_byte == args.end_byte)  # nothing after the arguments
        ):
            return  # no class body
        body = next((c for c in node.named_children if c.type == "class_body"), None)
        if body is None:
            return
        name = f"<new {target[-1] if target else '?'}>"
        qualname = self.add_entity(Label.CLASS, node, name, "class", ctx[0])
        if target:
            assert type_node is not None  # the target was read from it
            self.inherit(qualname, target, type_node)
        cls = _Class(qualname, name, target[-1] if target else None)
        self.enter_class(cls, body, ctx)

    def enum_constant(self, node: Node, region: Open) -> None:
        ctx = region[2]
        self.skip(node)  # only the arguments and the body are looked at
        body = node.child_by_field_id(_BODY)
        name_node = node.child_by_field_id(_NAME)
        if body is not None and name_node is not None:
            name = self.text(name_node)
            qualname = self.add_entity(Label.CLASS, node, name, "class", ctx[0])
            enum = ctx[1].name if ctx[1] is not None else None
            if enum:
                self.inherit(qualname, (enum,), name_node)
            self.enter_class(_Class(qualname, name, enum), body, ctx)
        args = node.child_by_field_id(_ARGUMENTS)
        if args is not None:  # pushed last: it comes first
            self.regions.append((args.start_byte, args.end_byte, ctx))

    def lambda_expression(self, node: Node, region: Open) -> None:
        ctx = region[2]
        names: dict[str, Type | None] = {}
        params = node.child_by_field_id(_PARAMETERS)
        if params is not None:
            if params.type == "identifier":
                names[self.text(params)] = None
            elif params.type == "inferred_parameters":
                names.update((self.text(p), None) for p in params.named_children if p.type == "identifier")
            else:
                self.declare_parameters(names, params)
        self.skip(node)  # only the body is looked at
        body = node.child_by_field_id(_BODY)
        if body is not None:
            self.regions.append((body.start_byte, body.end_byte, (ctx[0], ctx[1], (names, ctx[2]))))

    # ------------------------------------------------------------------------------------------- imports
    def import_declaration(self, node: Node, region: Open) -> None:
        self.skip(node)
        self.read_import(node)

    def read_import(self, node: Node) -> None:
        line = node.start_point[0] + 1
        written = _IMPORT.fullmatch(self.source, node.start_byte, node.end_byte)
        if written is not None and not (self.broken and node.has_error):  # plainly: no need to walk its nodes
            path = written[1].decode("ascii")
            if _KEYWORDS.isdisjoint(path.split(".")):
                self.add_import(path, written[2] is not None, line)
                return
        named = node.named_children
        path_node = next((c for c in named if c.type in ("identifier", "scoped_identifier")), None)
        if path_node is not None:
            self.add_import(self.dotted(path_node), any(c.type == "asterisk" for c in named), line)

    def add_import(self, path: str, asterisk: bool, line: int) -> None:
        if asterisk:
            self.facts.imports.append(Import(None, path, "*", "", line))
        else:
            module, _, name = path.rpartition(".")
            self.facts.imports.append(Import(None, module, name, name, line))

    # ------------------------------------------------------------------------------------------ references
    def call(self, ctx: Ctx, target: Type, at: Node, arity: int | None) -> None:
        if ctx[0] is None:
            return  # only in broken files: no entity to start an INVOKES edge from
        self.add_reference(Reference(ctx[0], _CALL, target, at.start_point[0] + 1, arity))

    def inherit(self, scope: str, target: Type, at: Node) -> None:
        self.add_reference(Reference(scope, _INHERIT, target, at.start_point[0] + 1, None))

    def arity(self, args: Node | None) -> int | None:
        """How many arguments a call passes (as `method_invocation` counts them)."""
        if args is None:
            return None
        count = args.named_child_count
        # n arguments: 2n + 1 children; comments (named too, not arguments) add one each, but for the one
        # named child `(/* c */)` also has 3.
        if count and (
            (self.broken and args.has_error)
            or args.child_count != 2 * count + 1
            or (count == 1 and self.source.find(b"/", args.start_byte, args.end_byte) >= 0)
        ):
            return sum(1 for c in args.named_children if c.type not in _COMMENTS)
        return count

    def constructor_invocation(self, node: Node, region: Open) -> None:
        ctx = region[2]
        which = node.child_by_field_name("constructor")
        cls = ctx[1]
        if which is None or cls is None:
            return
        arity = self.arity(node.child_by_field_id(_ARGUMENTS))
        if which.type == "this":
            self.call(ctx, (SELF, cls.name), node, arity)
        elif which.type == "super" and cls.superclass:
            self.call(ctx, (SUPER, cls.superclass), node, arity)

    def method_reference(self, node: Node, region: Open) -> None:
        ctx = region[2]
        children = [c for c in node.children if c.type not in _COMMENTS]
        if len(children) < 3:
            return
        receiver, last = children[0], children[-1]
        if last.type == "new":
            if receiver.type == "array_type":
                return
            written = receiver.type in ("identifier", "field_access")
            target = _chain(receiver) if written else self.type_parts(receiver)
            if target:
                self.call(ctx, target, node, None)
            return
        if last.type != "identifier":
            return
        if receiver.type in ("generic_type", "scoped_type_identifier", "type_identifier", "array_type"):
            prefix = self.type_parts(receiver)
        else:
            prefix = self.receiver(receiver, ctx)
        if prefix:
            self.call(ctx, (*prefix, self.text(last)), node, None)

    def receiver(self, obj: Node, ctx: Ctx) -> Type | None:
        """The target prefix a call on `obj` gets; None when the receiver cannot be named (skip the call)."""
        kind = obj.type
        while kind == "parenthesized_expression" and obj.named_child_count == 1:
            obj = obj.named_children[0]
            kind = obj.type
        if kind == "identifier":
            written = self.text(obj)
            frame: Frame | None = ctx[2]
            while frame is not None:
                names = frame[0]
                if written in names:
                    return names[written] or (written,)
                frame = frame[1]
            return (written,)
        if kind == "this":
            return (SELF,)
        if kind == "super":
            return (SUPER,)
        if kind in ("object_creation_expression", "cast_expression"):
            return self.type_parts(obj.child_by_field_id(_TYPE))
        if kind != "field_access":
            return None
        written = self.text(obj)
        if _DOTTED.match(written) and not (self.broken and obj.has_error):
            parts = written.split(".")
            if _KEYWORDS.isdisjoint(parts):  # `a.b.m()`
                return tuple(parts)
            if parts[0] == "this" and _KEYWORDS.isdisjoint(parts[1:]):  # `this.f.m()`
                return _this_field(parts[1:], ctx)
        fields: list[Node] = []
        base = obj
        while base.type == "field_access":
            field_node = base.child_by_field_name("field")
            object_node = base.child_by_field_id(_OBJECT)
            if object_node is None or field_node is None:
                return None
            fields.append(field_node)
            base = object_node
        fields.reverse()
        if fields[0].type == "this":  # `Outer.this.m()`
            return _chain(base) if len(fields) == 1 and base.type in ("identifier", "field_access") else None
        if any(f.type != "identifier" for f in fields):
            return None
        if base.type == "this":
            return _this_field([text(f) for f in fields], ctx)
        if base.type == "identifier":
            return (text(base), *(text(f) for f in fields))
        return None

    # -------------------------------------------------------------------------------------- declarations
    def dotted(self, node: Node) -> str:
        """`a.b.C` from an identifier / scoped_identifier, without whitespace or comments."""
        written = self.text(node)
        plain = not (self.broken and node.has_error)
        if plain and _DOTTED.match(written) and _KEYWORDS.isdisjoint(written.split(".")):
            return written
        parts: list[str] = []
        scoped: Node | None = node
        while scoped is not None and scoped.type == "scoped_identifier":
            parts.append(text(scoped.child_by_field_id(_NAME)))
            scoped = scoped.child_by_field_name("scope")
        if scoped is not None:
            parts.append(text(scoped))
        return ".".join(reversed(parts))

    def type_parts(self, node: Node | None) -> Type | None:
        """("a", "b", "C") for `a.b.C<T>[]`; None for primitives, `var` and anything unrecognised."""
        if node is None:
            return None
        kind = node.kind_id
        if kind in _TYPE_IDENTIFIER:
            name = self.code[node.start_byte : node.end_byte]
            return (name,) if name != "var" else None
        if kind in _PRIMITIVE_TYPE:
            return None
        if kind in _GENERIC_TYPE:  # `T<..>`: T's
            base = node.named_child(0)
            if base is not None and base.kind_id in _TYPE_IDENTIFIER:
                name = self.code[base.start_byte : base.end_byte]
                return (name,) if name != "var" else None
        elif node.type == "scoped_type_identifier":
            written = self.text(node)
            if _DOTTED.match(written) and not (self.broken and node.has_error):
                parts = written.split(".")
                if _KEYWORDS.isdisjoint(parts):
                    return tuple(parts)
        return _type_parts(node)

    def var_type(self, type_node: Node | None, value: Node | None) -> Type | None:
        """The declared type; for `var`, the type of a `new T(..)` or `(T) x` initialiser."""
        if type_node is not None and type_node.type == "type_identifier":
            name = self.text(type_node)
            return (name,) if name != "var" else self.initialiser_type(value)
        return self.type_parts(type_node)

    def initialiser_type(self, value: Node | None) -> Type | None:
        """`var x = new T(..)` / `var x = (T) y`: T."""
        while value is not None and value.type == "parenthesized_expression" and value.named_child_count == 1:
            value = value.named_children[0]
        if value is not None and value.type in ("object_creation_expression", "cast_expression"):
            return self.type_parts(value.child_by_field_id(_TYPE))
        return None

    def declare(self, target: dict[str, Type | None], node: Node) -> None:
        """Bind the names a field / local variable declaration introduces."""
        type_node = node.child_by_field_id(_TYPE)
        declarators = node.children_by_field_id(_DECLARATOR)
        if not declarators:
            return
        code = self.code
        if type_node is not None and type_node.kind_id in _TYPE_IDENTIFIER:
            type_name = code[type_node.start_byte : type_node.end_byte]
            if type_name == "var":
                for declarator in declarators:
                    name = declarator.child_by_field_id(_NAME)
                    if name is not None:
                        target[self.text(name)] = self.initialiser_type(declarator.child_by_field_id(_VALUE))
                return
            declared: Type | None = (type_name,)
        else:
            declared = self.type_parts(type_node)
        for declarator in declarators:
            name = declarator.child_by_field_id(_NAME)
            if name is not None:
                target[code[name.start_byte : name.end_byte]] = declared

    def declare_parameters(self, target: dict[str, Type | None], params: Node) -> int | None:
        """Bind a method's / record's / lambda's formal parameters with their declared types. Returns how
        many there are: None for varargs (any count fits)."""
        count = 0
        varargs = False
        code = self.code
        for param in params.named_children:
            kind = param.type
            if kind == "formal_parameter":
                count += 1
                name = param.child_by_field_id(_NAME)
                if name is not None:
                    target[code[name.start_byte : name.end_byte]] = self.type_parts(param.child_by_field_id(_TYPE))
            elif kind == "spread_parameter":  # `T... xs`
                count += 1
                varargs = True
                named = [c for c in param.named_children if c.type not in ("modifiers", *_ANNOTATIONS)]
                declarator = next((c for c in named if c.type == "variable_declarator"), None)
                name = declarator.child_by_field_id(_NAME) if declarator is not None else None
                if name is not None:
                    target[self.text(name)] = self.type_parts(named[0]) if named[0] is not declarator else None
        return None if varargs else count


# ------------------------------------------------------------------------------------------------- helpers
def _this_field(fields: list[str], ctx: Ctx) -> Type:
    """`this.f.m()`: f's declared type if this class declares it, else as written."""
    cls = ctx[1]
    declared = cls.fields.get(fields[0]) if len(fields) == 1 and cls is not None else None
    return declared or (SELF, *fields)


def _chain(node: Node) -> Type | None:
    """`a.b.C` written as identifiers / field accesses, as parts; None for anything else."""
    parts: list[str] = []
    while node.type == "field_access":
        field_node = node.child_by_field_name("field")
        object_node = node.child_by_field_id(_OBJECT)
        if field_node is None or field_node.type != "identifier" or object_node is None:
            return None
        parts.append(text(field_node))
        node = object_node
    if node.type != "identifier":
        return None
    parts.append(text(node))
    return tuple(reversed(parts))


def _type_parts(node: Node) -> Type | None:
    """`_Extractor.type_parts` by walking the type's nodes, for the forms written other than plainly."""
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
