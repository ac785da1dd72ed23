"""What indexing one commit did: the report `index_repository` returns, its stored part (`IndexReport.stats`,
kept on the Snapshot node) and the JSON `spider index --json` prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from spider.core.records import EmbedStats
from spider.indexer.pipeline.graph_format import graph_format


@dataclass(frozen=True)
class IncrementalRun:
    """An index run against a base snapshot: files unchanged since it were not parsed again."""

    base: str  # the base snapshot's commit sha
    files_changed: int
    files_reparsed: int  # read by the parser (the others came from the parse cache)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class VersionsWritten:
    """The snapshot's write over its repository's head (`indexer.graph.versions`)."""

    seq: int  # the snapshot's number
    writer: str  # the write's token
    head: str | None  # the snapshot written over (None: the repository had none)
    nodes_closed: int
    nodes_created: int
    relationships_closed: int
    relationships_created: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IndexReport:
    repo: str
    snapshot: str
    rev: str
    already_indexed: bool = False
    files_parsed: int = 0
    other_files: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: Counter[str] = field(default_factory=Counter)
    nodes: Counter[str] = field(default_factory=Counter)
    relationships: Counter[str] = field(default_factory=Counter)
    resolutions: Counter[str] = field(default_factory=Counter)
    embedding: EmbedStats | None = None  # None when indexed with --no-embed
    seconds: dict[str, float] = field(default_factory=dict)
    incremental: IncrementalRun | None = None  # None: every file parsed
    versions: VersionsWritten | None = None
    resolution: dict[str, Any] | None = None  # ResolutionRun.to_json(): how many files were resolved again
    # Per file, not kept with the snapshot (tens of thousands of vendored files): None when already indexed
    skipped_files: list[dict[str, str]] | None = None  # [{path, reason}] of the files counted in `skipped`
    warned_files: list[dict[str, Any]] | None = None  # [{path, warnings}] of the files counted in `warnings`
    notes: list[str] = field(default_factory=list)  # what the run had to repair, for whoever ran it: not kept

    def stats(self) -> dict[str, Any]:
        """What is stored on the Snapshot node (JSON)."""
        return {
            "files_parsed": self.files_parsed, "other_files": self.other_files,
            "skipped": dict(self.skipped), "warnings": dict(self.warnings),
            "nodes": dict(self.nodes), "relationships": dict(self.relationships),
            "resolutions": dict(self.resolutions), "embedding": _json(self.embedding), "seconds": self.seconds,
            "incremental": _json(self.incremental), "versions": _json(self.versions), "resolution": self.resolution,
            "graph_format": graph_format(),
        }

    def to_json(self) -> dict[str, Any]:
        """What `spider index --json` prints: the stored stats, and the files skipped or parsed with warnings."""
        return {"repo": self.repo, "snapshot": self.snapshot, "rev": self.rev, "already_indexed": self.already_indexed,
                **self.stats(), "skipped_files": self.skipped_files, "warned_files": self.warned_files}


def _json(part: EmbedStats | IncrementalRun | VersionsWritten | None) -> dict[str, Any] | None:
    return None if part is None else part.to_json()
