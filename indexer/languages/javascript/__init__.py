"""JavaScript and TypeScript: one extractor (it picks the grammar by extension) and one set of rules, two
languages on the File nodes."""

from spider.core.schema import Language
from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.javascript.rules import RULES

_EXTRACT = imported_extractor(f"{__name__}.extract")
register_language(Language.JAVASCRIPT, (".js", ".jsx", ".mjs", ".cjs"), _EXTRACT, RULES)
register_language(Language.TYPESCRIPT, (".ts", ".tsx", ".mts", ".cts"), _EXTRACT, RULES)
