"""How C++ resolves: `#include` as C (`Headers`), and a name means a definition the translation unit can see,
looked up under each namespace and class enclosing the caller, innermost first (`LanguageRules.nested_names`):
the file's own, one its headers (transitively) define, or the repository's one external definition of a name
they declare (a method declared in its class and defined in a `.cpp`). Generated and vendored code as C's; test
code as C's, with the test file names of C++ projects."""

from __future__ import annotations

import re

from spider.indexer.languages.c import rules as c_rules
from spider.indexer.languages.c.frames import stack_frames
from spider.indexer.languages.c.rules import Headers
from spider.indexer.languages.rules import Exports, LanguageRules, TestCode

_GENERATED_NAME = re.compile(r"\.pb\.(?:cc|cpp|h|hpp)\Z")


def generated(path: str, source: bytes) -> bool:
    """protoc's C++ output (`*.pb.cc`, `*.pb.h`) and what C counts as generated (a `DO NOT EDIT` mark)."""
    return _GENERATED_NAME.search(path) is not None or c_rules.generated(path, source)


# The benchmark counts C/C++ test directories as test code; gtest and Catch name test files these ways.
TEST_CODE = TestCode(frozenset({"test", "tests"}),
                     re.compile(r"(?:\Atest_.*|_(?:unit)?tests?)\.(?:cc|cpp|cxx|c\+\+|h|hh|hpp|hxx)\Z"))
RULES = LanguageRules(modules=Headers, exports=Exports.LINKED, test_code=TEST_CODE, overloads=True,
                      class_scope=True, nested_names=True, guess_methods=False, generated=generated,
                      vendored=c_rules.RULES.vendored, stack_frames=stack_frames)
