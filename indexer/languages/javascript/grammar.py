"""The JavaScript / TypeScript node kinds the extractor tells apart, and their ids in each grammar."""

from __future__ import annotations

from typing import Callable

from spider.indexer.parse.treesitter import field_id, language

FUNCTIONS = frozenset({
    "function_declaration", "generator_function_declaration", "function_expression", "function",
    "generator_function", "arrow_function",
})  # fmt: skip
CLASSES = frozenset({
    "class_declaration", "class", "abstract_class_declaration", "interface_declaration", "enum_declaration",
})  # fmt: skip
DEFINITIONS = FUNCTIONS | CLASSES
WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression"})
CALLBACKS = DEFINITIONS | WRAPPERS  # arguments that may be (wrapped) functions or classes
LEAVES = frozenset({
    "identifier", "property_identifier", "private_property_identifier", "shorthand_property_identifier",
    "type_identifier", "string", "number", "regex", "comment", "true", "false", "null", "undefined", "this",
    "super", "predefined_type", "type_annotation", "type_arguments", "type_parameters", "statement_identifier",
    "jsx_text", "hash_bang_line", "html_comment", "escape_sequence", "string_fragment",
})  # fmt: skip
PROPERTIES = frozenset({"property_identifier", "private_property_identifier", "identifier"})  # links of a chain
CHAIN_LINKS = frozenset({"member_expression", "nested_identifier", "non_null_expression"})


class Grammar:
    """A grammar's node kinds and fields as the integers tree-sitter hands out: comparing `Node.kind_id` and
    asking `child_by_field_id` is much cheaper than building `Node.type` strings and looking field names up.
    Each set holds every id whose name is the type the string version compares against."""

    def __init__(self, name: str, handlers: dict[str, Callable[..., None]]) -> None:
        grammar = language(name)
        names = {i: grammar.node_kind_for_id(i) for i in range(grammar.node_kind_count)}
        names[0xFFFF] = "ERROR"

        def ids(*types: str) -> frozenset[int]:
            return frozenset(i for i, n in names.items() if n in types)

        self.handlers = {i: handlers[n] for i, n in names.items() if n in handlers}
        self.leaves = ids(*LEAVES)
        self.comment = ids("comment")
        self.callbacks = ids(*CALLBACKS)
        self.identifier = ids("identifier")
        self.name = ids("identifier", "type_identifier")
        self.member = ids("member_expression")
        self.import_ = ids("import")
        self.call = ids("call_expression")
        self.assignment = ids("assignment_expression")
        self.arguments = ids("arguments")
        self.properties = ids(*PROPERTIES)
        self.property_identifier = ids("property_identifier")
        self.this = ids("this")
        self.super = ids("super")
        self.chain_links = ids(*CHAIN_LINKS)
        self.wrappers = ids(*WRAPPERS)
        self.functions = ids(*FUNCTIONS)
        self.definitions = ids(*DEFINITIONS)
        self.definitions_or_object = ids(*DEFINITIONS, "object")
        self.object = ids("object")
        self.array = ids("array")
        self.pair = ids("pair")
        self.method_definition = ids("method_definition")
        self.computed_property_name = ids("computed_property_name")
        self.f_function, self.f_arguments = field_id(grammar, "function"), field_id(grammar, "arguments")
        self.f_constructor = field_id(grammar, "constructor")
        self.f_object, self.f_property = field_id(grammar, "object"), field_id(grammar, "property")
        self.f_key, self.f_value = field_id(grammar, "key"), field_id(grammar, "value")

