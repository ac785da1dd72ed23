"""Python: `.py` and `.pyi` files."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.python.rules import RULES
from spider.indexer.parse.treesitter import register_grammar

LANGUAGE = "python"  # the `language` of its File, Class and Function nodes

register_language(LANGUAGE, (".py", ".pyi"), imported_extractor(f"{__name__}.extract"), RULES,
                  grammars=("tree-sitter-python",))
register_grammar("python", "tree_sitter_python:language")
