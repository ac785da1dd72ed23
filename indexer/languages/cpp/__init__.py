"""C++: `.cc`, `.cpp`, `.cxx`, `.c++`, `.hh`, `.hpp`, `.hxx`, `.h++`, `.ipp`, and `.h` in a repository whose C++
sources outnumber its C sources (`.h` is contested with C: the snapshot decides)."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.cpp.rules import RULES
from spider.indexer.parse.treesitter import register_grammar

LANGUAGE = "cpp"  # the `language` of its File, Class and Function nodes

register_language(LANGUAGE, (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"),
                  imported_extractor(f"{__name__}.extract"), RULES, contested=(".h",), grammars=("tree-sitter-cpp",))
register_grammar("cpp", "tree_sitter_cpp:language")
