"""What embedding a snapshot did, as its Snapshot node records it: which model embedded it, into which vector
stores, and how much was embedded or reused. A record of its own, free of the embedding machinery, so the graph
side can read it back."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class EmbedStats:
    model: str
    dim: int
    functions: int = 0
    embedded: int = 0
    reused: int = 0
    seconds: float = 0.0
    index_seconds: float = 0.0
    # `VectorStore.store_id`s holding every vector; None: embedded before spider recorded the stores
    stores: tuple[str, ...] | None = None
    windows: int = 1  # windows of code embedded per function at most (1: before spider embedded more than one)
    later_windows: int = 0  # vectors embedded for windows after a function's first

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EmbedStats:
        stores = data.get("stores")
        return cls(**{**data, "stores": None if stores is None else tuple(stores)})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.stores is None:
            del data["stores"]
        else:
            data["stores"] = list(self.stores)
        return data

    def recorded_in(self, store_id: str) -> bool:
        """Whether the store `store_id` holds the snapshot's vectors. One embedded before stores were recorded
        counts as embedded in any, as spider assumed then."""
        return self.stores is None or store_id in self.stores
