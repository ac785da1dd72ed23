"""Snapshots as versions of one graph per repository, so a commit costs Neo4j what it changed, not its size.

A repository's snapshots are numbered in the order they are written (`seq` on the Snapshot node, from 1). Every
node and relationship is a *version* valid for the snapshot numbers in [since, until); the versions of the
snapshot written last (the head, `Repository.head`) are open (until = OPEN). A snapshot's graph is the view
`since <= seq < until`, which every query under cypher/ applies.

Writing snapshot k over the head closes what changed (until = k) and creates the new versions (since = k), with
the diff of `indexer.graph.version_diff`: on apache/dubbo a one-file commit is ~20 nodes and ~100 relationships instead
of a 118k-entity copy. Earlier snapshots never see a write in progress (their numbers are below k).

One writer per repository at a time: `hold_repository` takes the Repository node's lock in a transaction that
stays open until the write is done, so a second writer waits, and a writer that dies (SIGKILL, lost connection)
releases it with its connection. Whatever a dead writer left (versions numbered above the head) is truncated by
the next one, and each write statement checks the writer's token, so a writer that lost its lock writes nothing.
"""

from __future__ import annotations

import shutil
import uuid
from collections import defaultdict
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from neo4j.exceptions import ConstraintError
from spider import cypher
from spider.core.records import GraphNode
from spider.core.schema import Label
from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.graph.store import BATCH, GraphStore, chunks, node_props, templated
from spider.indexer.graph.version_diff import EdgeKey, GraphDigest, VersionDiff, node_digest

OPEN = 1 << 62  # `until` of the versions the head holds
NOTHING = 0  # the head of a repository with nothing written; snapshot numbers start at 1
DIGEST_FILE = "graph_digest.pickle"


@dataclass
class RepositoryWriter:
    """The one writer of a repository's graph, while `hold_repository` holds its lock."""

    store: GraphStore
    repo: str
    head: int  # NOTHING when the repository has no graph yet

    def snapshots(self) -> list[Snapshot]:
        """Every snapshot of the repository written with versions (complete or not), by number."""
        return _versioned(self.store.list_snapshots(self.repo))

    def discard_unfinished(self) -> None:
        """Undo what writers that died left: snapshots numbered above the head and their versions."""
        unfinished = [r for r in self.snapshots() if r.seq is not None and r.seq > self.head]
        if unfinished:
            self._truncate(self.head)
            for row in unfinished:
                self.store.run_named("snapshot_delete_marker", repo=self.repo, snapshot=row.snapshot)

    def delete(self, snapshot: str) -> int:
        """Remove a snapshot and what is cached of it: the head is truncated to the snapshot before it; another
        one gives up the versions only it could see. Returns how many nodes were deleted."""
        cache = self.store.snapshot_cache(self.repo, snapshot)
        shutil.rmtree(cache, ignore_errors=True)
        with suppress(OSError):  # the repository's cache folder, once it holds no snapshot's
            cache.parent.rmdir()
        rows = self.store.list_snapshots(self.repo)
        row = next((r for r in rows if r.snapshot == snapshot), None)
        if row is None:
            return 0
        if row.seq is None:
            deleted = self._delete_legacy(snapshot)
        else:
            seq = row.seq
            numbers = [r.seq for r in rows if r.seq is not None and r.seq != seq]
            before = max((n for n in numbers if n < seq), default=NOTHING)
            if seq == self.head:
                deleted = self._truncate(before)
                self.head = before
            else:
                after = min(n for n in numbers if n > seq)  # the head is after it
                deleted = self._run_counting("version_collect", prev=before, seq=seq, next=after)
        self.store.run_named("snapshot_delete_marker", repo=self.repo, snapshot=snapshot)
        return deleted

    def write(self, snapshot: str, rev: str, head: GraphDigest, new: GraphDigest, diff: VersionDiff,
              nodes: dict[str, GraphNode], progress: Callable[[str, int], Callable[[int], None]]) -> tuple[int, str]:
        """Write `snapshot` as the new head: `diff` turns the head's graph (`head`) into `new`, whose created
        nodes are `nodes` by id. Returns its number and the write's token (what its digest is tagged with)."""
        seq, token = self.head + 1, uuid.uuid4().hex
        self.store.run_named("snapshot_begin", repo=self.repo, snapshot=snapshot, seq=seq, writer=token, rev=rev)
        params = {"repo": self.repo, "seq": seq, "writer": token, "open": OPEN}
        store = self.store
        open_before = self._open_elements({}, diff.close_edges, head.labels)
        store.write_batches(_edge_jobs("version_close_edges", diff.close_edges, open_before, lambda key: {}),
                            params, progress("closing relationships", len(diff.close_edges)))
        store.write_batches([(templated("version_close_nodes", LABEL=label.value), {"ids": ids})
                             for label, ids in _by_label(diff.close_nodes, head.labels)],
                            params, progress("closing nodes", len(diff.close_nodes)), size=lambda p: len(p["ids"]))
        created = store.write_batches([(templated("version_create_nodes", LABEL=label.value),
                                        {"rows": [{"id": i, "props": node_props(nodes[i])} for i in ids]})
                                       for label, ids in _by_label(diff.create_nodes, new.labels)],
                                      params, progress("writing nodes", len(diff.create_nodes)))
        # A node closed above is either created again (its new version's element id replaces the old one here) or
        # gone from the new graph; the others found above are still open and need no second lookup.
        elements = self._open_elements({**open_before, **{row["id"]: row["element"] for row in created}},
                                       diff.create_edges, new.labels)
        store.write_batches(_edge_jobs("version_create_edges", diff.create_edges, elements,
                                       lambda key: {"resolution": new.edges[key]}),
                            params, progress("writing relationships", len(diff.create_edges)))
        self.head = seq
        return seq, token

    def _open_elements(self, elements: dict[str, str], edges: list[EdgeKey], labels: dict[str, Label]) -> dict[str, str]:
        """`elements` (node id -> element id of its open version) with those of the other ends of `edges`, which
        the head holds. Element ids stay valid while the writer lock is held."""
        kept = sorted({end for key in edges for end in (key[0], key[2]) if end not in elements})
        for label, ids in _by_label(kept, labels):
            for row in self.store.run_templated("version_open_elements", {"LABEL": label.value}, repo=self.repo,
                                                ids=ids, open=OPEN):
                elements[row["id"]] = row["element"]
        if missing := [end for end in kept if end not in elements]:
            raise RuntimeError(f"relationships of {self.repo} end at nodes with no open version: {missing[:3]}")
        return elements

    def _truncate(self, seq: int) -> int:
        return self._run_counting("version_truncate", seq=seq, open=OPEN)

    def _delete_legacy(self, snapshot: str) -> int:
        total = 0
        while count := self.store.run_named("legacy_delete_batch", repo=self.repo, snapshot=snapshot,
                                            batch=10_000)[0]["deleted"]:
            total += count
        return total

    def _run_counting(self, name: str, **params: Any) -> int:
        """Run a file of CALL … IN TRANSACTIONS statements (auto-commit); the nodes they deleted."""
        deleted = 0
        with self.store.driver.session(database=self.store.settings.database) as session:
            for statement in cypher.statements(cypher.load(name)):
                deleted += session.run(statement, repo=self.repo, **params).consume().counters.nodes_deleted
        return deleted


def _versioned(rows: list[Snapshot]) -> list[Snapshot]:
    """The snapshots of `rows` written with versions, by number."""
    return sorted((r for r in rows if r.versioned), key=lambda r: r.seq or NOTHING)


def _by_label(ids: list[str], labels: dict[str, Label]) -> Iterator[tuple[Label, list[str]]]:
    grouped: dict[Label, list[str]] = defaultdict(list)
    for node_id in ids:
        grouped[labels[node_id]].append(node_id)
    for label, members in sorted(grouped.items()):
        for chunk in chunks(members, BATCH):
            yield label, chunk


def _edge_jobs(name: str, keys: list[EdgeKey], elements: dict[str, str],
               extra: Callable[[EdgeKey], dict]) -> list[tuple[str, dict]]:
    """One statement per type (types cannot be parameters); the ends by element id."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for key in keys:
        groups[key[1]].append({"src": elements[key[0]], "dst": elements[key[2]], **extra(key)})
    return [(templated(name, TYPE=rel), {"rows": chunk})
            for rel, rows in sorted(groups.items()) for chunk in chunks(rows, BATCH * 2)]


@contextmanager
def hold_repository(store: GraphStore, repo: str) -> Iterator[RepositoryWriter]:
    """Be the only writer of `repo`'s graph (waiting for another one to finish), with what dead writers left
    undone; the lock is released when the block ends, after recording the head it wrote. A repository left
    without snapshots goes with the lock (a writer that waited for it takes a new one)."""
    with store.driver.session(database=store.settings.database) as session:
        while True:
            try:
                store.run_named("repository_create", repo=repo)
            except ConstraintError:  # created by a concurrent writer meanwhile
                pass
            tx = session.begin_transaction()
            row = tx.run(cypher.load("repository_lock"), repo=repo, writer=uuid.uuid4().hex).single()
            if row is not None and row["held"]:
                break
            tx.close()  # the writer it waited for deleted the repository
        try:
            writer = RepositoryWriter(store, repo, NOTHING if row["head"] is None else row["head"])
            writer.discard_unfinished()
            yield writer
            if store.list_snapshots(repo):
                tx.run(cypher.load("repository_release"), repo=repo, head=writer.head).consume()
            else:
                tx.run(cypher.load("repository_delete"), repo=repo).consume()
            tx.commit()
        finally:
            if not tx.closed():
                tx.close()


def cached_digest(store: GraphStore, repo: str, snapshot: Snapshot | None) -> GraphDigest:
    """The digest of a versioned snapshot (a row of `GraphStore.list_snapshots`; None: the empty graph), from its
    cache when that describes the snapshot's write, else read from Neo4j without the code."""
    if snapshot is None:
        return GraphDigest()
    path = store.snapshot_cache(repo, snapshot.snapshot) / DIGEST_FILE
    writer = snapshot.writer or ""  # every versioned write records its token
    digest = GraphDigest.load(path, writer)
    if digest is not None:
        return digest
    digest = GraphDigest()
    for row in store.run_named("snapshot_digest_nodes", repo=repo, snapshot=snapshot.snapshot):
        digest.nodes[row["id"]] = node_digest(row["label"], row["name"], row["path"], row["language"], row["kind"],
                                              row["start_line"], row["end_line"], row["content_hash"])
        digest.labels[row["id"]] = Label(row["label"])
    for row in store.run_named("snapshot_edges", repo=repo, snapshot=snapshot.snapshot):
        digest.edges[(row["src"], row["type"], row["dst"])] = row["props"].get("resolution")
    digest.save(path, writer)
    return digest


def stored_nodes(store: GraphStore, repo: str, snapshot: str, ids: list[str], labels: dict[str, Label]) -> list[GraphNode]:
    """Nodes as snapshot `snapshot` stores them, code included."""
    nodes = []
    for label, members in _by_label(ids, labels):
        for row in store.run_templated("version_props", {"LABEL": label.value}, repo=repo, snapshot=snapshot,
                                          ids=members):
            p = row["props"]
            nodes.append(GraphNode(label, row["id"], p["name"], p["path"], p.get("language"), p.get("kind"),
                                   p.get("start_line"), p.get("end_line"), p.get("code"), p.get("content_hash")))
    return nodes


def delete_snapshot(store: GraphStore, repo: str, snapshot: str) -> int:
    """Delete one snapshot's graph (after the repository's current writer, if any); the nodes deleted."""
    with hold_repository(store, repo) as writer:
        return writer.delete(snapshot)
