"""Go: `.go` files, and `go.mod`, whose module path is the import path of the directory it stands in."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.go.rules import RULES
from spider.indexer.parse.treesitter import register_grammar

LANGUAGE = "go"  # the `language` of its File, Class and Function nodes

register_language(LANGUAGE, (".go",), imported_extractor(f"{__name__}.extract"), RULES, file_names=("go.mod",),
                  grammars=("tree-sitter-go",))
register_grammar("go", "tree_sitter_go:language")
