"""Two repositories whose names differ only in punctuation keep apart everything spider caches of them."""

from __future__ import annotations

import json

from spider.indexer.source.org import RepoSpec, materialise

from tests.fixtures.gitrepo import git, make_repo
from tests.fixtures.shop import PYTHON
from tests.integration.helpers import (
    ISSUE,
    invoke_index_json,
    invoke_spider,
    invoke_spider_query,
    succeeded,
    unique_name,
)


def test_names_that_differ_in_punctuation_share_no_cache(tmp_path, store):
    root, sha = make_repo(tmp_path / "repo", PYTHON.files)
    prefix = unique_name()
    slash, space = f"{prefix}/x", f"{prefix} x"
    for name in (slash, space):
        invoke_index_json(root, name)

    answers = {}
    for name in (space, slash):  # the first query caches its snapshot's vector-search members
        result = invoke_spider_query(ISSUE, "--repo", name, "--method", "der", "-k", "3", "--json")
        assert result.returncode == 0, result.stderr
        answers[name] = [r["id"] for r in json.loads(result.stdout)["results"]]

    assert answers[slash] == answers[space] and len(answers[slash]) == 3
    assert store.snapshot_cache(slash, sha) != store.snapshot_cache(space, sha)
    succeeded(invoke_spider("snapshots", "delete", slash, sha))
    assert not store.snapshot_cache(slash, sha).exists() and store.snapshot_cache(space, sha).is_dir()


def test_manifest_names_that_differ_in_punctuation_get_their_own_mirror(tmp_path, monkeypatch):
    monkeypatch.setenv("SPIDER_REPO_CACHE", str(tmp_path / "cache"))
    shas = {}
    for name in ("team/x", "team x"):
        origin, shas[name] = make_repo(tmp_path / name.replace("/", "-slash-"), {"a.py": f"NAME = {name!r}\n"})
        mirror = materialise(RepoSpec(name=name, url=origin.as_uri(), path=None, revs=("main",)))
        assert git(mirror, "rev-parse", "main") == shas[name]
    assert shas["team/x"] != shas["team x"] and len(list((tmp_path / "cache").iterdir())) == 2
