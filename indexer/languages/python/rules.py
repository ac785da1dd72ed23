"""How Python resolves: dotted module names from the repo root and from each package root (the first ancestor
without `__init__.py`, which covers `src/` layouts), relative imports by directory, directories as namespace
packages; a module's members are its file-scope names; a name defined twice means its last definition."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from typing import Iterable

from spider.indexer.languages.python.frames import stack_frames
from spider.indexer.languages.rules import Exports, LanguageRules, Module, ModuleMap, TestCode
from spider.indexer.parse.facts import FileFacts


def _parent_dirs(path: str) -> Iterable[str]:
    d = posixpath.dirname(path)
    while d:
        yield d
        d = posixpath.dirname(d)


def _module_path(path: str) -> str:
    """`a/b/__init__.py` -> `a/b`; `a/b/c.py` -> `a/b/c` (the path an import names, without suffix)."""
    stem = path.rsplit(".", 1)[0]
    return posixpath.dirname(stem) if posixpath.basename(stem) == "__init__" else stem


class PythonModules(ModuleMap):
    """The snapshot's Python modules by the dotted names imports use."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        py = list(files)
        self._by_module_path = {_module_path(p): p for p in sorted(py, key=lambda p: p.endswith(".pyi"))}
        self._dirs = {d for p in py for d in _parent_dirs(p)} | ({""} if py else set())
        package_dirs = {posixpath.dirname(p) for p in py if posixpath.basename(p).startswith("__init__.")}
        self._dotted: dict[str, set[str]] = defaultdict(set)  # dotted name -> module paths (files or dirs)
        for module_path in list(self._by_module_path) + sorted(self._dirs - {""}):
            self._dotted[module_path.replace("/", ".")].add(module_path)
            root = posixpath.dirname(module_path)
            while root and root in package_dirs:  # the root's parent is itself: stop there
                root = posixpath.dirname(root)
            if root:
                self._dotted[module_path[len(root) + 1 :].replace("/", ".")].add(module_path)

    def module(self, importer: str, specifier: str) -> Module | None:
        if specifier.startswith("."):
            dots = len(specifier) - len(specifier.lstrip("."))
            base = posixpath.dirname(importer)
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            rest = specifier[dots:]
            return self._path(posixpath.join(base, *rest.split(".")) if rest else base)
        candidates = self._dotted.get(specifier)
        if not candidates:
            return None
        # Several files can claim a name (tests/conftest.py in many dirs): the one nearest the importer wins.
        best = max(sorted(candidates), key=lambda c: len(posixpath.commonpath([c, importer])) if c else 0)
        return self._path(best)

    def submodule(self, package: Module, name: str) -> Module | None:
        directory = package.path if package.is_dir else posixpath.dirname(package.path)
        if not package.is_dir and not posixpath.basename(package.path).startswith("__init__."):
            return None
        return self._path(posixpath.join(directory, name))


    def _path(self, module_path: str) -> Module | None:
        module_path = posixpath.normpath(module_path) if module_path else ""
        module_path = "" if module_path == "." else module_path
        if module_path in self._by_module_path:
            return Module(self._by_module_path[module_path])
        if module_path in self._dirs:
            return Module(module_path, is_dir=True)
        return None


# pytest's and unittest's conventions: tests/ and testing/ trees, test_*.py, *_test.py, conftest.py.
TEST_CODE = TestCode(frozenset({"test", "tests", "testing"}), re.compile(r"^(test_.*|.*_test|conftest)\.pyi?$"))
RULES = LanguageRules(modules=PythonModules, exports=Exports.FILE_SCOPE, test_code=TEST_CODE,
                      stack_frames=stack_frames)
