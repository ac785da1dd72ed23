"""Java: `.java` files."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.java.rules import RULES
from spider.indexer.parse.treesitter import register_grammar

LANGUAGE = "java"  # the `language` of its File, Class and Function nodes

register_language(LANGUAGE, (".java",), imported_extractor(f"{__name__}.extract"), RULES,
                  grammars=("tree-sitter-java",))
register_grammar("java", "tree_sitter_java:language")
