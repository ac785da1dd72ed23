"""Neo4j access for the indexer and the query layer: schema, batched writes, snapshots, read-only queries.

Everything is scoped by (repo, snapshot): a snapshot's graph is a view of its repository's versioned graph
(`indexer.graph.versions`), which every query under cypher/ applies. Its Snapshot node is marked complete in a last
transaction: readers only trust complete snapshots.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterator

import neo4j
from neo4j.exceptions import AuthError, ClientError, Neo4jError, SessionExpired, TransientError
from neo4j.exceptions import ServiceUnavailable as Neo4jUnavailable
from spider import cypher
from spider.core.errors import (
    ConfigurationError,
    InvalidInput,
    LimitExceeded,
    RepositoryNotFound,
    ServiceUnavailable,
    SnapshotConflict,
    SnapshotNotFound,
    SpiderError,
)
from spider.core.records import EmbedStats, GraphNode
from spider.core.redact import public_url
from spider.core.settings import Neo4jSettings, snapshot_cache_dir, spider_home_path
from spider.core.terminal import squeezed
from spider.indexer.graph.snapshot import Snapshot

BATCH = 2000
_SCHEMA_STATEMENT = re.compile(r"(CREATE|DROP) (?:CONSTRAINT|INDEX) (\w+)")
WRITERS = 2  # concurrent write sessions
MEMORY_POOL = "Neo.TransientError.General.MemoryPoolOutOfMemoryError"  # past db.memory.transaction.(total.)max


def chunks(rows: list, size: int) -> Iterator[list]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def node_props(node: GraphNode) -> dict[str, Any]:
    props = {
        "name": node.name, "path": node.path, "language": node.language, "kind": node.kind,
        "start_line": node.start_line, "end_line": node.end_line, "code": node.code, "content_hash": node.content_hash,
    }
    return {k: v for k, v in props.items() if v is not None}


_NAMED_AT_MOST = 10  # an organisation indexes hundreds of repositories; an error stays one readable line


def indexed_repositories(repos: list[str]) -> str:
    """The indexed repositories as an error names them: the first ten by name, and how many in all."""
    names = sorted(set(repos))
    if not names:
        return "nothing is indexed yet: run `spider index PATH`"
    if len(names) <= _NAMED_AT_MOST:
        return f"indexed: {', '.join(names)}"
    return f"indexed: {', '.join(names[:_NAMED_AT_MOST])}, … {len(names)} in all: `spider snapshots` lists them"


def graph_failure(error: BaseException, neo4j_settings: Neo4jSettings | None) -> SpiderError | None:
    """What a driver error means to a user when no statement is at fault, as the SpiderError it then is; None for
    any other error. Neo4j going away mid-command (stopped, killed, restarted) and a query outgrowing the memory
    Neo4j lets a transaction have are no bugs of spider's, but the driver raises them in its own classes wherever
    they happen. `neo4j_settings`: the NEO4J_URI server, None for the local one."""
    if isinstance(error, (Neo4jUnavailable, SessionExpired)):
        if neo4j_settings is None:
            return ServiceUnavailable("the local Neo4j stopped answering: start it with `spider neo4j start` "
                                      "(`spider neo4j status` shows its state), then try again")
        return ServiceUnavailable(f"Neo4j at {neo4j_settings.uri} stopped answering: check that it runs and is "
                                  "reachable, then try again")
    if isinstance(error, TransientError):
        reason = squeezed(error.message or "")[:300]
        if error.code == MEMORY_POOL:
            return LimitExceeded(f"the query needed more memory than Neo4j lets a transaction use ({reason}): "
                                 "narrow it (a LIMIT, fewer hops, no collect() of everything), or raise that limit")
        return ServiceUnavailable(f"Neo4j could not finish the query for now ({error.code}: {reason}): try again")
    return None


def templated(name: str, **names: str) -> str:
    text = cypher.load(name)
    for placeholder, value in names.items():
        text = text.replace(f"__{placeholder}__", value)
    return text


class GraphStore:
    def __init__(self, settings: Neo4jSettings, home: Path | None = None) -> None:
        """A connection to the graph on `settings`; `home` (a `Settings.home`) is where this machine keeps the files
        it derives from snapshots (`snapshot_cache`). None: the environment's SPIDER_HOME, for the tests and bench
        scripts that open a store without settings; `neo4j_local.open_graph` passes its settings' home."""
        self.settings = settings
        self.home = home if home is not None else spider_home_path()
        try:
            self.driver = neo4j.GraphDatabase.driver(
                settings.uri, auth=(settings.user, settings.password), notifications_min_severity="OFF"
            )
            with self.driver.session(database=settings.database) as session:  # reach, log in, find the database,
                session.run("RETURN 1").consume()  # at once: an auto-commit query is not retried
        except AuthError:
            raise ServiceUnavailable(f"Neo4j at {settings.uri} refused the credentials (check NEO4J_USER/NEO4J_PASSWORD)") from None
        except (Neo4jUnavailable, OSError, ValueError, Neo4jError) as exc:
            if getattr(exc, "code", None) == "Neo.ClientError.Database.DatabaseNotFound":
                raise ConfigurationError(f"Neo4j has no database {settings.database!r} (check NEO4J_DATABASE)") from None
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ServiceUnavailable(f"cannot reach Neo4j at {settings.uri}: {reason}") from None

    def snapshot_cache(self, repo: str, snapshot: str) -> Path:
        """The folder of the files kept beside a snapshot of `repo` on this machine (`settings.snapshot_cache_dir`)."""
        return snapshot_cache_dir(repo, snapshot, self.home)

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> "GraphStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_named(self, name: str, **params: Any) -> list[dict]:
        """Run the named file of cypher/ (auto-commit) and return its rows as dicts."""
        return self._run(cypher.load(name), **params)

    def run_templated(self, name: str, names: dict[str, str], **params: Any) -> list[dict]:
        """`run_named` for a file whose labels or types are placeholders (`templated`): `names` fills them."""
        return self._run(templated(name, **names), **params)

    def _run(self, query: str, **params: Any) -> list[dict]:
        records, _, _ = self.driver.execute_query(query, params, database_=self.settings.database)
        return [r.data() for r in records]

    # schema -------------------------------------------------------------------
    def ensure_schema(self) -> None:
        """Create what cypher/schema.cypher creates and drop what it drops, running only the statements whose
        constraint or index is not yet as it says (one listing instead of ~30 statements per index run)."""
        present = {r["name"] for r in self._run("SHOW CONSTRAINTS YIELD name RETURN name")}
        present |= {r["name"] for r in self._run("SHOW INDEXES YIELD name RETURN name")}
        for statement in cypher.statements(cypher.load("schema")):
            action, name = _SCHEMA_STATEMENT.match(statement).groups()  # type: ignore[union-attr]  # all CREATE/DROP
            if (action == "CREATE") != (name in present):
                self._run(statement)

    # snapshots ------------------------------------------------------------------
    def snapshot_state(self, repo: str, snapshot: str) -> Snapshot | None:
        """The snapshot, complete or not; None when no run started it."""
        rows = self._run(cypher.load("snapshot_state"), repo=repo, snapshot=snapshot)
        return Snapshot.from_row(rows[0]) if rows else None

    def snapshot_embedding(self, repo: str, snapshot: str) -> EmbedStats | None:
        """Which model embedded the snapshot, into which vector stores (None: not indexed, or with --no-embed)."""
        state = self.snapshot_state(repo, snapshot)
        return state.embedding if state else None

    def complete_snapshot(self, repo: str, snapshot: str, stats: dict) -> None:
        """Mark the snapshot the write in `stats["versions"]` made complete; an error if it was deleted while it was
        being indexed (the run's work is gone with it, so it must not report success), or deleted and written again
        by another run of the same commit (which completes its own, whole, snapshot)."""
        writer = (stats.get("versions") or {}).get("writer")
        if not self._run(cypher.load("snapshot_complete"), repo=repo, snapshot=snapshot, writer=writer,
                         stats=json.dumps(stats)):
            if self.snapshot_state(repo, snapshot) is None:
                raise SnapshotConflict(f"snapshot {snapshot[:12]} of {repo} was deleted while it was being indexed: "
                                       "index it again")
            raise SnapshotConflict(f"snapshot {snapshot[:12]} of {repo} was written again by another run while this one "
                                   "indexed it: that run completes it")

    def list_snapshots(self, repo: str | None = None) -> list[Snapshot]:
        """Every snapshot of `repo` (None: of every repository), by repository, newest first."""
        return [Snapshot.from_row(row) for row in self._run(cypher.load("snapshots"), repo=repo)]

    def only_repository(self) -> str:
        """The repository to use when none is named: the only one with a complete snapshot."""
        repos = sorted({s.repo for s in self.list_snapshots() if s.complete})
        if len(repos) != 1:
            raise InvalidInput(f"name a repository with --repo NAME ({indexed_repositories(repos)})")
        return repos[0]

    def resolve_snapshot(self, repo: str, rev: str | None = None) -> str:
        """The complete snapshot of `repo` a user means: `rev` as a sha (prefix) or as the revision name it was
        indexed with (`main`, `v2.1`), newest first; without `rev` the newest complete snapshot."""
        rows = self.list_snapshots(repo)
        complete = [r for r in rows if r.complete and r.versioned]
        if rows and not complete and any(not r.versioned for r in rows):
            raise SnapshotNotFound(f"{repo} was indexed by an older spider whose graph this one cannot read: index it "
                                   "again (`spider snapshots delete` removes the old snapshots)")
        if not rows:
            indexed = indexed_repositories([r.repo for r in self.list_snapshots()])
            # Where it looked: an MCP client starts spider without the shell's environment, and then reads
            # ~/.spider and its local Neo4j, not the graph the user indexed into.
            raise RepositoryNotFound(f"no repository named {repo!r} is indexed ({indexed}) in the graph at "
                                     f"{public_url(self.settings.uri, 'NEO4J_URI')} (SPIDER_HOME {self.home})")
        if not complete:
            raise SnapshotNotFound(f"{repo} has no complete snapshot yet (an index run is unfinished: run `spider index` again)")
        if rev is None:
            return complete[0].snapshot
        by_sha = [r.snapshot for r in complete if len(rev) >= 4 and r.snapshot.startswith(rev)]
        if len(by_sha) > 1:
            raise InvalidInput(f"{rev!r} matches {len(by_sha)} snapshots of {repo}: give more of the sha")
        by_name = [r.snapshot for r in complete if r.rev == rev]  # newest first
        if by_sha or by_name:
            return (by_sha or by_name)[0]
        known = ", ".join(f"{r.snapshot[:12]} ({r.rev})" for r in complete[:5])
        raise SnapshotNotFound(f"no complete snapshot of {repo} matches {rev!r} (indexed: {known})")

    def function_texts(self, repo: str, snapshot: str) -> tuple[list[str], list[str]]:
        _, rows = self.read(cypher.load("snapshot_functions"), {"repo": repo, "snapshot": snapshot})
        return [r[0] for r in rows], [r[1] for r in rows]

    def repo_function_hashes(self, repo: str) -> set[str]:
        """Content hashes of the repo's functions in every snapshot, complete or not (their vectors are in use)."""
        return {r["content_hash"] for r in self.run_named("repo_function_hashes", repo=repo)}

    # writes -----------------------------------------------------------------------
    def write_batches(
        self, jobs: list[tuple[str, dict]], params: dict[str, Any], progress: Callable[[int], None] | None,
        size: Callable[[dict], int] = lambda batch: len(batch["rows"]),
    ) -> list[dict]:
        """Run (query, batch parameters) jobs, each with `params` too, on WRITERS sessions at once: the server
        applies one batch while the client packs the next. Deadlocks between batches are transient errors the
        driver retries. Returns the rows the statements return."""
        def run(job: tuple[str, dict]) -> tuple[list[dict], int]:
            query, batch = job
            return self._run(query, **params, **batch), size(batch)

        returned: list[dict] = []
        with ThreadPoolExecutor(WRITERS) as pool:
            for rows, done in pool.map(run, jobs):
                returned += rows
                if progress:
                    progress(done)
        return returned

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
            raise InvalidInput(f"Cypher error: {exc.message.splitlines()[0] if exc.message else exc.code}") from None
