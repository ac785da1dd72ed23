"""The structured answers of the `spider mcp` tools: what an agent reads, each field named for it. Every answer
names the snapshot it read and carries `dropped` when the token budget left items out (`budget.py`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from spider.query.mcp.budget import Dropped
from spider.query.mcp.ids import Candidate


class Scoped(BaseModel):
    repo: str
    snapshot: str = Field(description="the commit sha of the snapshot read")
    dropped: Dropped | None = Field(default=None, description="what the token budget left out, if anything")


class Hit(BaseModel):
    """One function of a localize answer and why it is there."""

    rank: int
    id: str = Field(description="stable id, path:Qualified.name; what code, callers, neighbourhood take")
    path: str
    start_line: int | None
    end_line: int | None
    score: float
    why: str = Field(description="first-stage rank, seed / admitted, or the graph path and verdict, in words")
    origin: str = Field(description="dense, bm25, hybrid, mentioned (named in the issue) or graph")
    first_stage_rank: int | None = Field(description="place in the first-stage ranking")
    fused_from: dict[str, int] | None = Field(description="hybrid: places in the dense and bm25 rankings")
    named: str | None = Field(description="how the issue names it (a stack-trace frame, its name, ...)")
    seed: str | None = Field(description="graph results: the seed it was reached from")
    hops: int | None
    edge_path: list[str] | None = Field(description="graph results: relationships walked, e.g. <-CONTAINS-")
    verdict: str | None = Field(description="seed, admitted or rejected; null when the selector did not see it")


class Localization(Scoped):
    method: str
    k: int
    first_stage: str | None
    embedding_model: str | None
    selector: str | None
    edges: str | None
    results: list[Hit]
    displaced: list[str] = Field(description="ids the exchange pushed out of the first-stage top k")
    summary: dict[str, int] = Field(description="seeds, proposals, offered, admitted, displaced, tokens_in/out")
    notes: list[str]
    headline: str = Field(description="the one-line summary spider-query prints")


class Ambiguous(BaseModel):
    """An id that names several nodes: pick one and ask again with its id."""

    wanted: str
    candidates: list[Candidate] = Field(description="closest first: exact id, qualified name, id tail, name")
    more: int = Field(description="further candidates not listed")


class Code(Scoped):
    id: str | None = Field(description="the function read; null when the id was ambiguous")
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    language: str | None = None
    kind: str | None = None
    degree: int | None = Field(default=None, description="relationships of the function in the snapshot, any type")
    code: str | None = Field(default=None, description="its source; null when longer than the budget, or ambiguous")
    ambiguous: Ambiguous | None = None


class Related(BaseModel):
    """A function or class reached from the one asked about."""

    id: str
    path: str | None
    start_line: int | None
    end_line: int | None
    label: str | None = None
    hops: int | None = None
    edge_path: list[str] | None = None
    resolution: str | None = Field(default=None, description="how the call was resolved: exact, import, heuristic")


class Neighbours(Scoped):
    id: str | None = Field(description="the node asked about; null when the id was ambiguous")
    relation: str = Field(description="callers, callees or neighbourhood (with its types and depth)")
    related: list[Related]
    ambiguous: Ambiguous | None = None


class OutlineEntry(BaseModel):
    id: str
    label: str
    kind: str | None
    depth: int = Field(description="1: top level of the file; 2: a method of a top-level class, ...")
    start_line: int | None
    end_line: int | None


class Outline(Scoped):
    path: str | None = Field(description="the file outlined; null when the path was ambiguous")
    entries: list[OutlineEntry]
    ambiguous: Ambiguous | None = None


class SnapshotInfo(BaseModel):
    snapshot: str
    rev: str | None
    complete: bool = Field(description="only complete snapshots answer queries")
    indexed_at: str | None
    nodes: int
    embedding_model: str | None = Field(description="the model its vectors were made with; null: not embedded")


class Repository(BaseModel):
    repo: str
    snapshots: list[SnapshotInfo] = Field(description="newest first")


class Repositories(BaseModel):
    repositories: list[Repository]
    dropped: Dropped | None = None


class Change(BaseModel):
    kind: str = Field(description="nodes_added, nodes_removed, nodes_changed, edges_added, edges_removed, ...")
    key: list[str] = Field(description="nodes: [label, id]; relationships: [source id, type, target id]")


class Changes(Scoped):
    old: str = Field(description="the older snapshot's commit sha")
    counts: dict[str, int]
    changes: list[Change]


class Rows(BaseModel):
    repo: str | None = Field(description="what $repo was filled with, if the statement uses it")
    snapshot: str | None = Field(description="what $snapshot was filled with, if the statement uses it")
    columns: list[str]
    rows: list[dict[str, Any]]
    dropped: Dropped | None = None
