"""Looking a name up from a scope (the half of `references.Resolver` a dotted name's first part goes through), the
way the language does, as its `LanguageRules` say: enclosing scopes outwards (Java also sees the members of
enclosing and inherited classes), then the file, then what the language adds implicitly (the package's other files,
star imports, C's translation unit). C++ (`nested_names`) looks a qualified name up under each enclosing namespace
or class instead.
"""

from __future__ import annotations

import re
from collections import defaultdict

from spider.core.records import entity_id
from spider.core.schema import Label, Resolution
from spider.indexer.languages import rules_for
from spider.indexer.languages.rules import Exports
from spider.indexer.parse.facts import SELF, FileFacts
from spider.indexer.resolve.members import MemberWalker
from spider.indexer.resolve.symbols import MAX_DEPTH, OUTSIDE, Found, Target

_OVERLOAD = re.compile(r"#\d+\Z")  # `f#2`: the second definition of `f` in its scope


class ScopeLookup(MemberWalker):
    """Names looked up from a scope (the base of `references.Resolver`)."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        super().__init__(files)
        self._included: dict[str, list[str]] = {}  # LINKED files -> the files they include, transitively
        self._include_sets: dict[str, frozenset[str]] = {}
        self._direct: dict[str, list[str]] = {}
        self._definers: dict[str, list[str]] | None = None  # `nested_names`: see _nested_index
        self._declarers: dict[str, set[str]] = {}

    # names ----------------------------------------------------------------------
    def lookup(self, path: str, scope: str | None, name: str) -> Found | None:
        """A bare name as seen from `scope`: its targets (Java overloads: several), or OUTSIDE, or None."""
        language = self.files[path].language
        class_scope = rules_for(language).class_scope
        current = scope
        while True:
            owner = entity_id(path, current) if current else path
            entity = self.entities[owner][1] if current else None
            is_class = entity is not None and entity.label == Label.CLASS
            if not is_class or current == scope or class_scope:
                hit = self._local(path, current, owner, name, language)
                if hit is not None:
                    return hit
                if is_class and class_scope:
                    inherited = [m for base in self._bases_of(owner) for m in self.members(base, name, language)]
                    if inherited:
                        return inherited, Resolution.EXACT
            if current is None:
                break
            current = entity.parent  # type: ignore[union-attr]  # `current` names an entity
        return self._implicit(path, name, language)

    def _implicit(self, path: str, name: str, language: str) -> Found | None:
        """A name the importer's package defines in any of its files. Where several files define it (Go's
        build-constrained variants: `trace.go` / `trace_notrace.go`), the importer's own file's is the one
        compiled with it; otherwise which one is compiled is not known, and the name is left unresolved."""
        hits: dict[str, list[Target]] = {}
        for file in self.modules.of(language).implicit_files(path):
            self._read(file)
            hit = self.children.get(file, {}).get(name)
            if hit:
                hits[file] = hit
        if path in hits:
            return hits[path][:1], Resolution.EXACT
        if len(hits) > 1:
            return OUTSIDE
        for file, hit in hits.items():
            return hit[:1], Resolution.IMPORT
        if rules_for(language).exports is Exports.LINKED:
            return self._linked(path, name, language)
        for imp in self.star_imports.get((path, None), []):
            module = self._module_of(path, imp)
            if module is not None:
                hit = self.members(module, name, language)
                if hit:
                    return hit, Resolution.IMPORT
        return None

    def _linked(self, path: str, name: str, language: str) -> Found:
        """C: a name the file does not define means the one definition its translation unit sees: one its
        headers (transitively included) define (a `static inline`), else, where it or they declare the name, the
        repository's one definition with external linkage. Several (platform variants in several files) or none:
        unresolved."""
        defined: set[Target] = set()
        declared = name in self.declared.get(path, ())
        for header in self._includes(path):
            self._read(header)
            hit = self.children.get(header, {}).get(name)
            if hit:
                defined.add(hit[-1])
            declared = declared or name in self.declared.get(header, ())
        if not defined and declared:
            self._read(("method", language, name))
            by_file = {self._file_of(eid): eid for eid in self.linked.get((language, name), [])}  # `#ifdef` variants
            defined.update(by_file.values())  # of one file: its last, as a name its own file defines twice
        return ([defined.pop()], Resolution.IMPORT) if len(defined) == 1 else OUTSIDE

    def _named_by_target(self, path: str, scope: str | None, dotted: str) -> str | None:
        """An entity of this file whose qualname is `dotted` under one of the caller's qualname prefixes:
        `proto.tz()` inside `default` finds `default.proto.tz`; `round()` inside TS namespace member
        `Fees.forAmount` finds `Fees.round`. A class's members are under its prefix only where code in a class
        sees them bare (`class_scope`): `len()` in Python's or JavaScript's `Bag.size` is not `Bag.len`."""
        parts = scope.split(".") if scope else []
        class_scope = rules_for(self.files[path].language).class_scope
        for cut in range(len(parts), -1, -1):
            prefix = ".".join(parts[:cut])
            if prefix and not class_scope and self._is_class(entity_id(path, prefix)):
                continue
            eid = entity_id(path, f"{prefix}.{dotted}" if prefix else dotted)
            if eid in self.entities:
                return eid
        return None

    def _enclosing_class(self, path: str, scope: str | None) -> str | None:
        while scope:
            eid = entity_id(path, scope)
            entity = self.entities[eid][1]
            if entity.label == Label.CLASS:
                return eid
            scope = entity.parent
        return None

    # C++ ------------------------------------------------------------------------
    def _nested(self, path: str, scope: str, parts: tuple[str, ...], classes_only: bool, arity: int | None
                ) -> list[tuple[str, Resolution]]:
        """A name used in `scope` as the translation unit sees it: `<self>.m` is a member of the method's class;
        any other name is looked for under `scope` and each namespace or class enclosing it, innermost first (the first
        that holds it hides the outer ones). Overloads are told apart by their parameter count alone; several
        left: dropped."""
        enclosing = [part.split("#")[0] for part in scope.split(".")]  # the function's own name: its local classes
        if parts[0] == SELF:
            found = self._qualified_member(path, ".".join(enclosing[:-1]), parts[1:]) if len(enclosing) > 1 else []
        else:
            found = []
            for cut in range(len(enclosing), -1, -1):
                found = self._qualified_member(path, ".".join(enclosing[:cut]), parts)
                if found:
                    break
        if classes_only:
            found = [(eid, how) for eid, how in found if self._is_class(eid)]
        if len(found) > 1 and arity is not None:
            found = [(eid, how) for eid, how in found if self.entities[eid][1].params in (arity, None)]
        return found if len(found) == 1 else []

    def _qualified_member(self, path: str, prefix: str, parts: tuple[str, ...], depth: int = 0
                          ) -> list[tuple[str, Resolution]]:
        """The definitions of `prefix.parts` the translation unit of `path` sees; failing that, where
        `prefix.parts[:-1]` is a class it sees, the member of that name its bases have."""
        dotted = ".".join(filter(None, (prefix, *parts)))
        found = self._visible(path, dotted)
        if found or depth > MAX_DEPTH:
            return found
        owner = dotted.rpartition(".")[0]
        classes = [eid for eid, _ in self._visible(path, owner) if self._is_class(eid)] if owner else []
        if len(classes) != 1:
            return []
        for base in self._bases_of(classes[0]):
            inherited = self._qualified_member(path, self.entities[base][1].qualname.split("#")[0], parts[-1:],
                                               depth + 1)
            if inherited:
                return inherited
        return []

    def _visible(self, path: str, dotted: str) -> list[tuple[str, Resolution]]:
        """The definitions named `dotted` (overloads: `f`, `f#2`, …) the translation unit of `path` sees: its own
        file's (`exact`), else those its headers define, else, where it or they declare the name, the
        repository's one definition with external linkage, as in C (`import`)."""
        own = self._defined(path, dotted)
        if own:
            return [(eid, Resolution.EXACT) for eid in own]
        included = self._include_set(path)
        if self._reads:  # what any of them defines or declares may change the answer
            self._reads[-1].update(included)
        definers, declarers = self._nested_index()
        defined = [eid for file in definers.get(dotted, ()) if file in included for eid in self._defined(file, dotted)]
        declared = dotted in self.declared.get(path, ()) or not declarers.get(dotted, set()).isdisjoint(included)
        if not defined and declared:
            language = self.files[path].language
            self._read(("method", language, dotted.rpartition(".")[2]))
            by_file: dict[str, list[str]] = defaultdict(list)
            for eid in self.linked.get((language, dotted), []):
                by_file[self._file_of(eid)].append(eid)
            defined = next(iter(by_file.values())) if len(by_file) == 1 else []  # one file: overloads of it
        return [(eid, Resolution.IMPORT) for eid in defined]

    def _include_set(self, path: str) -> frozenset[str]:
        found = self._include_sets.get(path)
        if found is None:
            found = self._include_sets[path] = frozenset(self._includes(path))
        return found

    def _nested_index(self) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
        """The files defining each dotted name (overloads `f#2` under `f`) and the files declaring it, built when
        first asked: a translation unit includes a hundred headers, and a name is looked up under each prefix."""
        if self._definers is None:
            self._definers, self._declarers = defaultdict(list), defaultdict(set)
            for path, facts in self.files.items():
                for name in dict.fromkeys(_OVERLOAD.sub("", e.qualname) for e in facts.entities):
                    self._definers[name].append(path)
            for path, names in self.declared.items():
                for name in names:
                    self._declarers[name].add(path)
        return self._definers, self._declarers

    def _defined(self, path: str, dotted: str) -> list[str]:
        first = entity_id(path, dotted)
        if first not in self.entities:
            return []
        found, count = [first], 2
        while f"{first}#{count}" in self.entities:
            found.append(f"{first}#{count}")
            count += 1
        return found

    def _includes(self, path: str) -> list[str]:
        """The files `path` includes, directly or through the files it includes, each once (include guards
        make cycles harmless in C, and here)."""
        found = self._included.get(path)
        if found is None:
            seen, queue = {path}, [path]
            for file in queue:
                for included in self._direct_includes(file):
                    if included not in seen:
                        seen.add(included)
                        queue.append(included)
            found = self._included[path] = queue[1:]
        return found

    def _direct_includes(self, path: str) -> list[str]:
        """The files `path` names in its includes (each header's are looked up once, not once per includer)."""
        found = self._direct.get(path)
        if found is None:
            modules = self.modules.of(self.files[path].language)
            named = (modules.module(path, imp.module) for imp in self.star_imports.get((path, None), []))
            found = self._direct[path] = [m.path for m in named if m is not None and m.path in self.files]
        return found

