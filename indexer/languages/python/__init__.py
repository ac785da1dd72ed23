"""Python: `.py` and `.pyi` files."""

from spider.core.schema import Language
from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.python.rules import RULES

register_language(Language.PYTHON, (".py", ".pyi"), imported_extractor(f"{__name__}.extract"), RULES)
