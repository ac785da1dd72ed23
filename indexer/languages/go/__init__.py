"""Go: `.go` files, and `go.mod`, whose module path is the import path of the directory it stands in."""

from spider.core.schema import Language
from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.go.rules import RULES

register_language(Language.GO, (".go",), imported_extractor(f"{__name__}.extract"), RULES, file_names=("go.mod",))
