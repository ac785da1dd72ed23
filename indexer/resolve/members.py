"""Walking members (the half of `references.Resolver` a dotted name's parts after the first go through): what a name
is as a member of a module (a file's file-scope names or its exports, a directory's or a Java package's files and
submodules) or of a class (its own, a JS prototype's, Go methods in other files, its bases'), and what an import
binds, following re-exports. Also `_local`, the names a scope binds itself, which both halves read.
"""

from __future__ import annotations

from spider.core.records import entity_id
from spider.core.schema import Resolution
from spider.indexer.languages import rules_for
from spider.indexer.languages.rules import Exports
from spider.indexer.parse.facts import FileFacts, Import
from spider.indexer.resolve.modules import Module
from spider.indexer.resolve.symbols import EXTERNAL, MAX_DEPTH, OUTSIDE, Found, SymbolTables, Target


class MemberWalker(SymbolTables):
    """Members of modules and classes, and what imports bind (the base of `scopes.ScopeLookup`)."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        super().__init__(files)
        self._import_memo: dict[tuple[str, Import], tuple[Target | None, frozenset]] = {}
        self._resolving: list[list] = []  # the imports being resolved: [key, ran into a cycle]

    # members ----------------------------------------------------------------------
    def members(self, target: Target, name: str, language: str, depth: int = 0) -> list[Target]:
        if depth > MAX_DEPTH or target is EXTERNAL:
            return []
        if isinstance(target, str):
            return self._class_members(target, name, language, depth)
        if target.is_dir:
            modules = self.modules.of(language)
            for file in modules.package_files(target.path):
                self._read(file)
                hit = self.children.get(file, {}).get(name)
                if hit:
                    return hit[:1]
            sub = modules.submodule(target, name)
            return [sub] if sub else []
        self._read(target.path)
        facts = self.files.get(target.path)
        if facts is None:
            return []
        exports = rules_for(facts.language).exports
        if exports is Exports.FILE_SCOPE:
            return self._file_scope_member(target, name, depth)
        if exports is Exports.DECLARED:
            return self._declared_export(target.path, name, depth)
        return []

    def _class_members(self, eid: str, name: str, language: str, depth: int) -> list[Target]:
        self._read(self._file_of(eid))
        own = self.children.get(eid, {}).get(name)
        if own:
            return _chosen(own, language)
        path, entity = self.entities[eid]
        for member in (f"{entity.qualname}.prototype.{name}", f"{entity.qualname}.{name}"):  # JS `X.prototype.m = …`
            if entity_id(path, member) in self.entities:
                return [entity_id(path, member)]
        if rules_for(self.files[path].language).methods_in_package:  # Go: `func (t T) m()` in another file
            defined: list[Target] = []
            homonyms = False  # another file declares a type of this name: whose methods it writes is not known
            for file in self.modules.of(self.files[path].language).method_files(path, entity.qualname):
                self._read(file)
                homonyms = homonyms or (file != path and entity_id(file, entity.qualname) in self.entities)
                for method in (f"{entity.qualname}.{name}", f"{entity.qualname}.{name}#2"):  # #2: written twice
                    if entity_id(file, method) in self.entities:
                        defined.append(entity_id(file, method))
            if defined:  # in several files (build-constrained variants): which one is compiled is not known
                return defined if len(defined) == 1 and not homonyms else []
        for base in self._bases_of(eid):
            inherited = self._class_members(base, name, language, depth + 1) if depth < MAX_DEPTH else []
            if inherited:
                return inherited
        return []

    def _file_scope_member(self, module: Module, name: str, depth: int) -> list[Target]:
        path = module.path
        language = self.files[path].language
        self._read(path)
        defined = self.children.get(path, {}).get(name)
        if defined:
            return _chosen(defined, language)
        imp = self.imports.get((path, None), {}).get(name)
        if imp is not None:  # a re-export (`from .impl import name` in a package's __init__)
            target = self.resolve_import(path, imp, depth)
            return [target] if target is not None and target is not EXTERNAL else []
        sub = self.modules.of(language).submodule(module, name)
        if sub:
            return [sub]
        for star in self.star_imports.get((path, None), []):
            inner = self.modules.of(language).module(path, star.module)
            if inner is not None and inner != module:
                hit = self.members(inner, name, language, depth + 1)
                if hit:
                    return hit
        return []

    def _declared_export(self, path: str, name: str, depth: int) -> list[Target]:
        self._read(path)
        facts = self.files[path]
        if not facts.exports:  # a script: its file-scope names are what `require` sees
            hit = self._local(path, None, path, name, facts.language)
            return hit[0] if hit else []
        for export in facts.exports:
            if export.name == name == "default" and export.module is None and export.local is None:
                return [Module(path)]  # `export default { a, b }`: members are the file's object exports
            if export.name == name and export.module is None and export.local:
                local = entity_id(path, export.local)
                if local in self.entities:
                    return [local]
                hit = self._local(path, None, path, export.local, facts.language)
                return hit[0] if hit else []
            if export.module is not None and (export.name == name or export.name == "*"):
                module = self.modules.of(facts.language).module(path, export.module)
                if module is None:
                    continue
                if export.name == "*":
                    reexported = self._declared_export(module.path, name, depth + 1) if depth < MAX_DEPTH else []
                    if reexported:
                        return reexported
                elif export.imported is None:
                    return [module]
                else:
                    return self._declared_export(module.path, export.imported, depth + 1) if depth < MAX_DEPTH else []
        return []

    def _local(self, path: str, scope: str | None, owner: str, name: str, language: str) -> Found | None:
        """`name` as the scope `owner` (`scope` of `path`, None: the file) binds it itself: what it defines, else
        what it imports; OUTSIDE where that is outside the repo or not known; None where it binds no such name."""
        defined = self.children.get(owner, {}).get(name)
        if defined:
            chosen = _chosen(defined, language)
            return (chosen, Resolution.EXACT) if chosen else OUTSIDE
        imp = self.imports.get((path, scope), {}).get(name)
        if imp is not None:
            target = self.resolve_import(path, imp)
            if target is EXTERNAL or target is None:
                return OUTSIDE
            return [target], Resolution.IMPORT
        return None

    # imports ----------------------------------------------------------------------
    def resolve_import(self, path: str, imp: Import, depth: int = 0) -> Target | None:
        """What an import binds: an entity, a module, EXTERNAL (outside the repo) or None (not found)."""
        key = (path, imp)
        if key in self._import_memo:
            result, reads = self._import_memo[key]
            if self._reads:
                self._reads[-1].update(reads)
            return result
        for i, (resolving, _) in enumerate(self._resolving):
            if resolving == key:  # a cycle resolves to nothing; what it answered above depends on the way in
                for entry in self._resolving[i:]:
                    entry[1] = True
                return None
        self._resolving.append([key, False])
        self._reads.append({path})
        try:
            module = self._module_of(path, imp)
            if module is None:
                result = EXTERNAL
            elif imp.name is None or imp.name == "*":
                result = module
            else:
                result = next(iter(self.members(module, imp.name, self.files[path].language, depth + 1)), None)
        finally:
            reads = frozenset(self._reads.pop())
            _, in_cycle = self._resolving.pop()
        if self._reads:
            self._reads[-1].update(reads)
        if not in_cycle:
            self._import_memo[key] = (result, reads)
        return result

    def _module_of(self, path: str, imp: Import) -> Target | None:
        language = self.files[path].language
        module = self.modules.of(language).module(path, imp.module)
        if module is not None or not rules_for(language).qualified_names:
            return module
        found = self._qualified(path, tuple(imp.module.split(".")))
        if found is None:
            return None
        targets: list[Target] = [found[0]]
        for part in found[1]:
            targets = [m for t in targets for m in self.members(t, part, language)]
        return targets[0] if targets else None  # a class, for static imports

    def _qualified(self, path: str, parts: tuple[str, ...]) -> tuple[Target, tuple[str, ...]] | None:
        """`com.acme.Foo.bar` -> (the package com.acme, ("Foo", "bar")): the longest prefix naming a module wins."""
        modules = self.modules.of(self.files[path].language)
        for cut in range(len(parts) - 1, 0, -1):
            module = modules.module(path, ".".join(parts[:cut]))
            if module is not None:
                return module, parts[cut:]
        return None


def _chosen(defined: list[Target], language: str) -> list[Target]:
    """What a name defined several times in one scope means: every definition (overloads), none (a language
    where which one is compiled is not known), or the last (a later definition replaces an earlier one)."""
    rules = rules_for(language)
    if rules.overloads:
        return list(defined)
    return [] if rules.repeats_unknown and len(defined) > 1 else defined[-1:]
