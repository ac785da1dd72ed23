"""Java: `.java` files."""

from spider.core.schema import Language
from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.java.rules import RULES

register_language(Language.JAVA, (".java",), imported_extractor(f"{__name__}.extract"), RULES)
