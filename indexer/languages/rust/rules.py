"""How Rust resolves: a crate's modules are files laid out under its root (`src/lib.rs`, `src/main.rs`, a
`main.rs` of a binary, example, test or bench directory, or any other file no crate root holds): `mod foo;` in a module is `foo.rs` beside a crate root or `mod.rs`, or in the
directory named after any other module file, or `foo/mod.rs`. A `use` path starts at the crate (`crate::`), the
module itself (`self::`), its parent (`super::`), a child module, or another crate of the repository by the name
its `Cargo.toml` gives it; anything else is another crate's: dropped. Nothing is visible without a `use`. A type's
`impl` blocks may stand in any file of its crate. Generated files say `@generated` in their header, are bindgen's
output, or stand in cargo's `target/` build directory."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict

from spider.indexer.languages.rules import Exports, LanguageRules, Module, ModuleMap, TestCode
from spider.indexer.languages.rust.frames import stack_frames
from spider.indexer.parse.facts import FileFacts

_ROOT_NAMES = ("lib.rs", "main.rs")
_TARGET_DIRECTORIES = ("examples", "tests", "benches")  # cargo's other targets, each file or directory a crate
_MAX_SEGMENTS = 64  # a path longer than this names nothing spider will find
_SEPARATOR = re.compile(r"::|\.")  # `use` paths are written with `::`, the resolver's qualified names with `.`


def _is_source_root(path: str) -> bool:
    """A crate root whose directory holds its modules: `src/lib.rs`, `src/main.rs`, and the `main.rs` of a binary,
    example, test or bench written as a directory (`src/bin/tool/main.rs`, `examples/demo/main.rs`)."""
    directory, _, name = path.rpartition("/")
    parent = posixpath.basename(posixpath.dirname(directory))
    if name == "main.rs" and (parent in _TARGET_DIRECTORIES or parent == "bin" and
                              posixpath.basename(posixpath.dirname(posixpath.dirname(directory))) == "src"):
        return True
    return name in _ROOT_NAMES and posixpath.basename(directory) == "src"


class RustCrates(ModuleMap):
    """The snapshot's crates: their source directories, their root files, and the names manifests give them."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        self._files = {path for path in files if path.endswith(".rs")}
        self._sources = sorted(
            {posixpath.dirname(path) for path in self._files if _is_source_root(path)},
            key=lambda directory: (-len(directory), directory),  # nested crates first
        )
        self._crates: dict[str, str] = {}  # crate name (as `use` writes it) -> its library root
        for path, facts in sorted(files.items()):
            if facts.module and not path.endswith(".rs"):
                library = posixpath.join(posixpath.dirname(path), "src", "lib.rs")
                if library in self._files:
                    self._crates.setdefault(facts.module.replace("-", "_"), library)
        self._crate_files: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self._files):
            self._crate_files[self._source_of(path) or path].append(path)

    # the module tree -----------------------------------------------------------------------------------
    def _source_of(self, path: str) -> str | None:
        """The source directory of the crate a module file belongs to; None for a crate root of its own."""
        for source in self._sources:
            if path.startswith(source + "/"):
                rest = path[len(source) + 1 :]
                if rest in _ROOT_NAMES or rest.startswith("bin/") and rest.count("/") == 1:
                    return None  # the crate's root, or a binary's (src/bin/tool.rs)
                return source
        return None

    def _root(self, path: str) -> str:
        """The crate root a module's `crate::` means."""
        source = self._source_of(path)
        if source is None:
            return path
        library = posixpath.join(source, "lib.rs")
        return library if library in self._files else posixpath.join(source, "main.rs")

    def _children_directory(self, path: str) -> str:
        """Where the files of a module's `mod` declarations stand."""
        if self._source_of(path) is None or path.endswith("/mod.rs"):
            return posixpath.dirname(path)
        return path[:-3]

    def _child(self, path: str, name: str) -> str | None:
        directory = self._children_directory(path)
        found = [candidate for candidate in (posixpath.join(directory, f"{name}.rs"),
                                             posixpath.join(directory, name, "mod.rs")) if candidate in self._files]
        return found[0] if len(found) == 1 else None  # both: rustc refuses the crate

    def _parent(self, path: str) -> str | None:
        source = self._source_of(path)
        if source is None:
            return None
        directory = posixpath.dirname(self._children_directory(path))
        if directory == source:
            return self._root(path)
        return self._module_named(directory)

    def _module_named(self, directory: str) -> str | None:
        """The module file whose children stand in `directory`: `directory.rs` or `directory/mod.rs`."""
        found = [candidate for candidate in (f"{directory}.rs", posixpath.join(directory, "mod.rs"))
                 if candidate in self._files]
        return found[0] if len(found) == 1 else None

    # ModuleMap -------------------------------------------------------------------------------------------
    def module(self, importer: str, specifier: str) -> Module | None:
        """The module file a path names, walked segment by segment from where its first segment starts."""
        segments = _SEPARATOR.split(specifier, _MAX_SEGMENTS)
        if len(segments) > _MAX_SEGMENTS:
            return None
        first, rest = segments[0], segments[1:]
        current: str | None
        if first == "crate":
            current = self._root(importer)
        elif first in ("self", "super"):
            current = importer if first == "self" else self._parent(importer)
        else:
            current = self._child(importer, first) or self._crates.get(first)
        for segment in rest:
            if current is None:
                return None
            current = current if segment == "self" else \
                self._parent(current) if segment == "super" else self._child(current, segment)
        return Module(current) if current is not None else None

    def submodule(self, package: Module, name: str) -> Module | None:
        found = self._child(package.path, name) if package.path in self._files else None
        return Module(found) if found else None

    def method_files(self, path: str, type_name: str) -> list[str]:
        """A type's `impl` blocks may be written in any module of its crate."""
        return self._crate_files.get(self._source_of(path) or path, [])


_HEADER_LINES = 16
_GENERATED_MARK = re.compile(rb"^\s*(?://|/\*|\*).{0,200}?(?:@generated|automatically generated by rust-bindgen)")


# cargo's build directory: build scripts' output (`target/debug/build/*/out/`) and `cargo package` copies
_BUILD_OUTPUT = re.compile(r"(?:\A|/)target/(?:[^/]{1,100}/)?(?:debug|release|package)/")


def generated(path: str, source: bytes) -> bool:
    """The `@generated` convention (prost, cargo's lock files, rustfmt skips them) and bindgen's header, in a
    comment among the file's first lines; and what cargo writes under a committed `target/`."""
    if _BUILD_OUTPUT.search(path):
        return True
    return any(_GENERATED_MARK.match(line) for line in source.split(b"\n", _HEADER_LINES)[:_HEADER_LINES])


# `cargo test` builds tests/ as integration tests; `mod tests` (in a file or as tests.rs) holds the unit tests.
TEST_CODE = TestCode(frozenset({"tests"}), re.compile(r"\Atests\.rs\Z"), re.compile(r"(?:\A|\.)tests\."))
# Nothing is in scope without a `use`, and a method is found only through a type spider knows: no name guessing.
# A name defined twice (`#[cfg(unix)]` / `#[cfg(windows)]` twins, `from` of two `impl From<_>`) means neither.
RULES = LanguageRules(modules=RustCrates, exports=Exports.FILE_SCOPE, test_code=TEST_CODE, qualified_names=True,
                      prefix_scope=False, methods_in_package=True, guess_methods=False, repeats_unknown=True,
                      dispatching=frozenset({"trait"}), generated=generated, stack_frames=stack_frames)
