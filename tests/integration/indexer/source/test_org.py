"""`spider org index` without a broker (everything runs here): path and URL repositories, several revisions,
the mirror cache fetched again on the next run, and a repository that cannot be fetched failing alone."""

from __future__ import annotations

import json

from spider.core.settings import path_name
from spider.indexer.graph import jobs

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import FIXTURES
from tests.integration.helpers import invoke_spider


def test_org_index_runs_every_repository_and_revision(tmp_path, store, repo_name):
    local, first = make_repo(tmp_path / "local", FIXTURES["python"].files)
    _, second = make_repo(local, {**FIXTURES["python"].files, "extra.py": "def extra():\n    return 1\n"}, message="two")
    remote, remote_head = make_repo(tmp_path / "remote", FIXTURES["java"].files)
    manifest = tmp_path / "org.yaml"
    manifest.write_text(f"""
repos:
  - {{path: {local}, name: {repo_name}-local, revs: [{first}, {second}]}}
  - {{url: "file://{remote}", name: {repo_name}-remote}}
  - {{url: "file://{tmp_path}/missing.git", name: {repo_name}-missing}}
""")
    env = {"SPIDER_BROKER_URL": "", "SPIDER_REPO_CACHE": str(tmp_path / "cache")}

    result = invoke_spider("org", "index", manifest, "--json", env=env)

    assert result.returncode == 1, result.stderr  # one repository failed; the others were indexed
    outcomes = {o["repo"]: o for o in json.loads(result.stdout)}
    assert outcomes[f"{repo_name}-local"]["status"] == outcomes[f"{repo_name}-remote"]["status"] == "done"
    assert outcomes[f"{repo_name}-missing"]["status"] == "failed"
    assert "cannot fetch" in outcomes[f"{repo_name}-missing"]["error"]
    for repo, sha in ((f"{repo_name}-local", first), (f"{repo_name}-local", second), (f"{repo_name}-remote", remote_head)):
        assert store.snapshot_state(repo, sha).complete, (repo, sha)
    (parent,) = jobs.list_jobs(store, outcomes[f"{repo_name}-local"]["job"])
    assert parent["state"] == "done" and len(parent["children"]) == 2
    (failed,) = jobs.list_jobs(store, outcomes[f"{repo_name}-missing"]["job"])
    assert failed["state"] == "failed" and "cannot fetch" in failed["errors"][0]
    assert (tmp_path / "cache" / f"{path_name(f'{repo_name}-remote')}.git").is_dir()

    _, newer = make_repo(remote, {**FIXTURES["java"].files, "src/Extra.java": "class Extra { void go() {} }\n"},
                         message="newer")  # lands upstream; the next run fetches the mirror
    again = invoke_spider("org", "index", manifest, "--json", env=env)
    assert store.snapshot_state(f"{repo_name}-remote", newer).complete, again.stderr


def test_a_manifest_that_cannot_be_read_is_a_one_line_error(tmp_path):
    result = invoke_spider("org", "index", tmp_path / "nope.yaml", env={"SPIDER_BROKER_URL": ""})
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "cannot read manifest" in result.stderr
