"""Train the learned selector from `spider eval`'s dump (candidates.jsonl) and measure it honestly.

Every proposal in the dump carries its candidates' features and labels, the first-stage top and every id's
hits, so the selector's effect is replayed offline through the real exchange (`query.exchange`), at every K,
without touching the databases. Cross-validation holds whole repositories out: no repository is in both the
training and the test fold. The admission threshold is the one that maximises mean Recall@`THRESHOLD_K` on the
training folds' instances, among those that keep all but MAX_ACC_DROP of the instances the baseline solves
solved; one per expansion (contains:4, invokes:2, …: each offers candidates of its own kind), and one over all
of them for an expansion the training data lacks. The shipped model is then fit on every repository. Each first
stage (hybrid, dense, bm25) gets its own regression: its ranks and scores mean different things.

scikit-learn fits the logistic regression; the shipped file holds plain weights, so serving needs no sklearn.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
from spider.core.errors import ConfigurationError, InvalidInput, NotFound
from spider.query.evaluation.metrics import recall_at
from spider.query.evaluation.run import read_jsonl
from spider.query.exchange import exchange
from spider.query.retrieve.tests_policy import DEFAULT_TESTS
from spider.query.select.features import FEATURES
from spider.query.select.learned import SelectorModel, Weights

THRESHOLD_K = 20
THRESHOLDS = tuple(float(f"{t:.3g}") for t in np.geomspace(0.002, 0.98, 60))  # a log grid: most proposals score low
REGULARISATION = 1.0  # sklearn's C; standardised features
# sklearn's class_weight. None, unweighted: the probabilities stay calibrated (a threshold means the same share of
# targets from fold to fold); "balanced" inflated the rare positives and moved the thresholds between refits.
CLASS_WEIGHT = None
MAX_ACC_DROP = 0.05  # of the instances DER solves at THRESHOLD_K, the share the threshold may cost


@dataclass
class DumpedProposal:
    """One proposal (instance, first stage, edges, seeds) as `spider eval` dumped it to candidates.jsonl: a
    `graph_steps.Proposal`'s candidates with their features and labels, replayable offline."""

    row: dict

    @cached_property
    def x(self) -> np.ndarray:
        return np.array([c["x"] for c in self.row["candidates"]], dtype=float).reshape(-1, len(FEATURES))

    @cached_property
    def y(self) -> np.ndarray:
        return np.array([c["label"] for c in self.row["candidates"]], dtype=int)

    @cached_property
    def baseline_solves(self) -> bool:
        """The first stage alone finds every target within THRESHOLD_K (DER for spider, BM25 for spisr)."""
        return recall_at([self.row["hits"][i] for i in self.row["top"]], self.row["m"], THRESHOLD_K) == 1.0

    @property
    def stage(self) -> tuple[str, str]:
        """The first stage it was proposed from and how that treated test code: a regression is fit per stage."""
        return self.row["origin"], self.row.get("tests", DEFAULT_TESTS)

    @property
    def method(self) -> str:
        """The `spider eval` method this proposal's out-of-fold answers are, as `learned-cv`."""
        first = {"hybrid": "spider", "dense": "spider-dense", "bm25": "spisr"}[self.row["origin"]]
        tests = self.stage[1]
        return f"{first}/learned-cv/{self.row['edges']}" + (f"@{tests}" if tests != DEFAULT_TESTS else "")

    def replay(self, admit: np.ndarray, k: int) -> dict:
        """The exchange at K with candidates admitted where `admit` is true, as `spider eval` records a cell."""
        row = self.row
        top_k = row["top"][:k]
        seeds = row["seeds"][:min(row["c"], k)]
        by_seed: dict[str, list[str]] = defaultdict(list)
        rank = {}
        for candidate, chosen in zip(row["candidates"], admit):
            rank[candidate["id"]] = candidate["rank"]
            if chosen:
                by_seed[candidate["seed"]].append(candidate["id"])
        result = exchange(top_k, seeds, dict(by_seed), rank)
        hits = row["hits"]  # every id of the top and of the candidates: what it hits, as `spider eval` counts
        in_top = set(top_k)
        return {"ids": result.ranking, "hits": [hits[i] for i in result.ranking],
                "admitted": len(result.admitted), "admitted_hits": sum(bool(hits[i]) for i in result.admitted),
                "displaced": len(result.displaced), "displaced_hits": sum(bool(hits[i]) for i in result.displaced),
                "proposals": len({c["id"] for c in row["candidates"]} - in_top), "tokens": 0}


def load_proposals(path: Path) -> list[DumpedProposal]:
    """The dump's proposals with seeds = c (K >= c); a rerun's duplicate rows replace earlier ones."""
    if not path.is_file():
        raise NotFound(f"no training data at {path}: run `spider eval` first (it writes candidates.jsonl)")
    latest: dict[tuple, dict] = {}
    for row in read_jsonl(path):
        if row.get("features") != list(FEATURES):
            raise InvalidInput(f"{path} was written with features {row.get('features')}, not {list(FEATURES)}: "
                               "rerun `spider eval` into a fresh directory")
        latest[(row["instance_id"], row["origin"], row.get("tests", DEFAULT_TESTS), row["edges"], row["c"])] = row
    seeds = max((row["c"] for row in latest.values()), default=0)
    return [DumpedProposal(row) for row in latest.values() if row["c"] == seeds]


def fit(proposals: list[DumpedProposal], max_acc_drop: float = MAX_ACC_DROP,
        class_weight: str | None = CLASS_WEIGHT) -> Weights:
    """Logistic regression on the proposals' candidates (one first stage; `class_weight` as sklearn's); the
    threshold that maximises their mean Recall@THRESHOLD_K through the exchange (`best_threshold`)."""
    try:
        from sklearn.linear_model import LogisticRegression  # training only: serving reads plain weights
    except ImportError:
        raise ConfigurationError("training needs scikit-learn: pip install 'spider-code[eval]'") from None
    train = [p for p in proposals if p.row["candidates"]]
    y = np.concatenate([p.y for p in train]) if train else np.zeros(0)
    if not len(y) or y.min() == y.max():
        raise InvalidInput("the training data has no positive (or no negative) candidates: nothing to learn from")
    x = np.vstack([p.x for p in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    regression = LogisticRegression(C=REGULARISATION, class_weight=class_weight, max_iter=5000).fit((x - mean) / scale, y)
    fitted = Weights(tuple(mean.tolist()), tuple(scale.tolist()), tuple(regression.coef_[0].tolist()),
                     float(regression.intercept_[0]), 0.5)
    curves = [recall_curve(p, probabilities_of(fitted, p)) for p in train]
    by_edges = {
        edges: best_threshold([p for p in train if p.row["edges"] == edges],
                              [c for p, c in zip(train, curves) if p.row["edges"] == edges], max_acc_drop)
        for edges in sorted({p.row["edges"] for p in train})
    }
    return dataclasses.replace(fitted, threshold=best_threshold(train, curves, max_acc_drop), thresholds=by_edges)


def probabilities_of(weights: Weights, proposal: DumpedProposal) -> np.ndarray:
    if not proposal.row["candidates"]:
        return np.zeros(0)
    z = weights.intercept + ((proposal.x - np.array(weights.mean)) / np.array(weights.scale)) @ np.array(weights.coef)
    return 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))


def admitted(weights: Weights, proposal: DumpedProposal) -> np.ndarray:
    """Which of the proposal's candidates the model admits: as `LearnedSelector` decides, its expansion's threshold."""
    return probabilities_of(weights, proposal) >= weights.threshold_for(proposal.row["edges"])


def recall_curve(proposal: DumpedProposal, probability: np.ndarray) -> np.ndarray:
    """Recall@THRESHOLD_K through the exchange at each of THRESHOLDS. Thresholds that admit as many candidates
    admit the same ones, so the proposal is replayed once per distinct count, not once per threshold."""
    by_count: dict[int, float] = {}
    curve = []
    for threshold in THRESHOLDS:
        admit = probability >= threshold
        count = int(admit.sum())
        if count not in by_count:
            hits = proposal.replay(admit, THRESHOLD_K)["hits"]
            by_count[count] = recall_at(hits, proposal.row["m"], THRESHOLD_K)
        curve.append(by_count[count])
    return np.array(curve)


def threshold_outcomes(proposals: list[DumpedProposal], curves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """At each of THRESHOLDS: (mean Recall@THRESHOLD_K, share of the instances DER solves at THRESHOLD_K that
    stay solved), from the proposals' `recall_curve`s."""
    recall = np.mean(curves, axis=0)
    solved = [curve for proposal, curve in zip(proposals, curves) if proposal.baseline_solves]
    kept = np.mean([curve == 1.0 for curve in solved], axis=0) if solved else np.ones(len(THRESHOLDS))
    return recall, kept


def allowed_thresholds(kept: np.ndarray, max_acc_drop: float = MAX_ACC_DROP) -> list[int]:
    """The indices of THRESHOLDS whose share of DER's solved instances kept (`threshold_outcomes`) is at least
    1 − max_acc_drop (the highest threshold alone if none is)."""
    return [i for i in range(len(THRESHOLDS)) if kept[i] >= 1 - max_acc_drop] or [len(THRESHOLDS) - 1]


def best_threshold(proposals: list[DumpedProposal], curves: list[np.ndarray],
                   max_acc_drop: float = MAX_ACC_DROP) -> float:
    """The threshold with the best mean Recall@THRESHOLD_K among those that keep ≥ 1 − max_acc_drop of DER's
    solved instances solved (`allowed_thresholds`); ties go to the higher threshold."""
    recall, kept = threshold_outcomes(proposals, curves)
    return THRESHOLDS[max(allowed_thresholds(kept, max_acc_drop), key=lambda i: (recall[i], THRESHOLDS[i]))]


def repository_folds(
        proposals: list[DumpedProposal]) -> list[tuple[str, list[DumpedProposal], list[DumpedProposal]]]:
    """(held-out repository, training proposals, test proposals): one fold per repository."""
    repos = sorted({p.row["repo"] for p in proposals})
    if len(repos) < 2:
        raise InvalidInput("repository-held-out cross-validation needs instances from at least two repositories")
    return [(repo, [p for p in proposals if p.row["repo"] != repo], [p for p in proposals if p.row["repo"] == repo])
            for repo in repos]


def cross_validate(proposals: list[DumpedProposal], ks: tuple[int, ...], report=print,
                   max_acc_drop: float = MAX_ACC_DROP, class_weight: str | None = CLASS_WEIGHT,
                   training: list[DumpedProposal] | None = None) -> tuple[dict[str, dict[str, dict]], list[dict]]:
    """Each repository's instances answered by a model fit on the other repositories (per first stage and test
    policy): on their `proposals`, or on their `training` proposals (another dump's: does a model fit on an
    earlier first stage serve this one?).
    Returns {instance_id: {method: {K: cell}}} and each fold's held-out repository and thresholds."""
    cells: dict[str, dict[str, dict]] = defaultdict(dict)
    folds = repository_folds(proposals)
    summaries = []
    for repo, train, test in folds:
        if training is not None:
            train = [p for p in training if p.row["repo"] != repo]
        thresholds = {}
        for stage in sorted({p.stage for p in test}):
            weights = fit([p for p in train if p.stage == stage], max_acc_drop, class_weight)
            thresholds["@".join(stage)] = weights.thresholds
            for proposal in (p for p in test if p.stage == stage):
                admit = admitted(weights, proposal)
                cells[proposal.row["instance_id"]][proposal.method] = {str(k): proposal.replay(admit, k) for k in ks}
        summaries.append({"held_out": repo, "instances": len({p.row["instance_id"] for p in test}),
                          "thresholds": thresholds})
        report(f"fold {len(summaries)}/{len(folds)}: held out {repo} ({summaries[-1]['instances']} instances), "
               f"thresholds {thresholds}")
    return cells, summaries


def train_selector(eval_dir: Path, model_out: Path, version: str, ks: tuple[int, ...], report=print) -> dict:
    """Cross-validate (writing eval_dir/learned_cv.jsonl, which `spider eval`'s summary merges in), then fit on
    every repository and write the model file. Returns what the model file records about its training."""
    everything = load_proposals(eval_dir / "candidates.jsonl")
    cells, folds = cross_validate(everything, ks, report)
    with (eval_dir / "learned_cv.jsonl").open("w") as handle:
        for instance_id, methods in sorted(cells.items()):
            handle.write(json.dumps({"instance_id": instance_id, "methods": methods}) + "\n")
    proposals = [p for p in everything if p.stage[1] == DEFAULT_TESTS]  # what the product serves
    origins = sorted({p.row["origin"] for p in proposals})
    weights = {origin: fit([p for p in proposals if p.row["origin"] == origin]) for origin in origins}
    meta = {"trained_on": {"data": str(eval_dir), "instances": len({p.row["instance_id"] for p in proposals}),
                           "repositories": sorted({p.row["repo"] for p in proposals}),
                           "candidates": {o: int(sum(len(p.row["candidates"]) for p in proposals if p.row["origin"] == o))
                                          for o in origins},
                           "positives": {o: int(sum(p.y.sum() for p in proposals if p.row["origin"] == o and p.row["candidates"]))
                                         for o in origins},
                           "regularisation_C": REGULARISATION, "class_weight": CLASS_WEIGHT,
                           "threshold_maximises": f"mean Recall@{THRESHOLD_K}",
                           "threshold_keeps": f">= {1 - MAX_ACC_DROP:.0%} of the instances DER solves at K={THRESHOLD_K}"},
            "cross_validation": {"scheme": "leave one repository out", "folds": folds}}
    model = SelectorModel(version, weights, meta)
    model_out.parent.mkdir(parents=True, exist_ok=True)
    model_out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    report(f"model {version} (thresholds {({o: w.threshold for o, w in weights.items()})}) written to {model_out}")
    return meta
