"""A Snapshot node as spider reads it back: one repository's commit, its state and what indexing it recorded."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from spider.core.records import EmbedStats


@dataclass(frozen=True)
class Snapshot:
    repo: str
    snapshot: str  # the commit sha
    rev: str | None  # the revision name it was indexed as (`main`, `v2.1`, a sha)
    complete: bool  # only complete snapshots are visible to queries
    seq: int | None  # its number in the repository's versioned graph; None: written before versioning
    writer: str | None  # the token of the write that made it (what its cached digest is tagged with)
    indexed_at: str | None
    stats: dict[str, Any] | None  # `IndexReport.stats()`, once complete

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Snapshot:
        """A row of cypher/internal/snapshots.cypher (or snapshot_state.cypher): stats is a JSON string there."""
        stats = row["stats"]
        return cls(row["repo"], row["snapshot"], row["rev"], row["complete"], row["seq"], row["writer"],
                   row["indexed_at"], json.loads(stats) if stats else None)

    def to_json(self) -> dict[str, Any]:
        """The row as `spider snapshots list --json` prints it."""
        return asdict(self)

    @property
    def versioned(self) -> bool:
        """Whether this spider can read its graph (it was written with versions)."""
        return self.seq is not None

    @property
    def embedding(self) -> EmbedStats | None:
        """Which model embedded the snapshot and into which vector stores; None until complete, or when indexed
        with --no-embed."""
        recorded = (self.stats or {}).get("embedding")
        return EmbedStats.from_json(recorded) if recorded else None

    @property
    def graph_format(self) -> str | None:
        """`indexer.pipeline.graph_format.graph_format()` of the spider that wrote it (None: not recorded)."""
        value = (self.stats or {}).get("graph_format")
        return value if isinstance(value, str) else None

    @property
    def node_count(self) -> int:
        nodes: dict[str, int] = (self.stats or {}).get("nodes", {})
        return sum(nodes.values())
