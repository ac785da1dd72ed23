"""The `spider` command against the real Neo4j: errors, cypher, snapshots, help. It runs in this process (click's
CliRunner: `invoke_spider`), but for the smoke tests that need a process of their own: the console scripts, and the
exit codes of a foreseen failure and of a bug as a shell sees them."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from spider import cypher
from spider.cli.error_handler import UNEXPECTED_EXIT
from spider.indexer.graph.store import GraphStore, indexed_repositories
from spider.indexer.models.embedding import open_embedder
from spider.indexer.vectors.open_store import open_vector_store
from spider.query.retrieve.dense import snapshot_members

from tests.fixtures.gitrepo import git, make_repo
from tests.fixtures.shop import PYTHON
from tests.integration.helpers import (
    invoke_index_json,
    invoke_spider,
    one_line_error,
    run_spider,
    spider_query,
    succeeded,
    unique_name,
)

NODES_OF_REPO = "MATCH (n {repo: $repo}) WHERE NOT n:Repository RETURN count(n) AS n"  # (its writers' lock)


def cypher_json(query: str, repo: str, *params: str) -> list[dict]:
    args = [arg for p in params for arg in ("--param", p)]
    return json.loads(succeeded(invoke_spider("cypher", query, "--repo", repo, *args, "--json")))


def node_count(store: GraphStore, repo: str) -> int:
    return store.read(NODES_OF_REPO, {"repo": repo})[1][0][0]


# 2. repository-level errors ----------------------------------------------------------------------
def _missing(tmp: Path) -> tuple[Path, list[str], str]:
    path = tmp / "does-not-exist"
    return path, [], f"no such directory: {path}"


def _not_git(tmp: Path) -> tuple[Path, list[str], str]:
    path = tmp / "plain"
    path.mkdir()
    (path / "a.py").write_text("def a():\n    return 1\n")
    return path, [], f"{path} is not a git repository (spider indexes commits: run `git init` and commit first)"


def _no_commits(tmp: Path) -> tuple[Path, list[str], str]:
    path = tmp / "fresh"
    path.mkdir()
    git(path, "init", "-q")
    return path, [], f"{path} has no commits yet: nothing to index"


def _unknown_rev(tmp: Path) -> tuple[Path, list[str], str]:
    path, _ = make_repo(tmp / "repo", {"a.py": "def a():\n    return 1\n"})
    return path, ["--rev", "no-such-branch"], f"unknown revision 'no-such-branch' in {path}"


def _file_path(tmp: Path) -> tuple[Path, list[str], str]:
    path = tmp / "a.py"
    path.write_text("def a():\n    return 1\n")
    return path, [], f"not a directory: {path}"


@pytest.mark.parametrize("setup", [_missing, _not_git, _no_commits, _unknown_rev, _file_path],
                         ids=lambda f: f.__name__.strip("_"))
def test_repository_errors_are_one_line_and_write_nothing(setup, tmp_path, store, repo_name):
    path, extra, message = setup(tmp_path)

    result = invoke_spider("index", path, "--repo", repo_name, *extra, env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})

    assert one_line_error(result) == f"spider: error: {message}"
    assert store.list_snapshots(repo_name) == [] and node_count(store, repo_name) == 0


def test_unreachable_neo4j_fails_fast_in_one_line(tmp_path, store, repo_name):
    root, _ = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})

    started = time.monotonic()  # a process of its own: the exit code and the one line as a shell sees them
    result = run_spider("index", root, "--repo", repo_name, env={"NEO4J_URI": "bolt://127.0.0.1:1"})

    assert time.monotonic() - started < 15
    assert one_line_error(result).startswith("spider: error: cannot reach Neo4j at bolt://127.0.0.1:1: ")
    assert store.list_snapshots(repo_name) == []


def test_a_commit_without_source_files_is_a_complete_empty_snapshot(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", {"README.md": "# nothing to parse\n"})

    out = succeeded(invoke_spider("index", root, "--repo", repo_name)).splitlines()

    assert out[0].startswith(f"indexed {repo_name} @ {sha} (HEAD) in ")
    assert out[1:4] == ["  files: 0 parsed, 0 skipped; 1 files in languages not parsed", "  nodes: none",
                        "  relationships: none"]
    state = store.snapshot_state(repo_name, sha)
    assert state.complete is True and state.stats["files_parsed"] == 0 and state.stats["nodes"] == {}
    assert node_count(store, repo_name) == 1  # the Snapshot node alone


# 3. spider cypher ------------------------------------------------------------------------------
SHOP_NEIGHBOURS_2 = [  # from DiscountedOrder.total, any edge type, either direction, by hand from the fixture
    {"id": "shop/models.py:Order.total", "hops": 1, "edge_path": ["INVOKES"],
     "path": "shop/models.py", "start_line": 17, "end_line": 18},  # super().total()
    {"id": "shop/models.py:apply_discount", "hops": 1, "edge_path": ["INVOKES"],
     "path": "shop/models.py", "start_line": 27, "end_line": 31},
    {"id": "shop/models.py:apply_discount.clamp", "hops": 2, "edge_path": None,  # CONTAINS and INVOKES: either
     "path": "shop/models.py", "start_line": 28, "end_line": 29},
    {"id": "shop/service.py:checkout", "hops": 2, "edge_path": ["CONTAINS", "INVOKES"],  # <-class<-DiscountedOrder()
     "path": "shop/service.py", "start_line": 6, "end_line": 11},
]


def test_neighbourhood_within_two_hops(shop):
    rows = cypher_json("neighbourhood", shop, "id=shop/models.py:DiscountedOrder.total", "d=2")

    clamp = rows[2]["edge_path"]
    assert clamp in (["INVOKES", "CONTAINS"], ["INVOKES", "INVOKES"])
    assert [{**r, "edge_path": None} if r["id"].endswith("clamp") else r for r in rows] == SHOP_NEIGHBOURS_2


def test_neighbourhood_restricted_to_invokes(shop):
    rows = cypher_json("neighbourhood", shop, "id=shop/models.py:DiscountedOrder.total", "d=2", 'types=["INVOKES"]')

    assert [(r["id"], r["hops"], r["edge_path"]) for r in rows] == [
        ("shop/models.py:Order.total", 1, ["INVOKES"]),
        ("shop/models.py:apply_discount", 1, ["INVOKES"]),
        ("shop/models.py:apply_discount.clamp", 2, ["INVOKES", "INVOKES"]),
    ]


def test_callers_and_callees(shop):
    assert cypher_json("callers", shop, "id=shop/payments.py:Receipt.header") == [
        {"caller": "shop/payments.py:Receipt.render", "label": "Function", "resolution": "exact",
         "path": "shop/payments.py", "start_line": 27, "end_line": 28},
    ]
    callees = cypher_json("callees", shop, "id=shop/service.py:checkout")
    assert [(r["callee"], r["label"], r["path"], r["start_line"], r["end_line"]) for r in callees] == [
        ("shop/models.py:DiscountedOrder", "Class", "shop/models.py", 21, 24),
        ("shop/models.py:Order", "Class", "shop/models.py", 9, 18),
        ("shop/models.py:Order.add", "Function", "shop/models.py", 13, 15),
        ("shop/payments.py:charge", "Function", "shop/payments.py", 6, 7),
        ("shop/payments.py:receipt", "Function", "shop/payments.py", 15, 16),
    ]
    assert {r["resolution"] for r in callees} <= {"exact", "import", "heuristic"}


def test_file_outline(shop):
    rows = cypher_json("file_outline", shop, "path=shop/payments.py")

    assert [tuple(r.values()) for r in rows] == [
        ("shop/payments.py:charge", "Function", "function", 1, 6, 7),
        ("shop/payments.py:_send", "Function", "function", 1, 10, 12),
        ("shop/payments.py:receipt", "Function", "function", 1, 15, 16),
        ("shop/payments.py:Receipt", "Class", "class", 1, 19, 28),
        ("shop/payments.py:Receipt.__init__", "Function", "method", 2, 20, 21),
        ("shop/payments.py:Receipt.header", "Function", "method", 2, 23, 25),  # from its decorator
        ("shop/payments.py:Receipt.render", "Function", "method", 2, 27, 28),
    ]
    assert list(rows[0]) == ["id", "label", "kind", "depth", "start_line", "end_line"]


def test_table_output_has_a_header_and_a_row_count(shop):
    one = succeeded(invoke_spider("cypher", "callers", "--repo", shop, "-p", "id=shop/payments.py:charge"))
    many = succeeded(invoke_spider("cypher", "file_outline", "--repo", shop, "-p", "path=shop/payments.py"))

    header = "caller                    label     resolution  path             start_line  end_line"
    assert one.splitlines()[0] == header and set(one.splitlines()[1]) == {"-", " "}
    row = ["shop/service.py:checkout", "Function", "import", "shop/service.py", "6", "11"]
    assert one.splitlines()[2].split() == row
    assert one.splitlines()[3:] == ["(1 row)"]
    assert many.splitlines()[0].split() == ["id", "label", "kind", "depth", "start_line", "end_line"]
    assert len(many.splitlines()) == 2 + 7 + 1 and many.splitlines()[-1] == "(7 rows)"


def test_a_writing_query_file_is_refused_and_changes_nothing(shop, tmp_path, store):
    query = tmp_path / "inject.cypher"
    query.write_text("CREATE (n:Function {repo: $repo, snapshot: $snapshot, id: 'injected'}) RETURN n.id AS id\n")
    before = node_count(store, shop)

    line = one_line_error(invoke_spider("cypher", query, "--repo", shop))

    assert line == "spider: error: refused: it writes to the graph; spider runs only read queries of the code graph"
    assert node_count(store, shop) == before


def test_unknown_query_and_malformed_param_are_one_line_errors(shop):
    unknown = one_line_error(invoke_spider("cypher", "no_such_query", "--repo", shop))
    no_equals = one_line_error(invoke_spider("cypher", "callers", "--repo", shop, "--param", "id"))

    named = ", ".join(cypher.ANALYST)
    assert unknown == f"spider: error: no query named 'no_such_query' and no such .cypher file (named: {named})"
    assert no_equals == "spider: error: --param takes key=value, got 'id'"


def test_without_repo_a_query_names_the_indexed_repositories(shop, tmp_path, store):
    other = f"a-{unique_name()}"  # sorts before the other tests' `test/…` names: among the ten named
    invoke_index_json(make_repo(tmp_path / "other", {"b.py": "def b():\n    return 2\n"})[0], other)

    line = one_line_error(invoke_spider("cypher", "callers", "--param", "id=b.py:b"))

    indexed = sorted({s.repo for s in store.list_snapshots() if s.complete})
    assert line == f"spider: error: name a repository with --repo NAME ({indexed_repositories(indexed)})"
    assert shop in indexed and (other in line or indexed.index(other) >= 10)


# 4. snapshots ----------------------------------------------------------------------------------
def commit_sharing_prefix(root: Path, sha: str, digits: int = 4) -> str:
    """A child commit of `sha` whose id starts with the same `digits` hex digits. Candidate commit objects are
    hashed here (a git process per try would take minutes for 4 digits); the one that matches is written."""
    tree = git(root, "rev-parse", f"{sha}^{{tree}}")
    who = "spider-tests <tests@spider.invalid> 1767225600 +0000"
    for attempt in itertools.count():
        body = f"tree {tree}\nparent {sha}\nauthor {who}\ncommitter {who}\n\nchild {attempt}\n".encode()
        if hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest().startswith(sha[:digits]):
            child = subprocess.run(["git", "-C", str(root), "hash-object", "-t", "commit", "-w", "--stdin"],
                                   input=body, capture_output=True, check=True).stdout.decode().strip()
            git(root, "update-ref", "refs/heads/main", child)
            return child


def test_snapshots_list_and_delete_by_prefix(tmp_path, store, repo_name):
    root, first = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n"})
    second = commit_sharing_prefix(root, first)
    invoke_index_json(root, repo_name, "--rev", "HEAD~1")
    invoke_index_json(root, repo_name)

    rows = json.loads(succeeded(invoke_spider("snapshots", "list", "--repo", repo_name, "--json")))

    assert [(r["repo"], r["snapshot"], r["rev"], r["complete"]) for r in rows] == [
        (repo_name, second, "HEAD", True), (repo_name, first, "HEAD~1", True)]
    assert [r["stats"]["nodes"] for r in rows] == [{"Directory": 1, "File": 1, "Function": 1}] * 2
    ambiguous = one_line_error(invoke_spider("snapshots", "delete", repo_name, first[:4]))
    assert ambiguous == f"spider: error: '{first[:4]}' matches 2 snapshots of {repo_name}: give more of the sha"
    unknown = one_line_error(invoke_spider("snapshots", "delete", repo_name, "beef"))
    assert unknown == f"spider: error: no snapshot 'beef' of repository '{repo_name}' (see `spider snapshots list`)"
    assert node_count(store, repo_name) == 3 + 2  # one tree: its 3 node versions, and 2 Snapshot nodes
    assert len(snapshot_members(store, repo_name, first)) == 1  # a query's cache of the snapshot, to be removed too
    assert store.snapshot_cache(repo_name, first).is_dir()

    vectors_freed = []
    for sha, nodes in ((first, 0), (second, 3)):  # the first's versions are the second's too
        out = succeeded(invoke_spider("snapshots", "delete", repo_name, sha[:12]))
        match = re.fullmatch(rf"deleted {re.escape(repo_name)} @ {sha} \({nodes} nodes, (\d+) vectors no snapshot uses any more\)\n", out)
        assert match, out
        vectors_freed.append(int(match.group(1)))

    assert json.loads(succeeded(invoke_spider("snapshots", "list", "--repo", repo_name, "--json"))) == []
    assert node_count(store, repo_name) == 0
    assert not store.snapshot_cache(repo_name, first).exists()
    embedder = open_embedder()
    with open_vector_store(embedder.name, embedder.dim) as vectors:
        assert vectors.count(repo_name) == 0 and sum(vectors_freed) > 0


@pytest.mark.parametrize("name", ["", " ", 1, 3, "HEAD", "xyz1", "\x1b[2J"])  # a number: that many digits of the sha
def test_a_snapshot_to_delete_is_named_by_at_least_four_hex_digits_of_its_sha(tmp_path, store, repo_name, name):
    root, sha = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n"})
    invoke_index_json(root, repo_name)
    name = sha[:name] if isinstance(name, int) else name

    refused = one_line_error(invoke_spider("snapshots", "delete", repo_name, name))

    assert refused == (f"spider: error: name the snapshot by at least 4 hex digits of its commit sha, not "
                       f"{name!r} (see `spider snapshots list`)")
    assert store.snapshot_state(repo_name, sha).complete


def test_deleting_the_last_snapshot_removes_the_repository_and_its_cache_folder(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n"})
    invoke_index_json(root, repo_name)
    snapshot_members(store, repo_name, sha)  # a query's cache of the snapshot
    repositories = "MATCH (r:Repository {repo: $repo}) RETURN count(r)"
    assert store.read(repositories, {"repo": repo_name})[1] == [[1]]

    succeeded(invoke_spider("snapshots", "delete", repo_name, sha[:4].upper()))

    assert store.read(repositories, {"repo": repo_name})[1] == [[0]]
    assert not store.snapshot_cache(repo_name, sha).parent.exists()
    assert store.list_snapshots(repo_name) == []
    assert invoke_index_json(root, repo_name)["versions"]["seq"] == 1  # indexed again from scratch
    assert store.read(repositories, {"repo": repo_name})[1] == [[1]]


def test_prune_keeps_the_newest_snapshots_and_the_vectors_they_share(tmp_path, store, repo_name):
    root, first = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n"})
    _, second = make_repo(root, {"a.py": "def one():\n    return 1\n", "b.py": "def two():\n    return 2\n"})
    _, third = make_repo(root, {"a.py": "def one():\n    return 11\n", "b.py": "def two():\n    return 2\n"})
    for rev in (first, second, third):
        invoke_index_json(root, repo_name, "--rev", rev)

    dry = succeeded(invoke_spider("snapshots", "prune", "--keep", "1", "--repo", repo_name, "--dry-run"))
    assert dry.splitlines() == [f"would delete {repo_name} @ {second}", f"would delete {repo_name} @ {first}"]
    assert len(json.loads(succeeded(invoke_spider("snapshots", "list", "--repo", repo_name, "--json")))) == 3
    pruned = succeeded(invoke_spider("snapshots", "prune", "--keep", "1", "--repo", repo_name))

    assert [line.split(" (")[0] for line in pruned.splitlines()] == [
        f"deleted {repo_name} @ {second}", f"deleted {repo_name} @ {first}"]
    rows = json.loads(succeeded(invoke_spider("snapshots", "list", "--repo", repo_name, "--json")))
    assert [r["snapshot"] for r in rows] == [third]
    embedder = open_embedder()
    with open_vector_store(embedder.name, embedder.dim) as vectors:
        assert vectors.count(repo_name) == 2  # third's one() and two(); two() was shared with second: kept
    again = succeeded(invoke_spider("snapshots", "prune", "--keep", "1", "--repo", repo_name))
    assert again.startswith("nothing to prune")


# 5. re-indexing and help -------------------------------------------------------------------------
def test_indexing_the_same_commit_twice_says_nothing_changed(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", PYTHON.files)

    first = succeeded(invoke_spider("index", root, "--repo", repo_name)).splitlines()
    nodes = node_count(store, repo_name)
    second = succeeded(invoke_spider("index", root, "--repo", repo_name)).splitlines()

    assert first[0].startswith(f"indexed {repo_name} @ {sha} (HEAD) in ")
    assert second[0] == f"already indexed (nothing changed) {repo_name} @ {sha} (HEAD)"
    assert second[1:] == [line for line in first[1:] if not line.startswith("  seconds: ")]
    assert node_count(store, repo_name) == nodes


@pytest.mark.parametrize("command, mentions", [
    ([], ["index", "neo4j", "snapshots", "cypher", "--version", "--help", "NEO4J_URI", "SPIDER_HOME"]),
    (["index"], ["PATH", "--repo", "--rev", "--force", "--json"]),
    (["cypher"], ["QUERY", "--param", "--repo", "--json", "READ-ONLY", "neighbourhood", "file_outline"]),
])
def test_help_mentions_the_options(command, mentions):
    out = succeeded(invoke_spider(*command, "--help"))

    assert out.startswith(f"Usage: spider {' '.join(command)}".rstrip() + " [OPTIONS]")
    assert [m for m in mentions if m not in out] == []


def test_the_console_scripts_run():
    """Both commands pyproject.toml installs exist and start (the other tests run them in this process)."""
    spider, query = run_spider("--help"), spider_query("--help")

    assert succeeded(spider).startswith("Usage: spider [OPTIONS] COMMAND [ARGS]...")
    assert succeeded(query).startswith("Usage: spider-query [OPTIONS] [ISSUE]")


def test_a_bug_is_one_line_and_exit_70_as_a_shell_sees_it(tmp_path):
    """What spider does not foresee (planted at start-up: `spider neo4j status` raises) ends the process with exit 70
    and one line, as the console script runs."""
    (tmp_path / "sitecustomize.py").write_text(  # Python imports it at start-up, from PYTHONPATH
        "from spider.indexer.graph import neo4j_local\n\n\n"
        "def broken(*args, **kwargs):\n    raise RuntimeError('planted bug')\n\n\n"
        "neo4j_local.status = broken\n")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))

    result = run_spider("neo4j", "status", env={"PYTHONPATH": path, "SPIDER_DEBUG": ""})

    assert result.returncode == UNEXPECTED_EXIT == 70 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "spider: error: unexpected RuntimeError: planted bug (run `spider --debug ...` or set SPIDER_DEBUG=1 for the "
        "traceback)"]
