"""What each `spider mcp` tool does, over one open set of stores. Each method is a tool: its signature is the
tool's input schema, its docstring the description an agent reads, its return type the structured output.
They are synchronous; the SDK runs each call on a worker thread, and the Neo4j driver is thread-safe."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field
from spider import cypher
from spider.core.errors import InvalidInput, NotFound
from spider.core.schema import Rel
from spider.indexer.api import Stores
from spider.indexer.graph.cypher_gate import fill_scope, run_analyst_query, run_scoped_query
from spider.indexer.graph.snapshot_diff import diff_snapshots
from spider.query import render
from spider.query.api import localize
from spider.query.expand import parse_edges
from spider.query.mcp.answers import (
    Ambiguous,
    Change,
    Changes,
    Code,
    Hit,
    Localization,
    Neighbours,
    Outline,
    OutlineEntry,
    Related,
    Repositories,
    Repository,
    Rows,
    SnapshotInfo,
)
from spider.query.mcp.budget import DEFAULT_MAX_TOKENS, MIN_MAX_TOKENS, Dropped, bounded, elided, received_tokens
from spider.query.mcp.ids import CHOICES, Candidate, choose, ranked, simple_names
from spider.query.pipeline import GRAPH_METHODS, METHODS, SELECTORS
from spider.query.results import Method

LONGEST_ISSUE = 200_000  # characters: a long issue with its stack traces fits many times over
LONGEST_ID = 2_000

Repo = Annotated[str | None, Field(description="repository as indexed (repos() lists them); default: the only one",
                                   max_length=LONGEST_ID)]
Rev = Annotated[str | None, Field(description="snapshot: commit sha (prefix) or the revision it was indexed as; "
                                              "default: the newest complete one", max_length=LONGEST_ID)]
Id = Annotated[str, Field(description="a function id as localize returns it (path:Class.method), or a unique tail "
                                      "of one (Class.method, method)", min_length=1, max_length=LONGEST_ID)]
MaxTokens = Annotated[int | None, Field(description=f"answer budget in tokens (default {DEFAULT_MAX_TOKENS}); "
                                                    "whole items are dropped past it, and the answer says so",
                                        ge=MIN_MAX_TOKENS, le=200_000)]
RelType = Literal["CONTAINS", "INVOKES", "IMPORTS", "INHERITS"]
MethodName = Literal[METHODS]  # type: ignore[valid-type]
SelectorName = Literal[SELECTORS]  # type: ignore[valid-type]


class SpiderTools:
    """The tools, bound to the stores of one server; `max_tokens` is the budget of a call that names none."""

    def __init__(self, stores: Stores, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self.stores = stores
        self.max_tokens = max_tokens

    # the tools -----------------------------------------------------------------------------------------------
    def localize(
        self,
        issue: Annotated[str, Field(description="the issue's full text: title, body, stack traces, error messages",
                                    min_length=1, max_length=LONGEST_ISSUE)],
        repo: Repo = None,
        rev: Rev = None,
        k: Annotated[int, Field(description="how many functions to return", ge=1, le=100)] = 10,
        method: Annotated[MethodName, Field(description="spider (default: hybrid first stage + code-graph "
                                                        "expansion + selection); hybrid, der, bm25, spisr")] = "spider",
        selector: Annotated[SelectorName | None, Field(description="who admits graph neighbours: learned (no LLM), "
                                                                   "anthropic, openai, all, none; default: an LLM "
                                                                   "if the server has one, else learned")] = None,
        edges: Annotated[str | None, Field(description="relationship types to expand, with depths, e.g. "
                                                       "contains:4,invokes:2 (the default)", max_length=200)] = None,
        max_tokens: MaxTokens = None,
    ) -> Localization:
        """Call this first, before reading or editing code for a bug report, feature request or failing test: it
        names the K functions of the indexed repository most likely to need a change for the issue, ranked, each
        with its id, file, line span, score and why it is there (its rank in the hybrid dense + BM25 ranking, that
        the issue names it in a stack trace or by name, or the code-graph path from a seed and the selector's
        verdict). Pass the issue's whole text; stack traces and quoted error messages help. One call answers
        what a dozen searches would; then read the top results with `code` and widen with `neighbourhood`."""
        graph = Method(method) in GRAPH_METHODS
        answer = localize(self.stores, issue, repo=repo, rev=rev, method=method, k=k, selector=selector,
                          edges=parse_edges(edges) if graph and edges else None)
        hits = [Hit(rank=r.rank, id=r.id, path=r.path, start_line=r.start_line, end_line=r.end_line, score=r.score,
                    why=r.why(), origin=str(r.origin), first_stage_rank=r.first_stage_rank, fused_from=r.fused_from,
                    named=r.named, seed=r.seed, hops=r.hops, edge_path=r.edge_path,
                    verdict=None if r.verdict is None else str(r.verdict))
                for r in answer.results]
        found = Localization(
            repo=answer.repo, snapshot=answer.snapshot, method=str(answer.method), k=answer.k,
            first_stage=None if answer.first_stage is None else str(answer.first_stage),
            embedding_model=answer.model, selector=answer.selector, edges=answer.edges, results=hits,
            displaced=[item.id for item in answer.displaced], summary=answer.summary, notes=answer.notes,
            headline=render.headline(answer))
        return bounded(found, "results", self._budget(max_tokens), "results")

    def code(self, id: Id, repo: Repo = None, rev: Rev = None, max_tokens: MaxTokens = None) -> Code:
        """The source code of one function, with its file, line span, language and degree (how connected it is).
        Use it on the ids `localize` returns before editing: it is the snapshot's code, so compare it with the
        working tree if you have changed the file since. A name that several functions share answers with a
        short ranked list of their ids instead (`ambiguous`); ask again with the one you mean. Code longer than
        the budget is left out whole, never cut; read the file's line span instead."""
        repo, snapshot = self._scope(repo, rev)
        found = self._resolve(repo, snapshot, id, ("Function",))
        if isinstance(found, Ambiguous):
            return Code(repo=repo, snapshot=snapshot, id=None, ambiguous=found)
        info = self._analyst("functions_by_id", repo=repo, snapshot=snapshot, ids=[found.id], with_code=True)[0]
        answer = Code(repo=repo, snapshot=snapshot, id=found.id, path=info["path"], start_line=info["start_line"],
                      end_line=info["end_line"], language=info["language"], kind=info["kind"],
                      degree=info["degree"], code=info["code"])
        budget = self._budget(max_tokens)
        if received_tokens(answer) <= budget:
            return answer
        note = (f"the code (~{received_tokens(answer.code)} tokens as received) does not fit max_tokens={budget}: "
                f"read {answer.path} lines {answer.start_line}-{answer.end_line}, or ask with a larger max_tokens")
        return answer.model_copy(update={"code": None, "dropped": Dropped(items=1, kept=0, note=note)})

    def neighbourhood(
        self,
        id: Id,
        edges: Annotated[list[RelType] | None, Field(description="relationship types to walk, either direction "
                                                                 "(default: all four)", max_length=4)] = None,
        depth: Annotated[int, Field(description="most hops from the function (through files, classes and "
                                                "directories too)", ge=1, le=8)] = 2,
        repo: Repo = None,
        rev: Rev = None,
        max_tokens: MaxTokens = None,
    ) -> Neighbours:
        """The functions within `depth` hops of a function in the code graph, nearest first, with the
        relationships walked: CONTAINS (same class, file, directory), INVOKES (calls either way), IMPORTS,
        INHERITS. Use it after `localize` and `code` to find what else a fix touches: siblings in the class,
        helpers it calls, overrides. Ambiguous names answer with a ranked list of ids (`ambiguous`)."""
        types = sorted(set(edges or [rel.value for rel in Rel]))
        return self._related("neighbourhood", id, repo, rev, max_tokens, ("Function",),
                             f"neighbourhood ({','.join(types)}, depth {depth})", d=depth, types=types)

    def callers(self, id: Id, repo: Repo = None, rev: Rev = None, max_tokens: MaxTokens = None) -> Neighbours:
        """The functions and classes that call a function or class (INVOKES into it), each with its location
        and how the call was resolved (exact, import, heuristic). Use it to see who depends on what you are
        about to change. Ambiguous names answer with a ranked list of ids (`ambiguous`)."""
        return self._related("callers", id, repo, rev, max_tokens, ("Function", "Class"), "callers")

    def callees(self, id: Id, repo: Repo = None, rev: Rev = None, max_tokens: MaxTokens = None) -> Neighbours:
        """The functions and classes a function or class calls (INVOKES out of it), each with its location and
        how the call was resolved. Use it to follow a bug down into the helpers a function relies on.
        Ambiguous names answer with a ranked list of ids (`ambiguous`)."""
        return self._related("callees", id, repo, rev, max_tokens, ("Function", "Class"), "callees")

    def file_outline(
        self,
        path: Annotated[str, Field(description="the file's path in the repository (src/pkg/mod.py), or a unique "
                                               "tail of it (mod.py)", min_length=1, max_length=LONGEST_ID)],
        repo: Repo = None,
        rev: Rev = None,
        max_tokens: MaxTokens = None,
    ) -> Outline:
        """The classes and functions a file contains, in source order with their nesting depth, ids and line
        spans: a map of a file without reading it. Use it to find the id of a function you know by file."""
        repo, snapshot = self._scope(repo, rev)
        found = self._resolve(repo, snapshot, path, ("File",))
        if isinstance(found, Ambiguous):
            return Outline(repo=repo, snapshot=snapshot, path=None, entries=[], ambiguous=found)
        rows = self._analyst("file_outline", repo=repo, snapshot=snapshot, path=found.id)
        outline = Outline(repo=repo, snapshot=snapshot, path=found.id, entries=[OutlineEntry(**row) for row in rows])
        return bounded(outline, "entries", self._budget(max_tokens), "entries")

    def repos(self, max_tokens: MaxTokens = None) -> Repositories:
        """The repositories spider has indexed, the most recently indexed first, each with its snapshots (commit,
        revision name, when indexed, complete or not, size, embedding model), newest first. Use it to learn the
        repository names the other tools take, and whether the index is as fresh as the code you are looking at:
        a snapshot is one commit, and the tools read the newest complete one unless given `rev`."""
        snapshots = self.stores.graph.list_snapshots()
        latest: dict[str, str] = {}  # to the second: Neo4j's datetime text trims the fraction's trailing zeros
        for s in snapshots:
            latest[s.repo] = max(latest.get(s.repo, ""), (s.indexed_at or "")[:19])
        names = sorted(latest, key=lambda name: (latest[name], name), reverse=True)  # kept first under a budget
        listing = Repositories(repositories=[Repository(repo=name, snapshots=[
            SnapshotInfo(snapshot=s.snapshot, rev=s.rev, complete=s.complete, indexed_at=s.indexed_at,
                         nodes=s.node_count, embedding_model=s.embedding.model if s.embedding else None)
            for s in snapshots if s.repo == name]) for name in names])
        return bounded(listing, "repositories", self._budget(max_tokens), "repositories")

    def changed(
        self,
        repo: Annotated[str, Field(description="the repository", min_length=1, max_length=LONGEST_ID)],
        old: Annotated[str, Field(description="the older snapshot: revision or sha prefix", min_length=1,
                                  max_length=LONGEST_ID)],
        new: Annotated[str, Field(description="the newer snapshot: revision or sha prefix", min_length=1,
                                  max_length=LONGEST_ID)],
        max_tokens: MaxTokens = None,
    ) -> Changes:
        """What changed in a repository's code graph between two indexed snapshots: files, classes and functions
        added, removed or changed (code, lines), and relationships (calls, imports, containment) added, removed
        or re-resolved. Use it to review what a commit or branch did structurally, or to see whether the
        index's snapshot differs from the one you care about."""
        old_sha, new_sha, diff = diff_snapshots(self.stores.graph, repo, old, new)
        changes = [Change(kind=kind, key=list(key)) for kind, keys in vars(diff).items() for key in keys]
        answer = Changes(repo=repo, snapshot=new_sha, old=old_sha, counts=diff.counts(), changes=changes)
        return bounded(answer, "changes", self._budget(max_tokens), "changes")

    def cypher(
        self,
        statement: Annotated[str, Field(description="a read-only Cypher statement, or the name of one of spider's "
                                                    f"analyst queries ({', '.join(cypher.ANALYST)})",
                                        min_length=1, max_length=100_000)],
        params: Annotated[dict[str, Any] | None, Field(description="its parameters; $repo and $snapshot are "
                                                                   "filled when the statement uses them")] = None,
        repo: Repo = None,
        rev: Rev = None,
        max_tokens: MaxTokens = None,
    ) -> Rows:
        """Run one read-only Cypher statement over the code graph (nodes Directory, File, Class, Function with
        repo, id, name, path, start_line, end_line, code; relationships CONTAINS, INVOKES, IMPORTS, INHERITS;
        a snapshot's nodes are those with since <= seq < until of its Snapshot node, see the analyst queries).
        For questions the other tools do not answer (hotspots by fan-in, every subclass of X). The server plans
        it first and refuses anything but a read (writes, LOAD CSV, procedures, admin commands), then stops it
        after the configured timeout, exactly as `spider cypher` does."""
        text = cypher.load(statement) if statement in cypher.ANALYST else statement
        values = dict(params or {})
        if repo:
            values["repo"] = repo
        if rev:
            values["snapshot"] = rev
        keys, rows = run_scoped_query(self.stores.graph, text, values, self.stores.settings.cypher_timeout)
        records = json.loads(json.dumps([dict(zip(keys, row)) for row in rows], default=str))
        answer = Rows(repo=values.get("repo"), snapshot=values.get("snapshot"), columns=keys, rows=records)
        return bounded(answer, "rows", self._budget(max_tokens), "rows")

    # shared steps --------------------------------------------------------------------------------------------
    def _budget(self, max_tokens: int | None) -> int:
        return max_tokens or self.max_tokens

    def _scope(self, repo: str | None, rev: str | None) -> tuple[str, str]:
        """The repository (default: the only one indexed) and the sha of its snapshot `rev` (default: newest)."""
        scope: dict[str, Any] = {"repo": repo} if repo else {}
        if rev:
            scope["snapshot"] = rev
        fill_scope(self.stores.graph, scope)
        return scope["repo"], scope["snapshot"]

    def _analyst(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run one of spider's analyst queries through the gate and timeout every analyst statement passes."""
        text = cypher.load(name)
        keys, rows = run_analyst_query(self.stores.graph, text, {**cypher.defaults(text), **params},
                                       self.stores.settings.cypher_timeout)
        return [dict(zip(keys, row)) for row in rows]

    def _resolve(self, repo: str, snapshot: str, wanted: str, labels: tuple[str, ...]) -> Candidate | Ambiguous:
        """The node `wanted` means among those labelled `labels`; a ranked list when it means several."""
        rows = self._analyst("lookup", repo=repo, snapshot=snapshot, id=wanted, names=simple_names(wanted))
        kinds = " or ".join(label.lower() for label in labels)
        exact = next((row["label"] for row in rows if row["id"] == wanted), None)
        if exact is not None and exact not in labels:  # not a namesake of another kind: what was asked is wrong
            raise InvalidInput(f"{wanted!r} is a {exact.lower()}, not a {kinds} (file_outline lists what a file or "
                               "class contains)")
        candidates = [Candidate(**row) for row in rows if row["label"] in labels]
        chosen = choose(wanted, candidates)
        if chosen is not None:
            return chosen
        if not candidates:
            other = choose(wanted, [Candidate(**row) for row in rows])  # a node of another kind by that name
            if other is not None:
                raise InvalidInput(f"{wanted!r} names a {other.label.lower()} ({other.id}), not a {kinds} "
                                   "(file_outline lists what a file or class contains)")
            raise NotFound(f"no {kinds} {wanted!r} in {repo} @ {snapshot[:12]} (ids look like "
                           "path/to/file.py:Class.method; localize and file_outline name them)")
        listed = ranked(wanted, candidates)
        return Ambiguous(wanted=elided(wanted), candidates=listed[:CHOICES], more=max(0, len(listed) - CHOICES))

    def _related(self, query: str, wanted: str, repo: str | None, rev: str | None, max_tokens: int | None,
                 labels: tuple[str, ...], relation: str, **params: Any) -> Neighbours:
        """callers, callees, neighbourhood: the analyst query `query` from the node `wanted` means."""
        repo, snapshot = self._scope(repo, rev)
        found = self._resolve(repo, snapshot, wanted, labels)
        if isinstance(found, Ambiguous):
            return Neighbours(repo=repo, snapshot=snapshot, id=None, relation=relation, related=[], ambiguous=found)
        rows = self._analyst(query, repo=repo, snapshot=snapshot, id=found.id, **params)
        column = {"callers": "caller", "callees": "callee"}.get(query, "id")  # the column naming the related node
        related = [Related(id=row[column], path=row["path"],
                           start_line=row["start_line"], end_line=row["end_line"], label=row.get("label"),
                           hops=row.get("hops"), edge_path=row.get("edge_path"), resolution=row.get("resolution"))
                   for row in rows]
        answer = Neighbours(repo=repo, snapshot=snapshot, id=found.id, relation=relation, related=related)
        return bounded(answer, "related", self._budget(max_tokens), "related functions")


TOOLS = ("localize", "code", "neighbourhood", "callers", "callees", "file_outline", "repos", "changed", "cypher")
