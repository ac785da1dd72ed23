"""What a query returns, and how it is printed: a table for people, JSON (same fields) for agents."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from indexer.graph_store import GraphStore
import cypher


@dataclass
class Result:
    rank: int
    id: str
    score: float
    path: str = ""
    start_line: int | None = None
    end_line: int | None = None
    origin: str = "dense"  # dense | bm25 (later: graph)

    @property
    def lines(self) -> str:
        return f"{self.start_line}-{self.end_line}" if self.start_line else ""


@dataclass
class Answer:
    repo: str
    snapshot: str
    method: str
    k: int
    results: list[Result]
    seconds: dict[str, float] = field(default_factory=dict)
    model: str | None = None

    def to_json(self) -> str:
        payload = asdict(self)
        for row, result in zip(payload["results"], self.results):
            row["lines"] = result.lines
        return json.dumps(payload, indent=2)

    def to_table(self) -> str:
        rows = [[str(r.rank), f"{r.score:.4f}", r.id, f"{r.path}:{r.lines}"] for r in self.results]
        header = ["rank", "score", "id", "path:lines"]
        widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(header)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
        timing = ", ".join(f"{stage} {seconds:.3f}s" for stage, seconds in self.seconds.items())
        model = f", model {self.model}" if self.model else ""
        lines.append(f"{self.method} top-{self.k} of {self.repo} @ {self.snapshot[:12]}{model}: {timing}")
        return "\n".join(lines)


def ranked(store: GraphStore, repo: str, snapshot: str, scored: list[tuple[str, float]], origin: str) -> list[Result]:
    """Number the (id, score) pairs and fill in where each function is, from the graph."""
    ids = [node_id for node_id, _ in scored]
    keys, rows = store.read(cypher.load("functions_by_id"), {"repo": repo, "snapshot": snapshot, "ids": ids})
    where = {row[0]: dict(zip(keys, row)) for row in rows}
    results = []
    for rank, (node_id, score) in enumerate(scored, start=1):
        info = where.get(node_id, {})
        results.append(Result(rank, node_id, round(score, 6), info.get("path", ""), info.get("start_line"),
                              info.get("end_line"), origin))
    return results
