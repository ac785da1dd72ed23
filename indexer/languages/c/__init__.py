"""C: `.c` and `.h` files. A `.h` file is C until C++ is read: the issue gives it to C++ in a repository whose C++
files outnumber its C files, which needs the language of a path to depend on the repository."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.c.rules import RULES
from spider.indexer.parse.treesitter import register_grammar

LANGUAGE = "c"  # the `language` of its File, Class and Function nodes

register_language(LANGUAGE, (".c", ".h"), imported_extractor(f"{__name__}.extract"), RULES,
                  grammars=("tree-sitter-c",))
register_grammar("c", "tree_sitter_c:language")
