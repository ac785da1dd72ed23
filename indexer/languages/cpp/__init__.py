"""C++: `.cc`, `.cpp`, `.cxx`, `.c++`, `.hh`, `.hpp`, `.hxx`, `.h++`, `.ipp`, and `.h` in a repository whose C++
sources outnumber its C sources (`.h` is contested with C: the snapshot decides)."""

from spider.core.schema import Language
from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.cpp.rules import RULES

register_language(Language.CPP, (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"),
                  imported_extractor(f"{__name__}.extract"), RULES, contested=(".h",))
