"""Neo4j access for the indexer and the query layer: schema, batched writes, snapshots, read-only queries.

Everything is scoped by (repo, snapshot). A snapshot's nodes are written in batches, then its Snapshot node is
marked complete in a last transaction: readers only trust complete snapshots.
"""

from __future__ import annotations

import json
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import Any, Callable, Iterable, Iterator

import neo4j
from neo4j.exceptions import AuthError, ClientError, Neo4jError, ServiceUnavailable

import cypher
from indexer.errors import SpiderError
from indexer.graph_diff import EdgeKey, VersionDiff
from indexer.graph_schema import Label, Rel
from indexer.model import GraphEdge, GraphNode
from indexer.settings import Neo4jSettings

BATCH = 2000
WRITERS = 2  # concurrent write sessions
OPEN = 1 << 62  # `until` of a version the head snapshot holds (versioned graph)


def _chunks(rows: list[dict], size: int) -> Iterator[list[dict]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def _node_props(node: GraphNode) -> dict[str, Any]:
    props = {
        "name": node.name, "path": node.path, "language": node.language, "kind": node.kind,
        "start_line": node.start_line, "end_line": node.end_line, "code": node.code, "content_hash": node.content_hash,
    }
    return {k: v for k, v in props.items() if v is not None}


def _templated(name: str, **names: str) -> str:
    text = cypher.load(name)
    for placeholder, value in names.items():
        text = text.replace(f"__{placeholder}__", value)
    return text


class GraphStore:
    def __init__(self, settings: Neo4jSettings) -> None:
        self.settings = settings
        try:
            self.driver = neo4j.GraphDatabase.driver(
                settings.uri, auth=(settings.user, settings.password), notifications_min_severity="OFF"
            )
            self.driver.verify_connectivity()
        except AuthError:
            raise SpiderError(f"Neo4j at {settings.uri} refused the credentials (check NEO4J_USER/NEO4J_PASSWORD)") from None
        except (ServiceUnavailable, OSError, ValueError, Neo4jError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise SpiderError(f"cannot reach Neo4j at {settings.uri}: {reason}") from None

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> "GraphStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_named(self, name: str, **params: Any) -> list[dict]:
        """Run the named file of cypher/ (auto-commit) and return its rows as dicts."""
        return self._run(cypher.load(name), **params)

    def _run(self, query: str, **params: Any) -> list[dict]:
        records, _, _ = self.driver.execute_query(query, params, database_=self.settings.database)
        return [r.data() for r in records]

    # schema -------------------------------------------------------------------
    def ensure_schema(self) -> None:
        for statement in cypher.statements(cypher.load("schema")):
            self._run(statement)

    # snapshots ------------------------------------------------------------------
    def snapshot_state(self, repo: str, snapshot: str) -> dict | None:
        rows = self._run(cypher.load("snapshot_state"), repo=repo, snapshot=snapshot)
        if not rows:
            return None
        row = rows[0]
        row["stats"] = json.loads(row["stats"]) if row.get("stats") else None
        return row

    def begin_snapshot(self, repo: str, snapshot: str, rev: str) -> None:
        self._run(cypher.load("snapshot_begin"), repo=repo, snapshot=snapshot, rev=rev)

    def complete_snapshot(self, repo: str, snapshot: str, stats: dict) -> None:
        self._run(cypher.load("snapshot_complete"), repo=repo, snapshot=snapshot, stats=json.dumps(stats))

    def list_snapshots(self, repo: str | None = None) -> list[dict]:
        rows = self._run(cypher.load("snapshots"), repo=repo)
        for row in rows:
            row["stats"] = json.loads(row["stats"]) if row.get("stats") else None
        return rows

    def only_repository(self) -> str:
        """The repository to use when none is named: the only one with a complete snapshot."""
        repos = sorted({s["repo"] for s in self.list_snapshots() if s["complete"]})
        if len(repos) != 1:
            hint = f"indexed: {', '.join(repos)}" if repos else "nothing is indexed yet (run `spider index PATH`)"
            raise SpiderError(f"name a repository with --repo NAME ({hint})")
        return repos[0]

    def resolve_snapshot(self, repo: str, rev: str | None = None) -> str:
        """The complete snapshot of `repo` a user means: `rev` as a sha (prefix) or as the revision name it was
        indexed with (`main`, `v2.1`), newest first; without `rev` the newest complete snapshot."""
        rows = self.list_snapshots(repo)
        complete = [r for r in rows if r["complete"]]
        if not rows:
            indexed = sorted({r["repo"] for r in self.list_snapshots()})
            hint = f"indexed: {', '.join(indexed)}" if indexed else "nothing is indexed yet: run `spider index PATH`"
            raise SpiderError(f"no repository named {repo!r} is indexed ({hint})")
        if not complete:
            raise SpiderError(f"{repo} has no complete snapshot yet (an index run is unfinished: run `spider index` again)")
        if rev is None:
            return complete[0]["snapshot"]
        by_sha = [r["snapshot"] for r in complete if len(rev) >= 4 and r["snapshot"].startswith(rev)]
        if len(by_sha) > 1:
            raise SpiderError(f"{rev!r} matches {len(by_sha)} snapshots of {repo}: give more of the sha")
        by_name = [r["snapshot"] for r in complete if r["rev"] == rev]  # newest first
        if by_sha or by_name:
            return (by_sha or by_name)[0]
        known = ", ".join(f"{r['snapshot'][:12]} ({r['rev']})" for r in complete[:5])
        raise SpiderError(f"no complete snapshot of {repo} matches {rev!r} (indexed: {known})")

    def function_texts(self, repo: str, snapshot: str) -> tuple[list[str], list[str]]:
        _, rows = self.read(cypher.load("snapshot_functions"), {"repo": repo, "snapshot": snapshot})
        return [r[0] for r in rows], [r[1] for r in rows]

    def repo_function_hashes(self, repo: str) -> set[str]:
        """Content hashes of the repo's functions in every snapshot, complete or not (their vectors are in use)."""
        return {r["content_hash"] for r in self.run_named("repo_function_hashes", repo=repo)}

    def delete_snapshot(self, repo: str, snapshot: str, batch: int = 10_000) -> int:
        """Delete a snapshot's graph in bounded transactions, the Snapshot marker last; returns nodes deleted."""
        total = 0
        while True:
            deleted = self._run(cypher.load("snapshot_delete_batch"), repo=repo, snapshot=snapshot, batch=batch)
            count = deleted[0]["deleted"] if deleted else 0
            total += count
            if count == 0:
                break
        self._run(cypher.load("snapshot_delete_marker"), repo=repo, snapshot=snapshot)
        return total

    # writes -----------------------------------------------------------------------
    def _write_batches(
        self, jobs: list[tuple[str, list[dict]]], repo: str, snapshot: str, progress: Callable[[int], None] | None
    ) -> None:
        """Run (query, rows) batches on WRITERS sessions at once: the server applies them while the client
        packs the next. Deadlocks between batches are transient errors the driver retries."""
        def run(job: tuple[str, list[dict]]) -> int:
            query, rows = job
            self._run(query, rows=rows, repo=repo, snapshot=snapshot)
            return len(rows)

        with ThreadPoolExecutor(WRITERS) as pool:
            for done in pool.map(run, jobs):
                if progress:
                    progress(done)

    def write_nodes(
        self, repo: str, snapshot: str, nodes: Iterable[GraphNode], progress: Callable[[int], None] | None = None
    ) -> None:
        by_label: dict[Label, list[dict]] = defaultdict(list)
        for node in nodes:
            by_label[node.label].append({"id": node.id, "props": _node_props(node)})
        jobs = [
            (_templated("write_nodes", LABEL=label.value), chunk)
            for label, rows in by_label.items()
            for chunk in _chunks(rows, BATCH)
        ]
        self._write_batches(jobs, repo, snapshot, progress)

    def write_edges(
        self,
        repo: str,
        snapshot: str,
        edges: Iterable[GraphEdge],
        label_of: dict[str, Label],
        progress: Callable[[int], None] | None = None,
    ) -> None:
        groups: dict[tuple[Label, Rel, Label], list[dict]] = defaultdict(list)
        for edge in edges:
            key = (label_of[edge.src], edge.type, label_of[edge.dst])
            groups[key].append({"src": edge.src, "dst": edge.dst, "resolution": edge.resolution})
        jobs = [
            (_templated("write_edges", SRC=src.value, TYPE=rel.value, DST=dst.value), chunk)
            for (src, rel, dst), rows in sorted(groups.items())
            for chunk in _chunks(rows, BATCH * 2)
        ]
        self._write_batches(jobs, repo, snapshot, progress)

    def copy_file_nodes(self, repo: str, base: str, snapshot: str, paths: list[str]) -> int:
        """Copy the File, Class and Function nodes of `paths` from snapshot `base` (incremental indexing); returns
        how many were created."""
        created = 0
        for label in (Label.FILE, Label.CLASS, Label.FUNCTION):
            with self.driver.session(database=self.settings.database) as session:  # CALL … IN TRANSACTIONS
                summary = session.run(_templated("snapshot_copy_file_nodes", LABEL=label.value),
                                      repo=repo, base=base, snapshot=snapshot, paths=paths).consume()
                created += summary.counters.nodes_created
        return created

    # versioned graph (branch versioned-graph, issue 6) -----------------------------------------------------------
    def write_version(
        self, repo: str, seq: int, nodes: dict[str, GraphNode], labels: dict[str, Label],
        edges: dict[EdgeKey, str | None], diff: VersionDiff,
    ) -> None:
        """Make snapshot number `seq` the head: apply `diff` (from the head's digest to this snapshot's) with
        `nodes` (the new node versions, by id), `labels` (every id's label) and `edges` (this snapshot's)."""
        params = {"repo": repo, "seq": seq, "open": OPEN}
        # what is ended is found by the head's labels (an id may change label between commits)
        head = self._labels(repo, {i for key in diff.close_edges for i in (key[0], key[2])} | set(diff.close_nodes))
        self._edge_batches("version_close_edges", diff.close_edges, head, lambda k: {"src": k[0], "dst": k[2]}, params)
        for label in Label:
            ids = [i for i in diff.close_nodes if head[i] == label]
            for chunk in _chunks(ids, BATCH * 2):
                self._run(_templated("version_close_nodes", LABEL=label.value), ids=chunk, **params)
            rows = [{"id": i, "props": _node_props(nodes[i])} for i in diff.create_nodes if labels[i] == label]
            for chunk in _chunks(rows, BATCH):
                self._run(_templated("version_create_nodes", LABEL=label.value), rows=chunk, **params)
        self._edge_batches("version_create_edges", diff.create_edges, labels,
                           lambda k: {"src": k[0], "dst": k[2], "resolution": edges[k]}, params)

    def _edge_batches(self, name: str, keys: list[EdgeKey], labels: dict[str, Label], row, params: dict) -> None:
        groups: dict[tuple[Label, str, Label], list[dict]] = defaultdict(list)
        for key in keys:
            groups[(labels[key[0]], key[1], labels[key[2]])].append(row(key))
        for (src, rel, dst), rows in sorted(groups.items()):
            for chunk in _chunks(rows, BATCH * 2):
                self._run(_templated(name, SRC=src.value, TYPE=rel, DST=dst.value), rows=chunk, **params)

    def _labels(self, repo: str, ids: set[str]) -> dict[str, Label]:
        """The labels of the open versions of `ids` (what the head's relationships join)."""
        rows = self._run("UNWIND $ids AS id MATCH (n:Directory|File|Class|Function {repo: $repo, id: id}) "
                         "WHERE n.until = $open RETURN n.id AS id, labels(n)[0] AS label",
                         ids=sorted(ids), repo=repo, open=OPEN)
        return {r["id"]: Label(r["label"]) for r in rows}

    def truncate_versions(self, repo: str, seq: int) -> None:
        """Undo every snapshot numbered after `seq`: the versions they created go, the ones they ended reopen."""
        with self.driver.session(database=self.settings.database) as session:  # CALL … IN TRANSACTIONS
            for statement in cypher.statements(cypher.load("version_truncate")):
                session.run(statement, repo=repo, seq=seq, open=OPEN).consume()

    def version_view(self, repo: str, seq: int) -> tuple[list[list[Any]], list[list[Any]]]:
        """Snapshot number `seq` as (nodes [label, id, props], relationships [src, type, dst, props])."""
        params = {"repo": repo, "seq": seq}
        return self.read(cypher.load("version_view_nodes"), params)[1], self.read(cypher.load("version_view_edges"), params)[1]

    def function_code(self, repo: str, snapshot: str, ids: list[str]) -> dict[str, str]:
        rows = self.run_named("functions_by_id", repo=repo, snapshot=snapshot, ids=ids, with_code=True)
        return {r["id"]: r["code"] for r in rows}

    # reads --------------------------------------------------------------------------
    def read(self, query: str, params: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
        """Run any Cypher in a READ transaction: a write attempt fails instead of changing the graph."""

        def work(tx: neo4j.ManagedTransaction) -> tuple[list[str], list[list[Any]]]:
            result = tx.run(query, params)
            return list(result.keys()), [list(record.values()) for record in result]

        try:
            with self.driver.session(database=self.settings.database, default_access_mode=neo4j.READ_ACCESS) as session:
                return session.execute_read(work)
        except ClientError as exc:
            raise SpiderError(f"Cypher error: {exc.message.splitlines()[0] if exc.message else exc.code}") from None
