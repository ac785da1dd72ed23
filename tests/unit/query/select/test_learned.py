"""The learned selector without services: its features, the model file, serving == sklearn, the offline replay
of the exchange, and repository-held-out training on a synthetic dump."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.linear_model import LogisticRegression
from spider.cli.main import main
from spider.core.errors import SpiderError
from spider.core.settings import path_name
from spider.query.evaluation.metrics import recall_at
from spider.query.evaluation.train_selector import (
    THRESHOLD_K,
    THRESHOLDS,
    DumpedProposal,
    best_threshold,
    cross_validate,
    fit,
    load_proposals,
    probabilities_of,
    recall_curve,
    repository_folds,
    threshold_outcomes,
    train_selector,
)
from spider.query.select.decide import Profile, SelectionRequest
from spider.query.select.features import FEATURES, named_in, request_features
from spider.query.select.learned import SHIPPED_MODEL, LearnedSelector, SelectorModel, Weights


def feature(row: list[float], name: str) -> float:
    return row[FEATURES.index(name)]


def request(issue: str, candidates: list[Profile]) -> SelectionRequest:
    seed = Profile("shop/pay.py:Receipt.render", "def render(self): ...", rank=1, score=0.8)
    return SelectionRequest(issue, seed, candidates, 0, 5, "contains relationships (up to 4 hops)")


def test_features_of_a_candidate():
    assert {"Parser.parse", "parse", "Parser", "tokens"} <= named_in("Parser.parse drops tokens")
    sibling = Profile("shop/pay.py:Receipt.header", "def header(self):\n    return title\n", rank=7, score=0.6,
                        hops=2, rel_type="CONTAINS", degree=3, lexical=0.5)
    test = Profile("tests/test_pay.py:test_run", "def test_run(): pass", rank=40, score=0.4, hops=3,
                     rel_type="INVOKES")
    first, second = request_features(request("Receipt.header prints the title twice", [sibling, test]))
    assert feature(first, "qualified_in_issue") == 1 and feature(first, "name_in_issue") == 1
    assert feature(first, "same_file") == 1 and feature(first, "same_class") == 1 and feature(first, "test_file") == 0
    assert feature(first, "contains") == 1 and feature(first, "invokes") == 0 and feature(first, "hops") == 2
    assert feature(first, "score_gap") == pytest.approx(0.2) and feature(first, "lexical") == 0.5
    assert feature(first, "rank_log") == pytest.approx(np.log(7)) and feature(first, "degree_log") == pytest.approx(np.log(4))
    assert feature(first, "name_token_overlap") == 1  # `header` is in the issue
    assert feature(second, "test_file") == 1 and feature(second, "same_file") == 0 and feature(second, "invokes") == 1
    assert feature(second, "name_in_issue") == 0 and len(first) == len(FEATURES)
    assert feature(first, "path_in_issue") == 0 and feature(first, "issue_identifiers_in_code_log") == 0


def test_features_read_the_file_of_a_name_with_colons():
    cast = Profile("shop/pay.py:Receipt.operator std::string", "operator std::string() const", rank=9, score=0.5,
                     hops=2, rel_type="CONTAINS")
    test_cast = Profile("tests/pay_test.cc:Fake.operator std::string", "operator std::string()", rank=12,
                          score=0.4, hops=3, rel_type="INVOKES")
    first, second = request_features(request("the receipt prints garbage", [cast, test_cast]))
    assert feature(first, "same_file") == 1 and feature(first, "same_class") == 1
    assert feature(second, "test_file") == 1 and feature(second, "same_file") == 0


def test_features_that_tie_the_issue_and_the_seed_to_the_code():
    seed = Profile("shop/pay.py:Receipt.render", "def render(self):\n    return self.header()\n", rank=1, score=0.8)
    header = Profile("shop/pay.py:Receipt.header", "def header(self):\n    return render_title(self.order_id)\n",
                       rank=7, score=0.6, hops=2, rel_type="CONTAINS")
    issue = "In shop/pay.py the header shows order_id twice: render_title is called with it"
    (row,) = request_features(SelectionRequest(issue, seed, [header], 0, 5, ""))
    assert feature(row, "path_in_issue") == 1
    assert feature(row, "issue_identifiers_in_code_log") == pytest.approx(np.log(3))  # render_title, order_id
    assert feature(row, "seed_mentions_candidate") == 1 and feature(row, "candidate_mentions_seed") == 0


def model_with(weights: dict[str, float], intercept: float = 0.0, threshold: float = 0.5) -> SelectorModel:
    n = len(FEATURES)
    coef = tuple(weights.get(name, 0.0) for name in FEATURES)
    return SelectorModel("t1", {"dense": Weights((0.0,) * n, (1.0,) * n, coef, intercept, threshold)}, {})


def test_the_selector_admits_what_the_model_scores_above_its_threshold():
    named = Profile("shop/pay.py:tokenize", "", rank=9, score=0.5, hops=2, rel_type="CONTAINS")
    other = Profile("shop/pay.py:reset", "", rank=3, score=0.7, hops=2, rel_type="CONTAINS")
    selector = LearnedSelector(model_with({"name_in_issue": 10.0}, intercept=-5.0))
    decision = selector.decide(request("tokenize drops the last token", [named, other]))
    assert decision.admitted == ["shop/pay.py:tokenize"] and decision.offered == ["shop/pay.py:tokenize", "shop/pay.py:reset"]
    assert selector.name == "learned (logistic regression t1)" and decision.tokens_in == 0
    bm25 = SelectionRequest("tokenize", named, [other], 0, 5, "", first_stage="bm25")
    with pytest.raises(SpiderError, match="no weights for a bm25 first stage"):
        selector.decide(bm25)


def test_serving_weights_reproduce_sklearn_and_the_vectorised_training_path():
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 3.0, size=(300, len(FEATURES)))
    y = (x[:, 0] - 0.5 * x[:, 4] + rng.normal(size=300) > 2).astype(int)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    reference = LogisticRegression().fit((x - mean) / scale, y)
    weights = Weights(tuple(mean), tuple(scale), tuple(reference.coef_[0]), float(reference.intercept_[0]), 0.5)
    expected = reference.predict_proba((x - mean) / scale)[:, 1]
    assert [weights.probability(list(row)) for row in x] == pytest.approx(expected, abs=1e-12)
    row = {"candidates": [{"x": list(r)} for r in x]}
    assert probabilities_of(weights, DumpedProposal(row)) == pytest.approx(expected, abs=1e-12)


def test_model_file_round_trip_and_bad_files(tmp_path):
    path = tmp_path / "m.json"
    model = model_with({"hops": -1.0})
    path.write_text(json.dumps({**model.to_json(), "trained_on": {"instances": 3}}))
    loaded = SelectorModel.load(path)
    assert loaded.weights == model.weights and loaded.meta == {"trained_on": {"instances": 3}}
    path.write_text(json.dumps({**model.to_json(), "features": ["hops"]}))
    with pytest.raises(SpiderError, match="retrain it"):
        SelectorModel.load(path)
    path.write_text(json.dumps({**model.to_json(), "weights": {"dense": {**model.weights["dense"].to_json(), "coef": [1.0]}}}))
    with pytest.raises(SpiderError, match="weights for 1 features"):
        SelectorModel.load(path)
    path.write_text("{not json")
    with pytest.raises(SpiderError, match="is not a learned selector model"):
        SelectorModel.load(path)
    with pytest.raises(SpiderError, match="no learned selector model"):
        SelectorModel.load(tmp_path / "absent.json")


def dumped(instance: str, repo: str, named: bool) -> dict:
    """A proposal: top = t1..t25 (t25 hits target 1 of 2), seed t1 offers two candidates, the named one is a target
    (and carries the name_in_issue feature when `named`)."""
    row = [0.0] * len(FEATURES)
    candidates = []
    for cid, is_named in ((f"{instance}:named", True), (f"{instance}:other", False)):
        x = list(row)
        x[FEATURES.index("name_in_issue")] = float(is_named and named)
        candidates.append({"id": cid, "seed": "t1", "rank": 30 if is_named else 40,
                           "label": is_named, "x": x})
    top = [f"t{i}" for i in range(1, 26)]
    hits = {i: [] for i in top} | {"t25": [1]} | {c["id"]: ([0] if c["label"] else []) for c in candidates}
    return {"instance_id": instance, "repo": repo, "language": "python", "m": 2, "origin": "dense",
            "edges": "contains:4", "c": 2, "seeds": ["t1", "t2"], "top": top, "hits": hits,
            "features": list(FEATURES), "candidates": candidates}


def test_replay_is_the_exchange():
    proposal = DumpedProposal(dumped("i", "r", named=True))
    cell = proposal.replay(np.array([True, False]), 4)
    # the admitted target goes right below its seed t1; the lowest unprotected member of S_4 (t4) makes room
    assert cell["ids"] == ["t1", "i:named", "t2", "t3"] and cell["hits"] == [[], [0], [], []]
    assert (cell["admitted"], cell["admitted_hits"], cell["displaced"], cell["displaced_hits"]) == (1, 1, 1, 0)
    assert proposal.replay(np.array([False, False]), 5)["ids"] == ["t1", "t2", "t3", "t4", "t5"]


def test_replay_counts_a_displaced_target_that_is_no_candidate():
    """t25 hits a target but is no neighbour of any seed: evicting it at K=25 is a displaced hit all the same."""
    cell = DumpedProposal(dumped("i", "r", named=True)).replay(np.array([False, True]), 25)
    assert "t25" not in cell["ids"] and (cell["displaced"], cell["displaced_hits"]) == (1, 1)


def test_training_holds_repositories_out_and_learns_the_signal(tmp_path):
    rows = [dumped(f"{repo}-{i}", repo, named=True) for repo in ("a/x", "b/y", "c/z") for i in range(8)]
    for fold_repo, train, test in repository_folds([DumpedProposal(r) for r in rows]):
        assert {p.row["repo"] for p in test} == {fold_repo} and fold_repo not in {p.row["repo"] for p in train}
    random.Random(0).shuffle(rows)
    (tmp_path / "candidates.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"cut')
    cells, folds = cross_validate(load_proposals(tmp_path / "candidates.jsonl"), (4, 5), report=lambda _: None)
    assert [f["held_out"] for f in folds] == ["a/x", "b/y", "c/z"] and len(cells) == 24
    # the named candidate is always the target: every held-out instance admits it and finds target 0 at K=4
    assert all(c["spider-dense/learned-cv/contains:4"]["4"]["hits"][1] == [0] for c in cells.values())
    out = tmp_path / "model.json"
    meta = train_selector(tmp_path, out, "t9", (4, 5), report=lambda _: None)
    model = SelectorModel.load(out)
    assert model.version == "t9" and model.weights["dense"].coef[FEATURES.index("name_in_issue")] > 0
    assert meta["trained_on"]["instances"] == 24 and meta["trained_on"]["positives"] == {"dense": 24}
    assert len((tmp_path / "learned_cv.jsonl").read_text().splitlines()) == 24


def test_the_command_writes_the_model_under_spider_home_never_over_the_shipped_one(tmp_path):
    rows = [dumped(f"{repo}-{i}", repo, named=True) for repo in ("a/x", "b/y", "c/z") for i in range(8)]
    (tmp_path / "candidates.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    shipped = SHIPPED_MODEL.read_bytes()

    result = CliRunner().invoke(main, ["train-selector", "--from", str(tmp_path), "--version", "t9/../x", "-k", "4"],
                                env={"SPIDER_HOME": str(tmp_path / "home")})

    assert result.exit_code == 0, result.output
    written = tmp_path / "home" / "selectors" / f"learned-{path_name('t9/../x')}.json"
    assert SelectorModel.load(written).version == "t9/../x" and SHIPPED_MODEL.read_bytes() == shipped
    assert result.stderr.splitlines()[-1] == f"serve it: SPIDER_LEARNED_MODEL={written}"


def test_folds_fit_on_another_dump_leave_the_held_out_repository_out_of_it_too():
    """The other dump (an earlier first stage) names the wrong candidate in a/x and b/y: c/z, answered by a model
    fit on those alone, admits no target, though c/z's own rows there (the majority) name the right one."""
    served = [DumpedProposal(dumped(f"{repo}-{i}", repo, named=True))
              for repo in ("a/x", "b/y", "c/z") for i in range(8)]
    training = [DumpedProposal(dumped(f"earlier-{i}", "c/z", named=True)) for i in range(40)]
    for proposal in served[:16]:
        row = json.loads(json.dumps(proposal.row))
        named, other = row["candidates"]
        named["x"], other["x"] = other["x"], named["x"]
        training.append(DumpedProposal(row))

    cells, folds = cross_validate(served, (4,), report=lambda _: None, training=training)

    assert [f["held_out"] for f in folds] == ["a/x", "b/y", "c/z"] and len(cells) == 24
    found = {i: c["spider-dense/learned-cv/contains:4"]["4"]["hits"][1] == [0] for i, c in cells.items()}
    assert not any(found[f"c/z-{i}"] for i in range(8)) and all(found[f"a/x-{i}"] for i in range(8))


def test_the_regression_is_calibrated_so_a_threshold_reads_as_a_share_of_targets():
    """One target among ten candidates: the fitted probabilities average the share of targets, not 0.5 (a weighted
    fit inflates them, and its threshold moves with the share of targets in each fold)."""
    rng = random.Random(5)
    rows = []
    for i in range(40):
        row = dumped(f"i{i}", "r", named=rng.random() < 0.7)  # the feature is a noisy signal
        for n in range(8):
            x = [0.0] * len(FEATURES)
            x[FEATURES.index("name_in_issue")] = float(rng.random() < 0.1)
            row["candidates"].append({"id": f"i{i}:more{n}", "seed": "t1", "rank": 50 + n, "label": False, "x": x})
            row["hits"][f"i{i}:more{n}"] = []
        rows.append(row)
    proposals = [DumpedProposal(r) for r in rows]

    def mean_probability(weights) -> float:
        return np.concatenate([probabilities_of(weights, p) for p in proposals]).mean()

    assert mean_probability(fit(proposals)) == pytest.approx(0.1, abs=0.01)
    assert mean_probability(fit(proposals, class_weight="balanced")) > 0.3  # the recipe it replaced, still comparable


def test_training_needs_two_repositories_and_a_dump(tmp_path):
    with pytest.raises(SpiderError, match="at least two repositories"):
        repository_folds([DumpedProposal(dumped("i", "r", named=True))])
    with pytest.raises(SpiderError, match="run `spider eval` first"):
        load_proposals(tmp_path / "candidates.jsonl")


def test_the_threshold_keeps_the_instances_der_solves():
    gains = DumpedProposal(dumped("gains", "r", named=True))  # admitting its named candidate finds target 0
    solved = dumped("solved", "r", named=True)
    solved["hits"] = {**{i: [] for i in solved["hits"]}, "t19": [0], "t20": [1]}  # DER has both targets at K=20
    for c in solved["candidates"]:
        c["label"] = False
    solved = DumpedProposal(solved)
    probabilities = [np.array([0.5, 0.0]), np.array([0.1, 0.0])]  # a low threshold also admits into `solved`
    curves = [recall_curve(gains, probabilities[0]), recall_curve(solved, probabilities[1])]
    # admitting into `solved` evicts t20, a target: only thresholds above 0.1 keep it solved
    assert best_threshold([gains, solved], curves) == max(t for t in THRESHOLDS if t <= 0.5)
    recall, kept = threshold_outcomes([gains, solved], curves)
    low = THRESHOLDS.index(max(t for t in THRESHOLDS if t <= 0.05))
    high = THRESHOLDS.index(min(t for t in THRESHOLDS if t >= 0.3))
    assert (recall[low], kept[low]) == (0.5, 0.0)  # both at recall 1/2
    assert (recall[high], kept[high]) == (0.75, 1.0)


def test_the_recall_curve_is_the_exchange_replayed_at_every_threshold():
    """Replayed once per number admitted, the curve must equal a replay at each threshold (the reference)."""
    rng = random.Random(3)
    for seed in range(5):
        row = dumped(f"i{seed}", "r", named=True)
        for n in range(8):  # more neighbours of both seeds, some of them hitting the second target
            row["candidates"].append({"id": f"i{seed}:more{n}", "seed": f"t{1 + n % 2}", "rank": 41 + n,
                                      "label": n % 3 == 0, "x": [0.0] * len(FEATURES)})
            row["hits"][f"i{seed}:more{n}"] = [1] if n % 3 == 0 else []
        proposal = DumpedProposal(row)
        probability = np.array([rng.random() ** 3 for _ in proposal.row["candidates"]])
        expected = [recall_at(proposal.replay(probability >= t, THRESHOLD_K)["hits"], proposal.row["m"], THRESHOLD_K)
                    for t in THRESHOLDS]
        assert recall_curve(proposal, probability).tolist() == expected


def test_an_expansion_with_its_own_threshold_uses_it_others_the_general_one(tmp_path):
    named = Profile("shop/pay.py:tokenize", "", rank=9, score=0.5, hops=2, rel_type="CONTAINS")
    base = model_with({"name_in_issue": 10.0}, intercept=-5.0)  # named: p = 0.993
    strict = dataclasses.replace(base.weights["dense"], thresholds={"invokes:2": 0.999})
    model = SelectorModel("t2", {"dense": strict}, {})
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model.to_json()))
    selector = LearnedSelector(SelectorModel.load(path))

    def admitted(edges: str) -> list[str]:
        req = dataclasses.replace(request("tokenize drops the last token", [named]), edges=edges)
        return selector.decide(req).admitted

    assert admitted("contains:4") == ["shop/pay.py:tokenize"] and admitted("invokes:2") == []
