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

`Resolver` is built in layers, each calling only those beneath it: `symbols.SymbolTables` (what the snapshot
defines, and the record of reads), `members.MemberWalker` (members of modules and classes, imports),
`scopes.ScopeLookup` (a name looked up from a scope) and, here, the passes over each file and `resolve`.
"""

from __future__ import annotations

from dataclasses import dataclass

from spider.core.records import GraphEdge, entity_id
from spider.core.schema import Label, Rel, Resolution
from spider.indexer.languages import rules_for
from spider.indexer.languages.rules import LanguageRules
from spider.indexer.parse.facts import EXPR, SELF, SUPER, FileFacts, RefKind
from spider.indexer.resolve.modules import Module
from spider.indexer.resolve.scopes import ScopeLookup
from spider.indexer.resolve.symbols import Read as Read  # what `FileResolution`s record (`incremental` reads them)
from spider.indexer.resolve.symbols import Target

_STRENGTH = {Resolution.EXACT: 0, Resolution.IMPORT: 1, Resolution.HEURISTIC: 2}

EdgeKey = tuple[Rel, str, str]
Head = tuple[list[Target], Resolution, tuple[str, ...]]  # what a name's first part names, how, and the parts left


@dataclass(frozen=True)
class FileResolution:
    """One file's resolved edges and what resolving them read: its inheritance pass (INHERITS edges and the bases
    of its classes), then its references (IMPORTS and INVOKES)."""

    inherits: dict[EdgeKey, Resolution]
    bases: dict[str, list[str]]
    inherit_reads: frozenset
    links: dict[EdgeKey, Resolution]
    reads: frozenset


class Resolver(ScopeLookup):
    """Resolves the snapshot's references: each file's inheritance pass, then its pass over imports and calls."""

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
        """Entity ids a dotted name used inside `scope` of `path` refers to, each with how it was found: its first
        part looked up in the scopes (`_head_targets`), the others walked as members (`_walk`), and of several
        overloads those whose parameters fit the call (`_fit_arity`)."""
        language = self.files[path].language
        rules = rules_for(language)
        if rules.nested_names:
            return [(eid, Resolution.HEURISTIC if inferred else how)
                    for eid, how in self._nested(path, scope, parts, classes_only, arity)]
        if len(parts) > 1:
            assigned = self._assigned(path, scope, parts, rules, inferred)
            if assigned is not None:
                return assigned
        head = self._head_targets(path, scope, parts, rules)
        if head is None:
            return self._unknown_head(language, parts, inferred)
        targets, resolution, rest = head
        if not targets:
            return []  # imported from outside the repo (or `super` without bases)
        if rest:
            walked = self._walk(targets, rest, language)
            if walked is None:
                return []  # `Trait::m(x)`: which `m` runs is `x`'s type's choice
            if not walked and parts[0] == SELF and len(rest) > 1:  # self.attr.m() with attr's type unknown
                return self._guess(language, (SELF, *rest[-1:]), inferred=False)
            targets = walked
        if inferred:
            resolution = Resolution.HEURISTIC
        if len(targets) > 1 and arity is not None:
            targets = self._fit_arity(targets, arity)
        return self._entities(targets, resolution, rules, language, classes_only)

    def _assigned(self, path: str, scope: str, parts: tuple[str, ...], rules: LanguageRules, inferred: bool
                  ) -> list[tuple[str, Resolution]] | None:
        """JS `exports.foo()`, `proto.format()`: the entity named by its assignment target, if one is."""
        named = self._named_by_target(path, scope, ".".join(parts))
        if not named:
            return None
        if rules.repeats_unknown and f"{named}#2" in self.entities:
            return []  # defined twice in the file: which one is compiled is not known
        if (parent := self.entities[named][1].parent) and self._dispatching(entity_id(path, parent)):
            return []  # `Trait::m(x)`: which `m` runs is `x`'s type's choice
        return [(named, Resolution.HEURISTIC if inferred else Resolution.EXACT)]

    def _head_targets(self, path: str, scope: str, parts: tuple[str, ...], rules: LanguageRules) -> Head | None:
        """What the first part names (nothing, where it is imported from outside the repo), how that was found, and
        the parts left to walk; None where no scope knows it."""
        head, rest = parts[0], parts[1:]
        if head in (SELF, SUPER):
            cls = self._enclosing_class(path, scope)
            if cls is None:
                return None
            return ([cls] if head == SELF else list(self._bases_of(cls))), Resolution.EXACT, rest
        found = self.lookup(path, scope, head)
        if found is not None:
            return found[0], found[1], rest
        if not rest and rules.prefix_scope and (named := self._named_by_target(path, scope, head)):
            return [named], Resolution.EXACT, rest
        if rules.qualified_names and (qualified := self._qualified(path, parts)) is not None:
            return [qualified[0]], Resolution.IMPORT, qualified[1]
        return None

    def _unknown_head(self, language: str, parts: tuple[str, ...], inferred: bool) -> list[tuple[str, Resolution]]:
        """A name whose first part no scope knows: a method called on a receiver no scope knows is guessed at."""
        if parts[0] == SELF:  # JS `this.m()` in a function stored on a prototype or object
            return self._guess(language, (EXPR, *parts[1:][-1:]), inferred=False)
        if parts[0] == SUPER:
            return []
        return self._guess(language, parts, inferred)

    def _walk(self, targets: list[Target], rest: tuple[str, ...], language: str) -> list[Target] | None:
        """The members named by `rest` of `targets`, part by part ([] where a part is not found); None where the
        walk stops at a class that dispatches."""
        for part in rest:
            for target in targets:
                if self._dispatching(target):
                    return None
            targets = [m for t in targets for m in self.members(t, part, language)]
            if not targets:
                return targets
        return targets

    def _fit_arity(self, targets: list[Target], arity: int) -> list[Target]:
        """Overloads: those whose parameter count fits the call (all of them where none does)."""
        fitting: list[Target] = [
            t for t in targets if isinstance(t, str) and self.entities[t][1].params in (arity, None)
        ]
        return fitting or targets

    def _entities(self, targets: list[Target], resolution: Resolution, rules: LanguageRules, language: str,
                  classes_only: bool) -> list[tuple[str, Resolution]]:
        """The entities among `targets`, each with `resolution`."""
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

    def _dispatching(self, target: Target) -> bool:
        """Whether `target` is a class whose members, named through it, run the implementing type's own."""
        if not isinstance(target, str) or target not in self.entities:
            return False
        path, entity = self.entities[target]
        self._read(path)
        return entity.kind in rules_for(self.files[path].language).dispatching

    def _guess(self, language: str, parts: tuple[str, ...], inferred: bool) -> list[tuple[str, Resolution]]:
        """`x.m()` on a receiver no scope knows: link only when exactly one method in the repo is called m."""
        receiver = parts[0]
        if len(parts) != 2 or inferred or receiver[:1].isupper() or not rules_for(language).guess_methods:
            return []  # bare unknown names are builtins; capitalised receivers are external classes
        self._read(("method", language, parts[1]))
        candidates = self.methods_by_name.get((language, parts[1]), [])
        return [(candidates[0], Resolution.HEURISTIC)] if len(candidates) == 1 else []


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
