"""Python: `.py` and `.pyi` files."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.python.rules import RULES
from spider.indexer.schema import Language

register_language(Language.PYTHON, (".py", ".pyi"), imported_extractor(f"{__name__}.extract"), RULES)
