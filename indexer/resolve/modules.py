"""Import specifiers -> files of the same snapshot, by each language's own rules.

Python: dotted names relative to the repo root and to each package root (the first ancestor without
`__init__.py`, which covers `src/` layouts), relative imports by directory. JS/TS: relative specifiers with
extension and `index` probing (a TS `./x.js` may mean `./x.ts`); bare package names are external. Java:
packages from `package` declarations. Anything external resolves to None and is dropped, never guessed.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from spider.indexer.parse.facts import FileFacts

_PY_SUFFIXES = (".py", ".pyi")
_JS_SUFFIXES = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_EMITTED = (".js", ".jsx", ".mjs", ".cjs")


@dataclass(frozen=True, slots=True)
class Module:
    """What an import names: a file, or a directory (Python namespace package, Java package)."""

    path: str  # file path, or directory path ("" = repo root) / Java package name
    is_dir: bool = False


def _parent_dirs(path: str) -> Iterable[str]:
    d = posixpath.dirname(path)
    while d:
        yield d
        d = posixpath.dirname(d)


def _py_module_path(path: str) -> str:
    """`a/b/__init__.py` -> `a/b`; `a/b/c.py` -> `a/b/c` (the path an import names, without suffix)."""
    stem = path.rsplit(".", 1)[0]
    return posixpath.dirname(stem) if posixpath.basename(stem) == "__init__" else stem


class ModuleIndex:
    def __init__(self, files: dict[str, FileFacts]) -> None:
        self.files = files
        py = [p for p, f in files.items() if f.language == "python"]
        self._py_by_module_path = {_py_module_path(p): p for p in sorted(py, key=lambda p: p.endswith(".pyi"))}
        self._py_dirs = {d for p in py for d in _parent_dirs(p)} | ({""} if py else set())
        package_dirs = {posixpath.dirname(p) for p in py if posixpath.basename(p).startswith("__init__.")}
        self._py_dotted: dict[str, set[str]] = defaultdict(set)  # dotted name -> module paths (files or dirs)
        for module_path in list(self._py_by_module_path) + sorted(self._py_dirs - {""}):
            self._py_dotted[module_path.replace("/", ".")].add(module_path)
            root = posixpath.dirname(module_path)
            while root in package_dirs:
                root = posixpath.dirname(root)
            if root:
                self._py_dotted[module_path[len(root) + 1 :].replace("/", ".")].add(module_path)
        self._java_packages: dict[str, list[str]] = defaultdict(list)
        for p, f in sorted(files.items()):
            if f.language == "java":
                self._java_packages[f.package or ""].append(p)

    # Python -----------------------------------------------------------------
    def python_module(self, importer: str, module: str) -> Module | None:
        if module.startswith("."):
            dots = len(module) - len(module.lstrip("."))
            base = posixpath.dirname(importer)
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            rest = module[dots:]
            return self._py_path(posixpath.join(base, *rest.split(".")) if rest else base)
        candidates = self._py_dotted.get(module)
        if not candidates:
            return None
        # Several files can claim a name (tests/conftest.py in many dirs): the one nearest the importer wins.
        best = max(sorted(candidates), key=lambda c: len(posixpath.commonpath([c, importer])) if c else 0)
        return self._py_path(best)

    def python_submodule(self, package: Module, name: str) -> Module | None:
        directory = package.path if package.is_dir else posixpath.dirname(package.path)
        if not package.is_dir and not posixpath.basename(package.path).startswith("__init__."):
            return None
        return self._py_path(posixpath.join(directory, name))

    def _py_path(self, module_path: str) -> Module | None:
        module_path = posixpath.normpath(module_path) if module_path else ""
        module_path = "" if module_path == "." else module_path
        if module_path in self._py_by_module_path:
            return Module(self._py_by_module_path[module_path])
        if module_path in self._py_dirs:
            return Module(module_path, is_dir=True)
        return None

    # JavaScript / TypeScript --------------------------------------------------
    def js_module(self, importer: str, specifier: str) -> Module | None:
        if not specifier.startswith((".", "/")):
            return None  # a package from node_modules: external
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier)).lstrip("/")
        stems = [base]
        if base.endswith(_JS_EMITTED):
            stems.append(base.rsplit(".", 1)[0])  # TS ESM: "./x.js" names x.ts
        for stem in stems:
            for candidate in (stem, *(stem + s for s in _JS_SUFFIXES), *(f"{stem}/index{s}" for s in _JS_SUFFIXES)):
                if candidate in self.files and self.files[candidate].language in ("javascript", "typescript"):
                    return Module(candidate)
        return None

    # Java ----------------------------------------------------------------------
    def java_package_files(self, package: str) -> list[str]:
        return self._java_packages.get(package, [])

    def is_java_package(self, name: str) -> bool:
        return name in self._java_packages
