"""spider index embeds into Qdrant; spider-query answers with DER and BM25 (real Neo4j, Qdrant Edge, fastembed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from spider.core.settings import Neo4jSettings
from spider.indexer.graph.versions import hold_repository
from spider.indexer.models.embedding import Embedder, open_embedder
from spider.indexer.pipeline.index import index_repository
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.pipeline.stages import graph_of, no_progress, parse_all
from spider.indexer.source.walk import open_commit, select_files
from spider.indexer.vectors.embed_stage import embed_snapshot
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.server import QdrantServerStore
from spider.indexer.vectors.store import VectorStore, collection_name
from spider.query.retrieve.dense import dense_ranking, snapshot_members

from tests.fixtures.gitrepo import make_repo
from tests.integration.helpers import invoke_index_json, invoke_spider, invoke_spider_query, run_spider, succeeded

FILES = {
    "billing/invoice.py": (
        "def compute_invoice_total(invoice_lines, tax_rate):\n"
        "    subtotal = sum(line.amount for line in invoice_lines)\n"
        "    return subtotal * (1 + tax_rate)\n\n\n"
        "def format_invoice_header(customer):\n"
        "    return customer.name.upper()\n"
    ),
    "auth/session.py": (
        "class SessionStore:\n"
        "    def expire_session_token(self, token):\n"
        "        self.tokens.pop(token, None)\n\n"
        "    def refresh_session_token(self, token):\n"
        "        return token\n"
    ),
    "web/render.js": "export function renderTemplate(template, context) {\n  return template(context);\n}\n",
}
ISSUE = "Invoice total is wrong: compute_invoice_total ignores the tax rate for invoice lines"


def vectors_of(embedder: Embedder) -> VectorStore:
    return open_vector_store(embedder.name, embedder.dim)


@pytest.fixture
def indexed(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", FILES)
    report = index_repository(store, str(root), repo=repo_name)
    return root, sha, report


@pytest.mark.parametrize("method", ["der", "bm25"])
def test_the_obviously_matching_function_ranks_first(indexed, repo_name, method):
    _, sha, _ = indexed

    result = invoke_spider_query(ISSUE, "--repo", repo_name, "--method", method, "-k", "3", "--json")

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["snapshot"] == sha and answer["method"] == method and len(answer["results"]) <= 3
    top = answer["results"][0]
    assert top["id"] == "billing/invoice.py:compute_invoice_total"
    assert (top["path"], top["lines"], top["rank"]) == ("billing/invoice.py", "1-3", 1)
    assert [r["rank"] for r in answer["results"]] == list(range(1, len(answer["results"]) + 1))


@pytest.mark.parametrize("method, why", [
    ("bm25", "BM25 ranks only the functions that share a word with the issue (hybrid adds those it names)"),
    ("der", "the snapshot has no more functions outside test code"),
])
def test_fewer_results_than_k_come_with_a_note_that_says_why(indexed, repo_name, method, why):
    answer = json.loads(succeeded(invoke_spider_query(ISSUE, "--repo", repo_name, "--method", method, "-k", "10",
                                                      "--json")))

    found = len(answer["results"])
    assert 0 < found < 10 and f"{found} results, fewer than k=10: {why}" in answer["notes"], answer["notes"]


def test_table_output_and_issue_from_stdin(indexed, repo_name):
    result = invoke_spider_query("--repo", repo_name, "--method", "bm25", input=ISSUE)

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["rank", "score", "id", "path:lines"]
    assert lines[1].split()[2:] == ["billing/invoice.py:compute_invoice_total", "billing/invoice.py:1-3"]
    assert lines[-1].startswith(f"bm25 top-20 of {repo_name} @ ")


def test_reindexing_a_changed_commit_embeds_only_the_changed_functions(indexed, store, repo_name):
    root, first, report = indexed
    assert report.embedding.embedded == 5 and report.embedding.reused == 0  # functions, not classes
    changed = dict(FILES)
    changed["auth/session.py"] = FILES["auth/session.py"].replace("return token", "return token.strip()")
    changed["web/extra.js"] = "export function extraHelper() {\n  return 1;\n}\n"
    _, second = make_repo(root, changed, message="change one function, add one")

    again = index_repository(store, str(root), repo=repo_name)

    assert again.snapshot == second
    assert again.embedding.embedded == 2  # refresh_session_token (new code) and extraHelper (new)
    assert again.embedding.reused == 4
    embedder = open_embedder()
    probe = embedder.embed_query(ISSUE)
    with vectors_of(embedder) as vectors:
        assert vectors.count(repo_name) == 7  # the old refresh_session_token is still used by the first snapshot
        in_first, in_second = (
            {(h.node_id, h.content_hash) for h in vectors.search(probe, repo_name, 100, snapshot_members(store, repo_name, sha))}
            for sha in (first, second))
    assert len(in_first) == 5 and len(in_second) == 6
    assert {i for i, _ in in_second} - {i for i, _ in in_first} == {"web/extra.js:extraHelper"}
    old, new = ({h for i, h in hits if i == "auth/session.py:SessionStore.refresh_session_token"} for hits in (in_first, in_second))
    assert len(old) == len(new) == 1 and old != new  # each snapshot sees its own version of the changed function


def test_dense_ranking_is_the_same_on_qdrant_edge_and_the_qdrant_client_api(indexed, store, repo_name):
    root, sha, _ = indexed
    embedder = open_embedder()
    commit = open_commit(str(root))
    selection = select_files(commit)
    graph, _ = graph_of(IndexReport(repo_name, sha, "HEAD"), selection, parse_all(commit, selection.files))
    server = QdrantServerStore(collection_name(embedder.name, embedder.dim), embedder.dim, client=QdrantClient(":memory:"))
    embed_snapshot(repo_name, graph.nodes, embedder, server, no_progress)

    recorded = store.snapshot_embedding(repo_name, sha)
    with vectors_of(embedder) as edge:
        on_edge = dense_ranking(embedder, edge, store, repo_name, sha, ISSUE, 10, recorded)
    on_server = dense_ranking(embedder, server, store, repo_name, sha, ISSUE, 10, recorded)

    assert [i for i, _ in on_edge] == [i for i, _ in on_server] and len(on_edge) == 5
    assert [s for _, s in on_edge] == pytest.approx([s for _, s in on_server], abs=1e-5)


def test_dense_membership_is_read_from_the_snapshot_cache_once_written(indexed, store, repo_name):
    _, sha, _ = indexed
    embedder = open_embedder()
    cache = store.snapshot_cache(repo_name, sha) / "function_members.json"
    cache.unlink(missing_ok=True)
    recorded = store.snapshot_embedding(repo_name, sha)
    with vectors_of(embedder) as vectors:
        ranked = dense_ranking(embedder, vectors, store, repo_name, sha, ISSUE, 10, recorded)
        assert ranked[0][0] == "billing/invoice.py:compute_invoice_total"
        cached = json.loads(cache.read_text())
        assert len(cached["node_ids"]) == 5  # the snapshot's five functions
        top = cached["node_ids"].index(ranked[0][0])
        cache.write_text(json.dumps({key: values[:top] + values[top + 1:] for key, values in cached.items()}))
        again = dense_ranking(embedder, vectors, store, repo_name, sha, ISSUE, 10, recorded)
    cache.unlink()  # the next query rebuilds it from the graph
    assert [i for i, _ in again] == [i for i, _ in ranked[1:]]


def test_query_errors_are_one_line_and_exit_2(indexed, tmp_path, store, repo_name):
    root, _, _ = indexed
    bare = {"m.py": "def only():\n    return 1\n"}
    graph_only, _ = make_repo(tmp_path / "graph-only", bare)
    index_repository(store, str(graph_only), repo=f"{repo_name}-noembed", embed=False)

    cases = {
        ("--repo", "no/such-repo", ISSUE): "no repository named 'no/such-repo' is indexed (",
        ("--repo", repo_name, "--rev", "deadbeef", ISSUE): f"no complete snapshot of {repo_name} matches 'deadbeef'",
        ("--repo", repo_name, "   "): "no issue text",
        ("--repo", f"{repo_name}-noembed", "--method", "der", ISSUE): "was indexed without embeddings",
    }
    for args, message in cases.items():
        result = invoke_spider_query(*args, input="")
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("spider-query: error: "), args
        assert message in lines[0], (args, lines)


def test_a_repository_whose_vectors_another_process_writes_fails_the_index_before_anything_is_written(
        tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", FILES)
    with vectors_of(open_embedder()) as vectors, vectors.writing(repo_name):  # while `spider index` runs elsewhere
        result = run_spider("index", root, "--repo", repo_name)

    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"spider: error: another spider process is writing the vectors of {repo_name} into "
                               "the local vector store "), lines[0]
    assert store.snapshot_state(repo_name, sha) is None  # no graph written for nothing
    assert succeeded(run_spider("index", root, "--repo", repo_name))  # once it is free, the same command works
    assert store.snapshot_state(repo_name, sha).complete


def test_of_two_index_runs_started_together_the_one_that_loses_the_writer_lease_writes_nothing(
        tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", FILES)
    # While this writer holds the repository, a run that reaches the graph write waits there: a run must hold the
    # repository's writer lease by then, so the other waits for the lease instead and gives up before writing.
    with hold_repository(store, repo_name):
        runs = [subprocess.Popen(["spider", "index", str(root), "--repo", repo_name], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and all(run.poll() is None for run in runs):
            time.sleep(0.1)
        gave_up = [run for run in runs if run.poll() is not None]
    outputs = {run: run.communicate(timeout=300) for run in runs}

    assert len(gave_up) == 1, "both runs went on to write without holding the vector store"
    loser, = gave_up
    winner, = (run for run in runs if run is not loser)
    lines = outputs[loser][1].strip().splitlines()  # the stages it went through (it may have parsed), then why
    assert loser.returncode == 2 and "Traceback" not in outputs[loser][1], outputs[loser]
    assert [line for line in lines if line.startswith("spider: error")] == lines[-1:], outputs[loser]
    assert lines[-1].startswith(f"spider: error: another spider process is writing the vectors of {repo_name}")
    assert winner.returncode == 0, outputs[winner]
    rows = json.loads(succeeded(invoke_spider("snapshots", "list", "--repo", repo_name, "--json")))
    assert [(r["snapshot"], r["seq"], r["complete"]) for r in rows] == [(sha, 1, True)]
    assert "INCOMPLETE" not in succeeded(invoke_spider("snapshots", "list", "--repo", repo_name))


def test_a_snapshot_indexed_without_vectors_is_indexed_again_when_vectors_are_wanted(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", FILES)
    assert index_repository(store, str(root), repo=repo_name, embed=False).embedding is None
    assert index_repository(store, str(root), repo=repo_name, embed=False).already_indexed

    again = index_repository(store, str(root), repo=repo_name)

    assert not again.already_indexed and again.embedding.functions == 5
    assert (store.snapshot_state(repo_name, sha).stats or {})["embedding"]["functions"] == 5
    assert index_repository(store, str(root), repo=repo_name).already_indexed


def test_force_no_embed_keeps_the_vectors_the_store_holds_and_says_when_it_cannot(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", FILES)
    first = index_repository(store, str(root), repo=repo_name)

    again = index_repository(store, str(root), repo=repo_name, force=True, embed=False)

    assert again.notes == [] and again.embedding is not None and again.embedding.model == first.embedding.model
    assert (again.embedding.embedded, again.embedding.reused) == (0, 5)
    assert store.snapshot_state(repo_name, sha).embedding.model == first.embedding.model  # dense retrieval stays
    with vectors_of(open_embedder()) as vectors:
        vectors.delete_unused(repo_name, set())  # a store that lost them
    third = index_repository(store, str(root), repo=repo_name, force=True, embed=False)
    assert third.embedding is None and store.snapshot_state(repo_name, sha).embedding is None
    assert third.notes == [f"{repo_name} @ {sha[:12]} had vectors of {first.embedding.model}, and {vectors.where} "
                           "lacks some of them now: --no-embed left it keyword-only (index it without --no-embed to "
                           "embed them)"]


# A graph shared by machines that each keep their own vector store ------------------------------------------
def machine(home: Path, spider_home: Path, neo4j_settings: Neo4jSettings) -> dict[str, str]:
    """The environment of another machine on the session's Neo4j: its own SPIDER_HOME, so its own Qdrant Edge
    store, with the test embedding model registered."""
    if not (home / "models").exists():
        shutil.copytree(spider_home / "models", home / "models")
    env = {k: v for k, v in os.environ.items() if k not in ("QDRANT_URL", "QDRANT_API_KEY")}
    return {**env, "SPIDER_HOME": str(home), "NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
            "NEO4J_PASSWORD": neo4j_settings.password, "NEO4J_DATABASE": neo4j_settings.database}


def run_on(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, env=env, timeout=300)


def lacking_store_error(result: subprocess.CompletedProcess, repo: str, sha: str, home: Path) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and result.stdout == "" and len(lines) == 1, result
    assert lines[0].startswith(f"spider-query: error: the local vector store {home / 'vectors'}"), lines[0]
    assert f"lacks the vectors of {repo} @ {sha[:12]}" in lines[0], lines[0]


def test_indexing_a_commit_indexed_into_another_vector_store_embeds_it_into_this_one(
        tmp_path, store, repo_name, spider_home, neo4j_settings):
    root, sha = make_repo(tmp_path / "repo", FILES)
    assert invoke_index_json(root, repo_name)["embedding"]["embedded"] == 5  # machine A: the session's SPIDER_HOME
    b = machine(tmp_path / "b", spider_home, neo4j_settings)

    again = json.loads(succeeded(run_on(b, "spider", "index", str(root), "--repo", repo_name, "--json")))

    assert not again["already_indexed"]
    assert (again["embedding"]["embedded"], again["embedding"]["reused"]) == (5, 0)
    answer = json.loads(succeeded(run_on(b, "spider-query", ISSUE, "--repo", repo_name, "--method", "der", "--json")))
    assert answer["results"][0]["id"] == "billing/invoice.py:compute_invoice_total"
    assert json.loads(succeeded(run_on(b, "spider", "index", str(root), "--repo", repo_name, "--json")))[
        "already_indexed"]  # verified: nothing more to embed
    answer = json.loads(succeeded(invoke_spider_query(ISSUE, "--repo", repo_name, "--method", "der", "--json")))
    assert answer["results"][0]["id"] == "billing/invoice.py:compute_invoice_total"  # A still answers too

    shutil.rmtree(tmp_path / "b" / "vectors")
    for method in ("der", "spider"):
        lacking_store_error(run_on(b, "spider-query", ISSUE, "--repo", repo_name, "--method", method,
                                   "--selector", "none"), repo_name, sha, tmp_path / "b")


def test_an_incremental_run_embeds_what_this_store_lacks_of_the_head_it_reuses(
        tmp_path, store, repo_name, spider_home, neo4j_settings):
    root, _ = make_repo(tmp_path / "repo", FILES)
    invoke_index_json(root, repo_name)  # machine A
    _, second = make_repo(root, {**FILES, "web/extra.js": "export function extraHelper() {\n  return 1;\n}\n"})
    b = machine(tmp_path / "b", spider_home, neo4j_settings)

    report = json.loads(succeeded(run_on(b, "spider", "index", str(root), "--repo", repo_name, "--json")))

    assert report["incremental"] is not None
    assert (report["embedding"]["embedded"], report["embedding"]["reused"]) == (6, 0)
    answer = json.loads(succeeded(run_on(b, "spider-query", ISSUE, "--repo", repo_name, "--method", "der", "--json")))
    assert answer["snapshot"] == second and answer["results"][0]["id"] == "billing/invoice.py:compute_invoice_total"
    c = machine(tmp_path / "c", spider_home, neo4j_settings)  # a third machine that indexed nothing
    lacking_store_error(run_on(c, "spider-query", ISSUE, "--repo", repo_name, "--method", "der"), repo_name, second,
                        tmp_path / "c")
