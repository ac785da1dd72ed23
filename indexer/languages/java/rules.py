"""How Java resolves: imports name packages (from `package` declarations) and the classes in them; a file sees
its own package's classes, a class body the members of enclosing and inherited classes; overloads share a name, so
a name means all its definitions; `com.acme.Foo` may be written out in full."""

from __future__ import annotations

import re
from collections import defaultdict

from spider.indexer.languages.java.frames import stack_frames
from spider.indexer.languages.rules import Exports, LanguageRules, Module, ModuleMap, TestCode
from spider.indexer.parse.facts import FileFacts


class JavaPackages(ModuleMap):
    """The snapshot's Java files by package."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        self._package_of = {path: facts.package or "" for path, facts in files.items()}
        self._packages: dict[str, list[str]] = defaultdict(list)
        for path, package in sorted(self._package_of.items()):
            self._packages[package].append(path)

    def module(self, importer: str, specifier: str) -> Module | None:
        """A package; a class (`com.acme.Foo`) is a member of one, which the resolver walks to."""
        return Module(specifier, is_dir=True) if specifier in self._packages else None

    def package_files(self, package: str) -> list[str]:
        return self._packages.get(package, [])

    def implicit_files(self, importer: str) -> list[str]:
        return self.package_files(self._package_of[importer])


# Maven and Gradle keep tests under src/test/; JUnit classes are named FooTest, FooTests or FooIT.
TEST_CODE = TestCode(frozenset({"test", "tests"}), re.compile(r"(Tests?|[a-z]IT)\.java$"))
RULES = LanguageRules(
    modules=JavaPackages, exports=Exports.NONE, test_code=TEST_CODE, overloads=True, class_scope=True, qualified_names=True,
    stack_frames=stack_frames,
)
