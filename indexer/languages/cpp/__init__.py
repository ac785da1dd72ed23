"""C++: `.cc`, `.cpp`, `.cxx`, `.c++`, `.hh`, `.hpp`, `.hxx`, `.h++`, `.ipp`. `.h` is C's."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.cpp.rules import RULES
from spider.indexer.schema import Language

register_language(Language.CPP, (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"),
                  imported_extractor(f"{__name__}.extract"), RULES)
