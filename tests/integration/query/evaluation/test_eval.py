"""`spider eval` end to end on a generated repository with synthetic issues: indexing at each base commit,
every method, matching, summary, resumption, and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from spider.query.evaluation.run import Instance, oldest_first
from spider.query.evaluation.train_selector import DumpedProposal, load_proposals

from tests.fixtures.gitrepo import git, make_repo
from tests.fixtures.shop import PYTHON
from tests.integration.helpers import invoke_spider


@pytest.fixture
def benchmark(tmp_path, repo_name) -> tuple[Path, Path, str]:
    """repos/<owner>+<name>/repo with two commits, and a benchmark of three instances on them."""
    owner, name = repo_name.split("/")
    root, first = make_repo(tmp_path / "repos" / f"{owner}+{name}" / "repo", PYTHON.files)
    changed = dict(PYTHON.files)
    changed["shop/payments.py"] = PYTHON.files["shop/payments.py"].replace("return amount", "return round(amount, 2)")
    _, second = make_repo(root, changed, message="round")
    assert git(root, "rev-parse", "HEAD") == second
    bench = tmp_path / "bench"
    bench.mkdir()
    instances = [
        {"instance_id": "i-charge", "repo": repo_name, "language": "python", "base_commit": first,
         "problem_statement": "charge sends the wrong amount: _send should round the amount"},
        {"instance_id": "i-receipt", "repo": repo_name, "language": "python", "base_commit": second,
         "problem_statement": "Receipt.render prints the header twice"},
        {"instance_id": "i-ghost", "repo": repo_name, "language": "python", "base_commit": second,
         "problem_statement": "the discount is wrong"},
    ]
    truth = [
        {"instance_id": "i-charge", "functions": [
            {"file": "shop/payments.py", "name": "charge", "start_line": 6, "end_line": 7},
            {"file": "shop/payments.py", "name": "_send", "start_line": 10, "end_line": 12}]},
        {"instance_id": "i-receipt", "functions": [
            {"file": "shop/payments.py", "name": "Receipt.render", "start_line": 27, "end_line": 28}]},
        # a target the indexer cannot produce (a line outside every function): counted as unmatched
        {"instance_id": "i-ghost", "functions": [
            {"file": "shop/models.py", "name": "apply_discount.clamp", "start_line": 27, "end_line": 28},
            {"file": "shop/constants.py", "name": "RATE", "start_line": 1, "end_line": 1}]},
    ]
    (bench / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in instances))
    (bench / "ground_truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in truth))
    (bench / "subsets.json").write_text(json.dumps({"quick": ["i-charge", "i-receipt"], "dev": [r["instance_id"] for r in instances]}))
    return bench, tmp_path / "repos", repo_name


def test_eval_indexes_each_commit_runs_every_method_and_resumes(benchmark, tmp_path):
    bench, repos, repo = benchmark
    out = tmp_path / "out"
    args = ("eval", "--bench", str(bench), "--repos", str(repos), "--out", str(out), "-k", "2", "-k", "5", "-n", "50", "-c", "3")

    result = invoke_spider(*args, "--subset", "quick")

    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in rows] == ["i-charge", "i-receipt"]
    assert rows[0]["snapshot"] != rows[1]["snapshot"] and all(r["indexing"]["indexed"] for r in rows)
    methods = rows[0]["methods"]
    edges = ("contains:4", "invokes:2", "contains:4,invokes:2")
    assert set(methods) == {"der", "sr", "hybrid"} | {
        f"{g}/{s}/{e}" for g, s in (("spider", "learned"), ("spider", "all"), ("spider", "oracle"),
                                    ("spider-dense", "learned"), ("spisr", "learned")) for e in edges}
    assert len(methods["der"]["2"]["ids"]) == 2 and len(methods["spider/oracle/contains:4"]["5"]["ids"]) == 5
    # the oracle reaches _send from charge or charge from _send whenever either is a seed: it never does worse
    for k in ("2", "5"):
        hit = lambda m: len({t for h in methods[m][k]["hits"] for t in h})
        assert hit("spider/oracle/contains:4") >= hit("der")
        assert methods["spider/oracle/contains:4"][k]["admitted_hits"] == methods["spider/oracle/contains:4"][k]["admitted"]
    assert rows[0]["locality"]["target_nodes"] == ["shop/payments.py:charge", "shop/payments.py:_send"]
    assert rows[0]["locality"]["pair_hops"] == [2]  # siblings in one file
    assert_training_dump_replays_the_oracle(out, rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["instances"] == 2 and set(summary["groups"]) == {"all", "python"}
    assert summary["locality"]["all"]["multi_target_instances"] == 1 and summary["locality"]["all"]["share_within_2"] == 1
    assert "| der |" in (out / "summary.md").read_text()

    again = invoke_spider(*args, "--subset", "dev")  # resumes: only i-ghost is new; its snapshot is reused

    assert again.returncode == 0, again.stderr
    assert "3 instances, 2 already done, 1 to run" in again.stderr and "(reused)" in again.stderr
    rows = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in rows] == ["i-charge", "i-receipt", "i-ghost"]
    assert rows[2]["unmatched_targets"] == [{"path": "shop/constants.py", "start_line": 1, "end_line": 1}]
    assert json.loads((out / "summary.json").read_text())["unmatched_targets"]["count"] == 1


def assert_training_dump_replays_the_oracle(out: Path, rows: list[dict]) -> None:
    """candidates.jsonl holds each proposal's features and labels; admitting its labelled candidates through the
    offline replay gives exactly what the oracle answered online."""
    dumped = [DumpedProposal(json.loads(line)) for line in (out / "candidates.jsonl").read_text().splitlines()]
    assert {(p.row["origin"], p.row["tests"], p.row["edges"], p.row["c"]) for p in dumped} == {
        (origin, "exclude", edges, c) for origin in ("hybrid", "dense", "bm25")
        for edges in ("contains:4", "invokes:2", "contains:4,invokes:2") for c in (2, 3)}  # -c 3: K=2 has 2 seeds
    assert {p.row["c"] for p in load_proposals(out / "candidates.jsonl")} == {3}  # training uses K >= c
    by_instance = {r["instance_id"]: r for r in rows}
    for proposal in (p for p in dumped if p.row["origin"] == "hybrid"):
        k = {2: "2", 3: "5"}[proposal.row["c"]]
        online = by_instance[proposal.row["instance_id"]]["methods"][f"spider/oracle/{proposal.row['edges']}"][k]
        offline = proposal.replay(proposal.y.astype(bool), int(k))
        assert offline["ids"] == online["ids"] and offline["hits"] == online["hits"]
    labels = sum(int(p.y.sum()) for p in dumped if p.row["origin"] == "dense")
    assert labels > 0  # Receipt.render is offered under the dense seed Receipt.header at K=2


@pytest.mark.parametrize("extra, message", [
    (("--method", "spider/learned"), "unknown method 'spider/learned'"),
    (("--method", "spider/learned/calls:2"), "unknown relationship type 'calls'"),
    (("--subset", "nope"), "lacks subset 'nope'"),
])
def test_eval_errors_are_one_line(benchmark, tmp_path, extra, message):
    bench, repos, _ = benchmark
    result = invoke_spider("eval", "--bench", str(bench), "--repos", str(repos), "--out", str(tmp_path / "o"), *extra)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and message in lines[0], result.stderr


def test_a_repository_missing_from_the_repos_dir_is_a_one_line_error(benchmark, tmp_path):
    bench, _, repo = benchmark
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke_spider("eval", "--bench", str(bench), "--repos", str(empty), "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and f"no git repository for {repo}" in result.stderr


def test_train_selector_errors_are_one_line(benchmark, tmp_path):
    bench, repos, _ = benchmark
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke_spider("train-selector", "--from", str(empty), "--version", "x", "--out", str(tmp_path / "m.json"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "no training data" in result.stderr
    out = tmp_path / "out"
    assert invoke_spider("eval", "--bench", str(bench), "--repos", str(repos), "--out", str(out), "--subset", "quick",
                  "-k", "5", "-n", "50", "--method", "der", "--method", "spider/oracle/contains:4").returncode == 0
    result = invoke_spider("train-selector", "--from", str(out), "--version", "x", "--out", str(tmp_path / "m.json"))
    assert result.returncode == 2 and "at least two repositories" in result.stderr
    assert not (tmp_path / "m.json").exists()


def test_an_instance_that_fails_is_recorded_and_the_others_are_evaluated(benchmark, tmp_path):
    bench, repos, repo = benchmark
    with (bench / "instances.jsonl").open("a") as handle:  # a base commit the repository does not have
        handle.write(json.dumps({"instance_id": "i-bad", "repo": repo, "language": "python",
                                 "base_commit": "0" * 40, "problem_statement": "anything"}) + "\n")
    with (bench / "ground_truth.jsonl").open("a") as handle:
        handle.write(json.dumps({"instance_id": "i-bad", "functions": [
            {"file": "shop/payments.py", "name": "charge", "start_line": 6, "end_line": 7}]}) + "\n")
    out = tmp_path / "out"

    result = invoke_spider("eval", "--bench", str(bench), "--repos", str(repos), "--out", str(out), "-k", "5", "-n", "50",
                    "--method", "der")

    assert result.returncode == 1 and "1 instance(s) failed" in result.stderr and "i-bad" in result.stderr
    assert "Traceback" not in result.stderr
    rows = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    assert sorted(r["instance_id"] for r in rows) == ["i-charge", "i-ghost", "i-receipt"]
    (failure,) = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert failure["instance_id"] == "i-bad" and "unknown revision" in failure["error"]
    assert json.loads((out / "summary.json").read_text())["instances"] == 3


def test_instances_run_oldest_commit_first_per_repository(tmp_path, repo_name):
    owner, name = repo_name.split("/")
    root = tmp_path / "repos" / f"{owner}+{name}" / "repo"
    shas = {}
    for month in ("03", "01", "02"):  # committed in this order, dated otherwise
        make_repo(root, {f"m{month}.py": "def f():\n    return 1\n"}, message=month)
        date = f"2026-{month}-01T00:00:00Z"
        subprocess.run(["git", "-C", str(root), "commit", "-q", "--amend", "--no-edit", "--date", date],
                       check=True, env={**os.environ, "GIT_COMMITTER_DATE": date})
        shas[month] = git(root, "rev-parse", "HEAD")
    instances = [Instance(f"i-{month}", repo_name, "python", sha, "", ()) for month, sha in shas.items()]
    unknown = Instance("i-unknown", repo_name, "python", "f" * 40, "", ())

    ordered = oldest_first([*instances, unknown], {repo_name: root})

    assert [i.id for i in ordered] == ["i-unknown", "i-01", "i-02", "i-03"]
