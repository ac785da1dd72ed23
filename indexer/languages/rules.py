"""What a language plug-in tells the shared resolver: how its imports name modules and how its names are scoped.

The resolver (`indexer.resolve.references`) knows scopes, imports, re-exports and members in general; every choice
where languages differ is asked of the file's `LanguageRules`, never decided by the language's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Protocol

from spider.indexer.languages.frames import StackFrames
from spider.indexer.parse.facts import FileFacts


@dataclass(frozen=True, slots=True)
class Module:
    """What an import names: a file, or a directory (Python namespace package, Java package)."""

    path: str  # file path, or directory path ("" = repo root) / Java package name
    is_dir: bool = False


class ModuleMap(Protocol):
    """How one language's import specifiers name the modules of a snapshot. Anything external is None: dropped,
    never guessed at. A language's map subclasses this and overrides what its imports have: the defaults say
    there are no submodules, package members or implicitly visible files."""

    def module(self, importer: str, specifier: str) -> Module | None:
        """What `specifier`, as written in file `importer`, names."""

    def submodule(self, package: Module, name: str) -> Module | None:
        """The module called `name` inside `package` (Python's `pkg.sub`); None where a language has none."""
        return None

    def package_files(self, package: str) -> list[str]:
        """The files whose file-scope names are the members of directory module `package` (Java's packages)."""
        return []

    def implicit_files(self, importer: str) -> list[str]:
        """The files whose file-scope names `importer` sees without importing them (Java: its package's files)."""
        return []

    def method_files(self, path: str, type_name: str) -> list[str]:
        """The files in which methods of type `type_name`, declared in file `path`, may be written as
        `type_name.m` (with `LanguageRules.methods_in_package`): Go's package, by default the implicit files."""
        return self.implicit_files(path)


ModuleMapBuilder = Callable[[dict[str, FileFacts]], ModuleMap]


class Exports(Enum):
    """What another file finds in a file module it imports."""

    FILE_SCOPE = "file scope"  # its file-scope names, what it imports, its submodules, its star imports (Python)
    DECLARED = "declared"  # its export statements; a file without any is a script: its file-scope names (JS/TS)
    NONE = "none"  # nothing: imports never name files (Java names packages and classes)
    # what it defines, and for a name it declares (C's prototypes), the repository's one definition with external
    # linkage; its star imports (C's includes) are seen through transitively
    LINKED = "linked"


@dataclass(frozen=True)
class TestCode:
    """What is test code in a language: a function under a test directory, in a test file, or (in-file markers, a
    test module inside a source file) with a qualified name that says so. A fix almost never edits tests, so the
    first stage keeps them out of the way (`--tests`) and the learned selector reads the same definition."""

    __test__ = False  # not a pytest class, whatever its name says

    directories: frozenset[str]  # path segments, compared case-insensitively: "tests", "__tests__"
    file_name: re.Pattern[str]  # matched against the file name alone
    qualname: re.Pattern[str] | None = None  # matched against the qualified name (Rust `tests.check_parse`)

    def holds(self, path: str, qualname: str = "") -> bool:
        """Whether the function `qualname` of file `path` is test code ("" for either: not known)."""
        directories, _, name = path.rpartition("/")
        if any(part.lower() in self.directories for part in directories.split("/")):
            return True
        if name and self.file_name.search(name):
            return True
        return bool(self.qualname and qualname and self.qualname.search(qualname))


Generated = Callable[[str, bytes], bool]  # (path, source) -> whether a tool wrote the file: skipped, not parsed


@dataclass(frozen=True)
class LanguageRules:
    """Every decision the resolver leaves to the language of the file it resolves in, what counts as its test code,
    which files are written by tools and how its stack traces read."""

    modules: ModuleMapBuilder  # builds the map from the files of every language whose rules name the same builder
    exports: Exports
    test_code: TestCode
    overloads: bool = False  # a name defined several times means all definitions (Java overloads), not the last
    repeats_unknown: bool = False  # ... or none of them: which one is compiled is not known (Rust `#[cfg]` twins)
    class_scope: bool = False  # code nested in a class sees its members, inherited ones included (Java)
    qualified_names: bool = False  # a dotted name may start with a package: Java's `com.acme.Foo.bar()`
    module_call: str | None = None  # calling a module calls this member of it (CommonJS: `default`)
    prefix_scope: bool = True  # a bare name may mean an entity under an enclosing part of the caller's qualname
    # (TS namespace members, nested functions); False where an inner scope does not see outer ones (Rust modules)
    methods_in_package: bool = False  # a type's methods may stand in other files, as `Type.m` (Go, Rust)
    # a name is looked up in the translation unit (its file and what it includes, `Exports.LINKED`) under each
    # namespace and class enclosing the caller, innermost first, its class's bases too; several left after the
    # argument count: none (C++)
    nested_names: bool = False
    guess_methods: bool = True  # `x.m()` on a receiver of unknown type may mean the repo's one method named m
    # kinds of class whose members, named through the class, run the implementing type's own where it has one
    # (Rust traits: `Trait::m(x)` runs `x`'s type's `m`): such a call is dropped, never linked to the default
    dispatching: frozenset[str] = frozenset()
    generated: Generated | None = None  # a language's marks of generated files (Go's `// Code generated`)
    stack_frames: StackFrames | None = None  # how its stack traces name functions
    vendored: frozenset[str] = frozenset()  # directories its ecosystem keeps others' code in (C's `deps/`)
