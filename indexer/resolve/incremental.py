"""Resolve a commit from its base's resolution: only the files whose reads the commit changed are resolved again.

Every file's resolution records what it read (`indexer.resolve.references`): files, repo-wide method names, other files'
bases. A commit changes the files whose blobs differ (added, removed, edited) and the method names those files
define, before or after; a file is resolved again when it changed or read something that changed, and its
inheritance pass also when it read the bases of a file whose inheritance pass runs again. Every import lookup
depends on the module layout (which files exist in which language, in which package): when that changes, everything
is resolved again. The result is the full resolution's, edge for edge (tested against it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path

from spider.core.cache_files import load_tagged, save_tagged
from spider.core.records import GraphEdge
from spider.core.schema import Label
from spider.indexer.parse.facts import FileFacts
from spider.indexer.resolve.references import FileResolution, Read, Resolver, edges_of

STATE_FILE = "resolution.pickle"
STATE_VERSION = 2  # of what is pickled: a state saved by another version is not used


def layout_of(files: dict[str, FileFacts]) -> str:
    """What the module maps are built from: each file's path, language, package declaration and the module a
    manifest names (None where the language has none)."""
    rows = sorted((path, f.language, f.package, f.module) for path, f in files.items())
    return sha256(repr(rows).encode()).hexdigest()


@dataclass
class ResolutionState:
    """A snapshot's resolution, kept to resolve later commits from."""

    graph_format: str
    layout: str
    blobs: dict[str, str]  # path -> blob of every file resolved
    files: dict[str, FileResolution]
    methods: dict[str, frozenset[Read]]  # path -> the ("method", language, name) keys its functions define

    def save(self, path: Path) -> None:
        save_tagged(path, (STATE_VERSION, self.graph_format), self)

    @staticmethod
    def load(path: Path, graph_format: str) -> "ResolutionState | None":
        """The saved state, if there is one made by this graph format."""
        return load_tagged(path, (STATE_VERSION, graph_format))


@dataclass
class ResolutionRun:
    """How a snapshot was resolved: how many files' passes ran again (all of them without a usable base)."""

    files: int = 0
    inherits_resolved: int = 0
    links_resolved: int = 0
    reason: str = "no base resolution"  # why everything was resolved; empty when the base's was used
    state: ResolutionState | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, object]:
        return {"files": self.files, "inheritance_resolved": self.inherits_resolved,
                "references_resolved": self.links_resolved, "full_because": self.reason or None}


def resolve_from(
    files: dict[str, FileFacts], blobs: dict[str, str], graph_format: str, earlier: ResolutionState | None,
) -> tuple[list[GraphEdge], ResolutionRun]:
    """The edges of the snapshot whose files are `files` (with their `blobs`), resolved from `earlier` when it is
    usable."""
    resolver = Resolver(files)
    run = ResolutionRun(files=len(files))
    layout = layout_of(files)
    methods = {path: _methods(f) for path, f in files.items()}
    if earlier is not None and earlier.layout == layout:
        redo = _to_redo(files, blobs, methods, earlier)
        run.reason = ""
    else:
        redo = set(files), set(files)
        if earlier is not None:
            run.reason = "the module layout changed"
    results = resolver.resolve_files(earlier.files if earlier else {}, *redo)
    run.inherits_resolved, run.links_resolved = len(redo[0]), len(redo[1])
    run.state = ResolutionState(graph_format, layout, dict(blobs), results, methods)
    return edges_of(results), run


def _methods(facts: FileFacts) -> frozenset[Read]:
    """What a file adds to the repo-wide method names (a superset: every function's name)."""
    return frozenset(("method", facts.language, e.name) for e in facts.entities if e.label == Label.FUNCTION)


def _to_redo(files: dict[str, FileFacts], blobs: dict[str, str], methods: dict[str, frozenset[Read]],
             earlier: ResolutionState) -> tuple[set[str], set[str]]:
    """The files whose inheritance pass and whose reference pass must run again."""
    changed = {p for p in blobs.keys() | earlier.blobs.keys() if blobs.get(p) != earlier.blobs.get(p)}
    touched: set[Read] = set(changed)
    for path in changed:  # the method names a changed file defined before or defines now
        touched.update(earlier.methods.get(path, ()))
        touched.update(methods.get(path, ()))
    inherits = {p for p in files if p in changed}
    touched.update(("bases", p) for p in inherits)
    grown = True
    while grown:  # a file whose bases may change makes the files that read them redo theirs
        grown = False
        for path in files:
            if path not in inherits and not earlier.files[path].inherit_reads.isdisjoint(touched):
                inherits.add(path)
                touched.add(("bases", path))
                grown = True
    links = {p for p in files if p in changed or not earlier.files[p].reads.isdisjoint(touched)}
    return inherits, links
