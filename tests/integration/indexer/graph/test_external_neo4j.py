"""NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD point spider at another server: same code paths, no local server."""

from __future__ import annotations

import os
import subprocess

from tests.fixtures.gitrepo import make_repo


def test_index_and_query_an_external_server_without_starting_a_local_one(tmp_path, neo4j_settings, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", {"m.py": "def g():\n    return 1\n\ndef f():\n    return g()\n"})
    empty_home = tmp_path / "home"
    env = {
        **os.environ, "SPIDER_HOME": str(empty_home), "NEO4J_URI": neo4j_settings.uri,
        "NEO4J_USER": neo4j_settings.user, "NEO4J_PASSWORD": neo4j_settings.password,
    }

    indexed = subprocess.run(  # --no-embed: this home has no embedding model; the Neo4j path is under test
        ["spider", "index", str(root), "--repo", repo_name, "--no-embed"], env=env, capture_output=True, text=True
    )
    callers = subprocess.run(
        ["spider", "cypher", "callers", "--repo", repo_name, "-p", "id=m.py:g", "--json"],
        env=env, capture_output=True, text=True,
    )

    assert indexed.returncode == 0, indexed.stderr
    assert callers.returncode == 0, callers.stderr
    assert '"caller": "m.py:f"' in callers.stdout
    assert store.snapshot_state(repo_name, sha).complete is True
    assert not (empty_home / "neo4j" / "server.json").exists()  # nothing local was started


def test_wrong_password_for_an_external_server_is_one_line_and_exit_2(tmp_path, neo4j_settings, repo_name):
    root, _ = make_repo(tmp_path / "repo", {"m.py": "def g():\n    return 1\n"})
    env = {**os.environ, "NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": "neo4j", "NEO4J_PASSWORD": "wrong"}

    result = subprocess.run(["spider", "index", str(root), "--repo", repo_name], env=env, capture_output=True, text=True)

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"spider: error: Neo4j at {neo4j_settings.uri} refused the credentials (check NEO4J_USER/NEO4J_PASSWORD)"
    ]
