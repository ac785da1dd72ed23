"""C: `.c` and `.h` files. A `.h` file is C until C++ is read: the issue gives it to C++ in a repository whose C++
files outnumber its C files, which needs the language of a path to depend on the repository."""

from spider.core.schema import Language
from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.c.rules import RULES

register_language(Language.C, (".c", ".h"), imported_extractor(f"{__name__}.extract"), RULES)
