"""JavaScript and TypeScript: one extractor (it picks the grammar by extension) and one set of rules, two
languages on the File nodes."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.javascript.rules import RULES
from spider.indexer.parse.treesitter import register_grammar

JAVASCRIPT = "javascript"  # the `language` of the nodes of each
TYPESCRIPT = "typescript"

_EXTRACT = imported_extractor(f"{__name__}.extract")
register_language(JAVASCRIPT, (".js", ".jsx", ".mjs", ".cjs"), _EXTRACT, RULES, grammars=("tree-sitter-javascript",))
register_language(TYPESCRIPT, (".ts", ".tsx", ".mts", ".cts"), _EXTRACT, RULES, grammars=("tree-sitter-typescript",))
register_grammar("javascript", "tree_sitter_javascript:language")
register_grammar("typescript", "tree_sitter_typescript:language_typescript")
register_grammar("tsx", "tree_sitter_typescript:language_tsx")
