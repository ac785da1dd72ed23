"""C++: `.cc`, `.cpp`, `.cxx`, `.c++`, `.hh`, `.hpp`, `.hxx`, `.h++`, `.ipp`, and `.h` in a repository whose C++
sources outnumber its C sources (`.h` is contested with C: the snapshot decides)."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.cpp.rules import RULES
from spider.indexer.schema import Language

register_language(Language.CPP, (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"),
                  imported_extractor(f"{__name__}.extract"), RULES, contested=(".h",))
