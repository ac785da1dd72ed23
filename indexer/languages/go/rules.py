"""How Go resolves: a package is a directory; an import path is a module path (from the `go.mod` of the module
the directory belongs to) followed by the directory under it; the files of a package see each other's names
without importing them, and a type's methods may be written in any of them. Generated files say so in their
header (https://go.dev/s/generatedcode) or are protobuf output (`*.pb.go`)."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict

from spider.indexer.languages.go.frames import stack_frames
from spider.indexer.languages.rules import Exports, LanguageRules, Module, ModuleMap, TestCode
from spider.indexer.parse.facts import FileFacts

_TEST_FILE = "_test.go"


def _is_test(path: str) -> bool:
    return path.endswith(_TEST_FILE)


class GoPackages(ModuleMap):
    """The snapshot's Go packages (directories) and the modules (`go.mod` files) whose import paths name them."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        roots = {facts.module: posixpath.dirname(path) for path, facts in sorted(files.items()) if facts.module}
        self._modules = sorted(roots.items(), key=lambda item: (-len(item[0]), item[0]))  # nested modules first
        self._package_of = {path: facts.package for path, facts in files.items() if not facts.module}
        self._directories: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self._package_of):
            self._directories[posixpath.dirname(path)].append(path)
        self._implicit: dict[str, list[str]] = {}

    def module(self, importer: str, specifier: str) -> Module | None:
        """The directory of an import path under one of the repository's modules (the longest module path that
        prefixes it); None for anything else: the standard library, other modules."""
        for module_path, root in self._modules:
            if specifier == module_path or specifier.startswith(module_path + "/"):
                directory = posixpath.join(root, specifier[len(module_path) + 1 :]) if specifier != module_path else root
                return Module(directory, is_dir=True) if directory in self._directories else None
        return None

    def package_files(self, package: str) -> list[str]:
        """An imported package's files: its tests are compiled into no importer."""
        return [path for path in self._directories.get(package, []) if not _is_test(path)]

    def implicit_files(self, importer: str) -> list[str]:
        """The files of the importer's package: its directory's files with the same package clause (a `foo_test`
        package beside `foo` is another package), test files only for test files."""
        found = self._implicit.get(importer)
        if found is None:
            package, test = self._package_of.get(importer), _is_test(importer)
            found = [path for path in self._directories.get(posixpath.dirname(importer), [])
                     if self._package_of[path] == package and (test or not _is_test(path))]
            self._implicit[importer] = found
        return found


_HEADER_BYTES = 1 << 16  # a generated-code mark stands above the package clause, in the file's first lines
_PACKAGE_CLAUSE = re.compile(rb"^package[ \t]", re.MULTILINE)
_GENERATED_MARK = re.compile(rb"^// Code generated .* DO NOT EDIT\.\r?$", re.MULTILINE)
_GENERATED_NAME = re.compile(r"\.pb\.go$")


def generated(path: str, source: bytes) -> bool:
    """Go's convention: a line `// Code generated … DO NOT EDIT.` before the package clause; and protoc's output."""
    if _GENERATED_NAME.search(path):
        return True
    header = source[:_HEADER_BYTES]
    clause = _PACKAGE_CLAUSE.search(header)
    return _GENERATED_MARK.search(header, 0, clause.start() if clause else len(header)) is not None


# `go test` compiles *_test.go files; testdata/ directories are fixtures the go tool ignores.
TEST_CODE = TestCode(frozenset({"testdata"}), re.compile(r"_test\.go$"))
RULES = LanguageRules(modules=GoPackages, exports=Exports.NONE, test_code=TEST_CODE, methods_in_package=True,
                      generated=generated, stack_frames=stack_frames)
