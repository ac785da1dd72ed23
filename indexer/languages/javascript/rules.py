"""How JavaScript and TypeScript resolve (one set of rules: they import each other): relative specifiers with
extension and `index` probing (a TS `./x.js` may mean `./x.ts`), bare package names are external; a module's
members are its exports; calling a CommonJS module calls its default export; a name means its last definition.
A compiler's or bundler's output (a committed `dist/` bundle) is generated: it ends pointing at its source map."""

from __future__ import annotations

import posixpath
import re

from spider.indexer.languages.javascript.frames import stack_frames
from spider.indexer.languages.rules import Exports, LanguageRules, Module, ModuleMap, TestCode
from spider.indexer.parse.facts import FileFacts

_SUFFIXES = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_EMITTED = (".js", ".jsx", ".mjs", ".cjs")


class ScriptModules(ModuleMap):
    """The snapshot's JavaScript and TypeScript files, as relative specifiers find them."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        self._files = set(files)

    def module(self, importer: str, specifier: str) -> Module | None:
        if not specifier.startswith((".", "/")):
            return None  # a package from node_modules: external
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier)).lstrip("/")
        stems = [base]
        if base.endswith(_EMITTED):
            stems.append(base.rsplit(".", 1)[0])  # TS ESM: "./x.js" names x.ts
        for stem in stems:
            for candidate in (stem, *(stem + s for s in _SUFFIXES), *(f"{stem}/index{s}" for s in _SUFFIXES)):
                if candidate in self._files:
                    return Module(candidate)
        return None


# Jest, Mocha and Vitest: test/, __tests__/ and spec/ trees, *.test.js and *.spec.ts files, __mocks__/ stubs.
TEST_CODE = TestCode(frozenset({"test", "tests", "__tests__", "__mocks__", "spec", "specs"}),
                     re.compile(r"[.-](test|spec)\.[cm]?[jt]sx?$"))
_TAIL_BYTES = 1 << 12
_SOURCE_MAP_REFERENCE = (b"//# sourceMappingURL=", b"//@ sourceMappingURL=")  # `//@`: the form before 2013


def generated(path: str, source: bytes) -> bool:
    """Compiled or bundled output: one of its last two lines refers to the source map back to the files it was built
    from (GitHub Linguist's rule). A fix is made in those files; the bundle repeats their functions, crowding them
    out of a ranking (a library's committed `dist/lib.js`, `dist/esm/lib.js`, `dist/node/lib.cjs`)."""
    lines = source[-_TAIL_BYTES:].rstrip().splitlines()[-2:]
    return any(line.lstrip().startswith(_SOURCE_MAP_REFERENCE) for line in lines)


RULES = LanguageRules(modules=ScriptModules, exports=Exports.DECLARED, test_code=TEST_CODE, module_call="default",
                      generated=generated, stack_frames=stack_frames)
