"""BM25 over the same function texts the embeddings see (the paper's SR baseline), persisted per snapshot.

Built the first time a snapshot is queried and kept in the snapshot's folder under SPIDER_HOME/snapshots/
(`GraphStore.snapshot_cache`), so a query loads it instead of re-tokenising the repository.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from spider.core.cache_files import read_while_unchanged
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import function_text
from spider.query.retrieve.tests_policy import which_are_tests
from spider.query.retrieve.tokenize import code_tokens

if TYPE_CHECKING:
    import bm25s  # imported where an index is built or loaded: it brings scipy (0.1 s to import) into every spider process

_IDS = "node_ids.json"


@dataclass(eq=False)  # one loaded index is one snapshot's: compared and hashed by identity
class Bm25Index:
    node_ids: list[str]
    model: bm25s.BM25

    @classmethod
    def build(cls, node_ids: list[str], texts: list[str]) -> "Bm25Index":
        import bm25s

        model = bm25s.BM25()
        model.index([code_tokens(t) for t in texts], show_progress=False)
        return cls(list(node_ids), model)

    def save(self, directory: Path) -> None:
        """Write to a sibling temp dir, then rename: a reader never sees half an index."""
        directory.parent.mkdir(parents=True, exist_ok=True)
        staging = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        self.model.save(str(staging), show_progress=False)
        (staging / _IDS).write_text(json.dumps(self.node_ids))
        shutil.rmtree(directory, ignore_errors=True)
        staging.rename(directory)

    @classmethod
    def load(cls, directory: Path) -> "Bm25Index | None":
        if not (directory / _IDS).is_file():
            return None
        import bm25s

        model = bm25s.BM25.load(str(directory), show_progress=False)
        return cls(json.loads((directory / _IDS).read_text()), model)

    def search(self, text: str, k: int, leave_out: frozenset[str] = frozenset()) -> list[tuple[str, float]]:
        """Top-k (node id, score) of the functions not in `leave_out`, best first; ties broken by node id;
        zero-score functions are left out."""
        tokens = code_tokens(text)
        if not tokens or not self.node_ids:
            return []
        scores = self.model.get_scores(tokens)
        found: list[tuple[str, float]] = []
        for i in np.lexsort((self.id_order, -scores)):
            if len(found) == k or scores[i] <= 0:
                break
            if self.node_ids[i] not in leave_out:
                found.append((self.node_ids[i], float(scores[i])))
        return found

    @cached_property
    def id_order(self) -> np.ndarray:
        """Each function's place in node id order: ties are broken by it, without sorting strings per query."""
        order = np.empty(len(self.node_ids), dtype=np.int64)
        order[np.argsort(np.array(self.node_ids))] = np.arange(len(self.node_ids))
        return order

    def relative_scores(self, text: str, ids: list[str]) -> dict[str, float]:
        """Each id's score over the best score in the whole index (1.0: the best lexical match in the snapshot)."""
        tokens = code_tokens(text)
        if not tokens or not self.node_ids:
            return dict.fromkeys(ids, 0.0)
        scores = self.model.get_scores(tokens)
        best = float(scores.max()) or 1.0
        position = self.position
        return {i: float(scores[position[i]]) / best if i in position else 0.0 for i in ids}

    def holding(self, text: str) -> list[str]:
        """The functions whose text has every token of `text` (none: every function): all that may quote it."""
        tokens = set(code_tokens(text))
        if not tokens:
            return list(self.node_ids)
        if any(token not in self.model.vocab_dict for token in tokens):
            return []
        held = np.ones(len(self.node_ids), dtype=bool)
        for token in tokens:
            held &= self.model.get_scores_from_ids([self.model.vocab_dict[token]]) > 0
        return [self.node_ids[i] for i in np.flatnonzero(held)]

    @cached_property
    def position(self) -> dict[str, int]:
        return {node_id: index for index, node_id in enumerate(self.node_ids)}

    @cached_property
    def test_ids(self) -> frozenset[str]:
        """The snapshot's test functions (each language's definition), found once per loaded index."""
        return which_are_tests(self.node_ids)


def snapshot_index(store: GraphStore, repo: str, snapshot: str) -> Bm25Index:
    """The snapshot's BM25 index: kept from an earlier query, loaded from disk, or built from the graph's function
    code and saved."""
    directory = store.snapshot_cache(repo, snapshot) / "bm25"
    index = read_while_unchanged(directory / _IDS, lambda: Bm25Index.load(directory))
    if index is None:
        ids, codes = store.function_texts(repo, snapshot)
        index = Bm25Index.build(ids, [function_text(node_id, code) for node_id, code in zip(ids, codes)])
        index.save(directory)
    return index
