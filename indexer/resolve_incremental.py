"""Resolve a commit from its base's resolution: only the files whose reads the commit changed are resolved again.

Every file's resolution records what it read (`indexer.resolve`): files, repo-wide method names, other files'
bases. A commit changes the files whose blobs differ (added, removed, edited) and the method names those files
define, before or after; a file is resolved again when it changed or read something that changed, and its
inheritance pass also when it read the bases of a file whose inheritance pass runs again. Every import lookup
depends on the module layout (which files exist in which language, Java packages): when that changes, everything
is resolved again. The result is the full resolution's, edge for edge (tested against it).
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import Callable

from indexer.graph_schema import Label
from indexer.model import FileFacts, GraphEdge
from indexer.resolve import FileResolution, Read, Resolver, edges_of

STATE_FILE = "resolution.pickle"


def layout_of(files: dict[str, FileFacts]) -> str:
    """What the module index is built from: each file's path, language and Java package."""
    rows = sorted((path, f.language, f.package if f.language == "java" else None) for path, f in files.items())
    return sha256(repr(rows).encode()).hexdigest()


@dataclass
class ResolutionState:
    """A snapshot's resolution, kept to resolve later commits from."""

    graph_format: str
    layout: str
    blobs: dict[str, str]  # path -> blob of every file resolved
    files: dict[str, FileResolution]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL))
        partial.replace(path)

    @staticmethod
    def load(path: Path, graph_format: str) -> "ResolutionState | None":
        """The saved state, if there is one made by this graph format."""
        try:
            state = pickle.loads(path.read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
            return None
        return state if isinstance(state, ResolutionState) and state.graph_format == graph_format else None


@dataclass
class ResolutionRun:
    """How a snapshot was resolved: how many files' passes ran again (all of them without a usable base)."""

    files: int = 0
    inherits_resolved: int = 0
    links_resolved: int = 0
    reason: str = "no base resolution"  # why everything was resolved; empty when the base's was used
    state: ResolutionState | None = field(default=None, repr=False)

    def to_json(self) -> dict:
        return {"files": self.files, "inheritance_resolved": self.inherits_resolved,
                "references_resolved": self.links_resolved, "full_because": self.reason or None}


def resolve_from(
    files: dict[str, FileFacts], blobs: dict[str, str], graph_format: str, earlier: ResolutionState | None,
    earlier_facts: Callable[[dict[str, str]], dict[str, FileFacts]],
) -> tuple[list[GraphEdge], ResolutionRun]:
    """The edges of the snapshot whose files are `files` (with their `blobs`), resolved from `earlier` when it is
    usable. `earlier_facts(blobs)` gives the facts of files as the earlier snapshot had them (by path -> blob),
    leaving out those it does not know."""
    resolver = Resolver(files)
    run = ResolutionRun(files=len(files))
    layout = layout_of(files)
    redo: tuple[set[str], set[str]] | None = None
    if earlier is not None:
        if earlier.layout != layout:
            run.reason = "the module layout changed"
        else:
            redo = _to_redo(files, blobs, earlier, earlier_facts)
            if redo is None:
                run.reason = "the base's facts of a changed file are not cached"
    if redo is None:
        redo = set(files), set(files)
    else:
        run.reason = ""
    results = resolver.resolve_files(earlier.files if earlier else {}, *redo)
    run.inherits_resolved, run.links_resolved = len(redo[0]), len(redo[1])
    run.state = ResolutionState(graph_format, layout, dict(blobs), results)
    return edges_of(results), run


def _to_redo(
    files: dict[str, FileFacts], blobs: dict[str, str], earlier: ResolutionState,
    earlier_facts: Callable[[dict[str, str]], dict[str, FileFacts]],
) -> tuple[set[str], set[str]] | None:
    """The files whose inheritance pass and whose reference pass must run again; None when a changed file's
    earlier facts are unknown (what it defined before cannot be told)."""
    changed = {p for p in blobs.keys() | earlier.blobs.keys() if blobs.get(p) != earlier.blobs.get(p)}
    before = {p: earlier.blobs[p] for p in changed if p in earlier.blobs}
    old_facts = earlier_facts(before)
    if len(old_facts) < len(before):
        return None
    touched: set[Read] = set(changed)
    for facts in (*old_facts.values(), *(files[p] for p in changed if p in files)):
        touched.update(("method", facts.language, e.name) for e in facts.entities if e.label == Label.FUNCTION)
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
