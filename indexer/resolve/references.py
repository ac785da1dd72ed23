"""References -> IMPORTS / INVOKES / INHERITS edges, resolved repo-wide through scopes, imports and re-exports.

A name is looked up the way the language does it, as its `LanguageRules` say: enclosing scopes outwards (Java also
sees the members of enclosing and inherited classes), then the file, then what the language adds implicitly (Java:
the file's own package and wildcard imports; Python and JS: star imports). Dotted names walk members of
modules (exports, submodules) and classes (bases included). What cannot be found is dropped; the only guess
is a method name that is unique in the repo, called on a receiver the scopes do not know (`heuristic`).

Each file's edges are resolved on their own and record what they read (files, the repo-wide method names, other
files' bases), so that a later commit redoes only the files whose reads it changed (`indexer.resolve.incremental`).
For that, a file's result must not depend on which files were resolved before it: import lookups are memoised only
when they did not run into a cycle (whose answer depends on where the cycle was entered), and the inheritance pass,
which walks the bases found so far in file order, memoises nothing across files.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Union

from spider.core.records import GraphEdge, entity_id
from spider.core.schema import Label, Rel, Resolution
from spider.indexer.languages import rules_for, split_entity_id
from spider.indexer.languages.rules import Exports
from spider.indexer.parse.facts import EXPR, SELF, SUPER, Entity, FileFacts, Import, RefKind, binds_name
from spider.indexer.resolve.modules import Module, ModuleIndex

Target = Union[str, Module]  # an entity id, or a module (file / directory / Java package)
_EXTERNAL = Module("<external>", is_dir=True)  # known to live outside the repo: never guessed at
Found = tuple[list[Target], Resolution]
_OUTSIDE: Found = ([], Resolution.IMPORT)  # lookup result for a name imported from outside the repo
_MAX_DEPTH = 12  # re-export chains and inheritance deeper than this are given up on (and cycles end)
_STRENGTH = {Resolution.EXACT: 0, Resolution.IMPORT: 1, Resolution.HEURISTIC: 2}
_OVERLOAD = re.compile(r"#\d+\Z")  # `f#2`: the second definition of `f` in its scope


EdgeKey = tuple[Rel, str, str]
Read = Union[str, tuple[str, ...]]  # a file path, ("method", language, name) or ("bases", path)


@dataclass(frozen=True)
class FileResolution:
    """One file's resolved edges and what resolving them read: its inheritance pass (INHERITS edges and the bases
    of its classes), then its references (IMPORTS and INVOKES)."""

    inherits: dict[EdgeKey, Resolution]
    bases: dict[str, list[str]]
    inherit_reads: frozenset
    links: dict[EdgeKey, Resolution]
    reads: frozenset


class Resolver:
    def __init__(self, files: dict[str, FileFacts]) -> None:
        self.files = files
        self.modules = ModuleIndex(files)
        self.entities: dict[str, tuple[str, Entity]] = {}
        self.children: dict[str, dict[str, list[Target]]] = defaultdict(lambda: defaultdict(list))  # entity ids
        self.imports: dict[tuple[str, str | None], dict[str, Import]] = defaultdict(dict)
        self.star_imports: dict[tuple[str, str | None], list[Import]] = defaultdict(list)
        self.methods_by_name: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.bases: dict[str, list[str]] = {}
        self.declared: dict[str, set[str]] = defaultdict(set)  # LINKED files -> the names they declare
        self.linked: dict[tuple[str, str], list[str]] = defaultdict(list)  # (language, name) -> external definitions
        for path, facts in files.items():
            bound = []
            for entity in facts.entities:
                eid = entity_id(path, entity.qualname)
                self.entities[eid] = (path, entity)
                bound.append(binds_name(entity))
                if bound[-1]:
                    owner = entity_id(path, entity.parent) if entity.parent else path
                    self.children[owner][entity.name].append(eid)
            for entity, binds in zip(facts.entities, bound):
                if entity.label == Label.FUNCTION and self._is_member(path, entity, binds):
                    self.methods_by_name[(facts.language, entity.name)].append(entity_id(path, entity.qualname))
            if rules_for(facts.language).exports is Exports.LINKED:
                for export in facts.exports:
                    self.declared[path].add(export.name)
                    if export.local is not None:
                        self.linked[(facts.language, export.name)].append(entity_id(path, export.local))
            for imp in facts.imports:
                if imp.name == "*":
                    self.star_imports[(path, imp.scope)].append(imp)
                elif imp.alias:
                    self.imports[(path, imp.scope)][imp.alias] = imp
        self._import_memo: dict[tuple[str, Import], tuple[Target | None, frozenset]] = {}
        self._included: dict[str, list[str]] = {}  # LINKED files -> the files they include, transitively
        self._include_sets: dict[str, frozenset[str]] = {}
        self._direct: dict[str, list[str]] = {}
        self._definers: dict[str, list[str]] | None = None  # `nested_names`: see _nested_index
        self._declarers: dict[str, set[str]] = {}
        self._reads: list[set[Read]] = []  # one frame per file and per import being resolved
        self._resolving: list[list] = []  # the imports being resolved: [key, ran into a cycle]

    def _is_member(self, path: str, entity: Entity, binds: bool) -> bool:
        """A method of a class, or (JS) a function stored as a member (`proto.m = function`, `{ m() {} }`: its
        definition does not bind its name)."""
        parent = self.entities.get(entity_id(path, entity.parent)) if entity.parent else None
        return (parent is not None and parent[1].label == Label.CLASS) or not binds

    # edges --------------------------------------------------------------------
    def edges(self) -> list[GraphEdge]:
        """All IMPORTS, INHERITS and INVOKES edges of the snapshot, deduplicated, in a stable order."""
        return sorted(edges_of(self.resolve_files({}, set(self.files), set(self.files))),
                      key=lambda e: (e.type, e.src, e.dst))

    def resolve_files(self, earlier: dict[str, FileResolution], inherits: set[str], links: set[str]
                      ) -> dict[str, FileResolution]:
        """Every file's resolution: the passes of the files in `inherits` / `links` are run, the others' are
        taken from `earlier`. Inheritance runs first, in file order (bases first: member lookups walk them)."""
        results: dict[str, tuple] = {}
        for path in sorted(self.files):
            if path in inherits:
                self._import_memo.clear()  # lookups here see only the bases of the files before this one
                results[path] = self._recorded(self._inherit_file, path)
            else:
                found = earlier[path]
                self.bases.update(found.bases)
                results[path] = (found.inherits, found.bases), found.inherit_reads
        self._import_memo.clear()
        files = {}
        for path in sorted(self.files):
            (inherited, bases), inherit_reads = results[path]
            if path in links:
                found_links, reads = self._recorded(self._link_file, path)
            else:
                found_links, reads = earlier[path].links, earlier[path].reads
            files[path] = FileResolution(inherited, bases, inherit_reads, found_links, reads)
        return files

    def _recorded(self, resolve_file, path: str) -> tuple:
        self._reads.append(set())
        result = resolve_file(path)
        return result, frozenset(self._reads.pop())

    def _inherit_file(self, path: str) -> tuple[dict[EdgeKey, Resolution], dict[str, list[str]]]:
        found: dict[EdgeKey, Resolution] = {}
        bases: dict[str, list[str]] = {}
        for ref in self.files[path].references:
            if ref.kind == RefKind.INHERIT and ref.scope:
                src = entity_id(path, ref.scope)
                for dst, resolution in self.resolve(path, ref.scope, ref.target, ref.inferred, classes_only=True):
                    self.bases.setdefault(src, []).append(dst)
                    bases[src] = self.bases[src]
                    _add(found, Rel.INHERITS, src, dst, resolution)
            elif ref.kind == RefKind.MEMBER and ref.scope:  # the class of `Foo::m` contains it, wherever it is
                method = entity_id(path, ref.scope)
                for cls, resolution in self.resolve(path, ref.scope, ref.target, classes_only=True):
                    _add(found, Rel.CONTAINS, cls, method, resolution)
        return found, bases

    def _link_file(self, path: str) -> dict[EdgeKey, Resolution]:
        found: dict[EdgeKey, Resolution] = {}
        facts = self.files[path]
        for imp in facts.imports:
            src = entity_id(path, imp.scope) if imp.scope else path
            target = self.resolve_import(path, imp)
            dst = self._node_of(target)
            if dst:
                _add(found, Rel.IMPORTS, src, dst, Resolution.IMPORT)
        for export in facts.exports:  # `export { x } from "./m"` imports what it re-exports
            if export.module is not None:
                module = self.modules.of(facts.language).module(path, export.module)
                named = export.imported not in (None, "*") and module is not None  # then neither is None
                dst = self._node_of(
                    next(iter(self.members(module, export.imported, facts.language)), None)  # type: ignore[arg-type]
                    if named else module
                )
                if dst:
                    _add(found, Rel.IMPORTS, path, dst, Resolution.IMPORT)
        for ref in facts.references:
            if ref.kind == RefKind.CALL and ref.scope:
                src = entity_id(path, ref.scope)
                for dst, resolution in self.resolve(path, ref.scope, ref.target, ref.inferred, arity=ref.arity):
                    _add(found, Rel.INVOKES, src, dst, resolution)
        return found

    # what a file's resolution reads ---------------------------------------------
    def _read(self, key: Read) -> None:
        """Record a read of something outside the file being resolved (a changed file is always resolved again,
        so its own facts need no record)."""
        if self._reads:
            self._reads[-1].add(key)

    def _file_of(self, eid: str) -> str:
        return self.entities[eid][0] if eid in self.entities else split_entity_id(eid)[0]

    def _bases_of(self, eid: str) -> list[str]:
        """The bases of class `eid`, which its file's inheritance pass found."""
        path = self._file_of(eid)
        self._read(path)
        self._read(("bases", path))
        return self.bases.get(eid, [])

    def _dispatching(self, target: Target) -> bool:
        """Whether `target` is a class whose members, named through it, run the implementing type's own."""
        if not isinstance(target, str) or target not in self.entities:
            return False
        path, entity = self.entities[target]
        self._read(path)
        return entity.kind in rules_for(self.files[path].language).dispatching

    def _node_of(self, target: Target | None) -> str | None:
        if isinstance(target, str):
            return target
        if isinstance(target, Module) and not target.is_dir and target.path in self.files:
            return target.path
        return None

    # references ---------------------------------------------------------------
    def resolve(
        self, path: str, scope: str, parts: tuple[str, ...], inferred: bool = False, classes_only: bool = False,
        arity: int | None = None,
    ) -> list[tuple[str, Resolution]]:
        """Entity ids a dotted name used inside `scope` of `path` refers to, each with how it was found."""
        language = self.files[path].language
        rules = rules_for(language)
        if rules.nested_names:
            return [(eid, Resolution.HEURISTIC if inferred else how)
                    for eid, how in self._nested(path, scope, parts, classes_only, arity)]
        if len(parts) > 1:  # JS `exports.foo()`, `proto.format()`: entities named by their assignment target
            named = self._named_by_target(path, scope, ".".join(parts))
            if named and rules.repeats_unknown and f"{named}#2" in self.entities:
                return []  # defined twice in the file: which one is compiled is not known
            if named and (parent := self.entities[named][1].parent) and self._dispatching(entity_id(path, parent)):
                return []  # `Trait::m(x)`: which `m` runs is `x`'s type's choice
            if named:
                return [(named, Resolution.HEURISTIC if inferred else Resolution.EXACT)]
        head, rest = parts[0], parts[1:]
        if head in (SELF, SUPER):
            cls = self._enclosing_class(path, scope)
            if cls is None:  # JS `this.m()` in a function stored on a prototype or object
                return self._guess(language, (EXPR, *rest[-1:]), inferred=False) if head == SELF else []
            targets: list[Target] = [cls] if head == SELF else list(self._bases_of(cls))
            resolution = Resolution.EXACT
        else:
            found = self.lookup(path, scope, head)
            qualified = self._qualified(path, parts) if found is None and rules.qualified_names else None
            if found is _OUTSIDE:
                return []
            if found is not None:
                targets, resolution = found
            elif not rest and rules.prefix_scope and (named := self._named_by_target(path, scope, head)):
                targets, resolution = [named], Resolution.EXACT
            elif qualified is not None:
                targets, resolution, rest = [qualified[0]], Resolution.IMPORT, qualified[1]
            else:
                return self._guess(language, parts, inferred)
        for part in rest:
            if any(self._dispatching(t) for t in targets):
                return []  # `Trait::m(x)`: which `m` runs is `x`'s type's choice
            targets = [m for t in targets for m in self.members(t, part, language)]
            if not targets:
                if head == SELF and len(rest) > 1:  # self.attr.m() with attr's type unknown
                    return self._guess(language, (head, *rest[-1:]), inferred=False)
                return []
        if inferred:
            resolution = Resolution.HEURISTIC
        if len(targets) > 1 and arity is not None:  # overloads: keep those whose parameter count fits the call
            fitting: list[Target] = [
                t for t in targets if isinstance(t, str) and self.entities[t][1].params in (arity, None)
            ]
            targets = fitting or targets
        result = []
        target: Target | None  # a CommonJS module called: its `module_call` member, if any
        for target in targets:
            if isinstance(target, Module) and rules.module_call and not target.is_dir:  # calling a CommonJS module
                target = next(iter(self.members(target, rules.module_call, language)), None)
            if isinstance(target, str) and target in self.entities:
                if classes_only and self.entities[target][1].label != Label.CLASS:
                    continue
                result.append((target, resolution))
        return result

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

    def _is_class(self, eid: str) -> bool:
        return eid in self.entities and self.entities[eid][1].label == Label.CLASS

    def _guess(self, language: str, parts: tuple[str, ...], inferred: bool) -> list[tuple[str, Resolution]]:
        """`x.m()` on a receiver no scope knows: link only when exactly one method in the repo is called m."""
        receiver = parts[0]
        if len(parts) != 2 or inferred or receiver[:1].isupper() or not rules_for(language).guess_methods:
            return []  # bare unknown names are builtins; capitalised receivers are external classes
        self._read(("method", language, parts[1]))
        candidates = self.methods_by_name.get((language, parts[1]), [])
        return [(candidates[0], Resolution.HEURISTIC)] if len(candidates) == 1 else []

    def _enclosing_class(self, path: str, scope: str | None) -> str | None:
        while scope:
            eid = entity_id(path, scope)
            entity = self.entities[eid][1]
            if entity.label == Label.CLASS:
                return eid
            scope = entity.parent
        return None

    # names ----------------------------------------------------------------------
    def lookup(self, path: str, scope: str | None, name: str) -> Found | None:
        """A bare name as seen from `scope`: its targets (Java overloads: several), or _OUTSIDE, or None."""
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

    def _local(self, path: str, scope: str | None, owner: str, name: str, language: str) -> Found | None:
        defined = self.children.get(owner, {}).get(name)
        if defined:
            chosen = _chosen(defined, language)
            return (chosen, Resolution.EXACT) if chosen else _OUTSIDE
        imp = self.imports.get((path, scope), {}).get(name)
        if imp is not None:
            target = self.resolve_import(path, imp)
            if target is _EXTERNAL or target is None:
                return _OUTSIDE
            return [target], Resolution.IMPORT
        return None

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
            return _OUTSIDE
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
        return ([defined.pop()], Resolution.IMPORT) if len(defined) == 1 else _OUTSIDE

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
        if found or depth > _MAX_DEPTH:
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

    def _qualified(self, path: str, parts: tuple[str, ...]) -> tuple[Target, tuple[str, ...]] | None:
        """`com.acme.Foo.bar` -> (the package com.acme, ("Foo", "bar")): the longest prefix naming a module wins."""
        modules = self.modules.of(self.files[path].language)
        for cut in range(len(parts) - 1, 0, -1):
            module = modules.module(path, ".".join(parts[:cut]))
            if module is not None:
                return module, parts[cut:]
        return None

    # imports ----------------------------------------------------------------------
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

    def resolve_import(self, path: str, imp: Import, depth: int = 0) -> Target | None:
        """What an import binds: an entity, a module, _EXTERNAL (outside the repo) or None (not found)."""
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
                result = _EXTERNAL
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

    # members ----------------------------------------------------------------------
    def members(self, target: Target, name: str, language: str, depth: int = 0) -> list[Target]:
        if depth > _MAX_DEPTH or target is _EXTERNAL:
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
            inherited = self._class_members(base, name, language, depth + 1) if depth < _MAX_DEPTH else []
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
            return [target] if target is not None and target is not _EXTERNAL else []
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
                    reexported = self._declared_export(module.path, name, depth + 1) if depth < _MAX_DEPTH else []
                    if reexported:
                        return reexported
                elif export.imported is None:
                    return [module]
                else:
                    return self._declared_export(module.path, export.imported, depth + 1) if depth < _MAX_DEPTH else []
        return []


def _chosen(defined: list[Target], language: str) -> list[Target]:
    """What a name defined several times in one scope means: every definition (overloads), none (a language
    where which one is compiled is not known), or the last (a later definition replaces an earlier one)."""
    rules = rules_for(language)
    if rules.overloads:
        return list(defined)
    return [] if rules.repeats_unknown and len(defined) > 1 else defined[-1:]


def _add(found: dict[EdgeKey, Resolution], rel: Rel, src: str, dst: str, resolution: Resolution) -> None:
    """Keep an edge once, with the strongest way it was found."""
    if src == dst:
        return
    key = (rel, src, dst)
    found[key] = min(found.get(key, resolution), resolution, key=_STRENGTH.__getitem__)


def edges_of(files: dict[str, FileResolution]) -> list[GraphEdge]:
    """The snapshot's edges (each edge's source is in one file, so no two files give the same edge)."""
    return [GraphEdge(rel, src, dst, res) for f in files.values()
            for found in (f.inherits, f.links) for (rel, src, dst), res in found.items()]


def resolve_edges(files: dict[str, FileFacts]) -> list[GraphEdge]:
    return Resolver(files).edges()

