"""Does another decision rule (or model) make the learned selector add to the first stage? (issue 20)

Out of fold, the default pipeline (hybrid first stage, contains:4 + invokes:2, learned selector) is no better
than the hybrid first stage alone: the candidates the selector admits are targets about as often as the places
they displace. From one `spider eval` results directory (its candidates.jsonl and instances.jsonl), the default
pipeline's proposals are answered leave-one-repository-out, each fold's regression fit as `spider
train-selector` fits it, with the decision made seven ways and replayed through the real exchange at K=20:

- `recipe`: the threshold with the best training Recall@20 among those that keep 95% of the instances the first
  stage solves (`spider train-selector`'s; ties go to the higher);
- `tolerance T`: the highest threshold whose training Recall@20 is within T of that best;
- `per language`: the 95% kept in every training language, not over all of them;
- `support`: the recipe's admissions, evicting the places whose better rank in DER or BM25 alone is the worst
  (not the lowest places of the fused ranking);
- `place rates`: candidates admitted best first while their probability beats the rate at which the training
  folds' first stage holds a target at the place the admission displaces;
- `gradient boosting`: another model on the same features (scikit-learn's HistGradientBoostingClassifier, one
  setting, not tuned: `BOOSTING`), its threshold chosen as the recipe chooses it;
- `gradient boosting, tuned`: the same, its setting (of `BOOSTING_GRID`) chosen inside the training folds: the one
  whose models, fit on the training repositories less one of `INNER_FOLDS` groups of them, rank that group's
  candidates best (mean average precision). The held-out repository is never seen.

    python bench/selector_decisions.py --eval RESULTS --out bench/results/selector_decisions.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from environment import spider_commit  # noqa: E402 - bench/environment.py
from spider.indexer.errors import SpiderError  # noqa: E402
from spider.query.evaluation.metrics import accuracy_at, paired_bootstrap_p, recall_at  # noqa: E402
from spider.query.evaluation.run import instance_rows  # noqa: E402
from spider.query.evaluation.train_selector import (  # noqa: E402
    THRESHOLD_K,
    THRESHOLDS,
    Proposal,
    allowed_thresholds,
    best_threshold,
    fit,
    load_proposals,
    probabilities_of,
    recall_curve,
    repository_folds,
    threshold_outcomes,
)
from spider.query.retrieve.test_policy import DEFAULT_TESTS  # noqa: E402

K = THRESHOLD_K
EDGES = "contains:4,invokes:2"
TOLERANCES = (0.002, 0.005)
BOOSTING = {"max_iter": 200, "learning_rate": 0.05, "max_leaf_nodes": 15, "min_samples_leaf": 50,
            "l2_regularization": 1.0, "random_state": 0}
BOOSTING_GRID = [{**BOOSTING, "max_leaf_nodes": leaves, "min_samples_leaf": leaf}
                 for leaves in (7, 15) for leaf in (50, 200)]
INNER_FOLDS = 4
Decision = Callable[[Proposal, np.ndarray], dict]  # (proposal, probabilities) -> the replayed cell at K


def allowed(proposals: list[Proposal], curves: list[np.ndarray]) -> list[int]:
    """The thresholds (indices) the recipe may choose from on these training answers."""
    return allowed_thresholds(threshold_outcomes(proposals, curves)[1])


def within(curves: list[np.ndarray], candidates: list[int], tolerance: float) -> float:
    """The highest of `candidates` whose mean training Recall@K is within `tolerance` of their best."""
    recall = np.mean(curves, axis=0)
    best = max(recall[i] for i in candidates)
    return THRESHOLDS[max(i for i in candidates if recall[i] >= best - tolerance)]


def per_language(proposals: list[Proposal], curves: list[np.ndarray]) -> list[int]:
    """The thresholds that keep 95% of the solved instances in every training language."""
    ok = set(range(len(THRESHOLDS)))
    for language in {p.row["language"] for p in proposals}:
        mine = [(p, c) for p, c in zip(proposals, curves) if p.row["language"] == language]
        ok &= set(allowed([p for p, _ in mine], [c for _, c in mine]))
    return sorted(ok) or [len(THRESHOLDS) - 1]


def place_rates(proposals: list[Proposal]) -> np.ndarray:
    """Per place 1..K of the first stage, how often it holds a target (one proposal per instance), made
    non-increasing with the place."""
    tops = [p.row for p in proposals if len(p.row["top"]) >= K]
    rates = np.mean([[bool(row["hits"][i]) for i in row["top"][:K]] for row in tops], axis=0)
    return np.maximum.accumulate(rates[::-1])[::-1]


def by_place_rates(rates: np.ndarray) -> Decision:
    def decide(proposal: Proposal, probability: np.ndarray) -> dict:
        in_top = set(proposal.row["top"][:K])
        best: dict[str, float] = {}
        for candidate, p in zip(proposal.row["candidates"], probability):
            if candidate["id"] not in in_top:
                best[candidate["id"]] = max(best.get(candidate["id"], 0.0), p)
        chosen = set()
        for n, node_id in enumerate(sorted(best, key=lambda i: (-best[i], i))):
            place = K - n  # the place this admission displaces
            if place <= proposal.row["c"] or best[node_id] <= rates[place - 1]:
                break
            chosen.add(node_id)
        return proposal.replay(np.array([c["id"] in chosen for c in proposal.row["candidates"]]), K)
    return decide


def at_threshold(threshold: float, support: dict[str, dict[str, int]] | None = None) -> Decision:
    """Admit from `threshold`; with `support` ({instance: {id: better rank in DER or BM25}}), evict the places
    with the worst such rank first (Recall@K counts the set of K answers, so reordering S_K is enough)."""
    def decide(proposal: Proposal, probability: np.ndarray) -> dict:
        if support is not None:
            ranks = support[proposal.row["instance_id"]]
            top = proposal.row["top"]
            order = sorted(range(K), key=lambda n: (ranks.get(top[n], 10 ** 6), n))
            proposal = Proposal({**proposal.row, "top": [top[n] for n in order] + top[K:]})
        return proposal.replay(probability >= threshold, K)
    return decide


def supports(rows: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Each instance's functions by their better place in DER's or BM25's own top 50 (test code excluded)."""
    out: dict[str, dict[str, int]] = {}
    for instance, row in rows.items():
        best: dict[str, int] = {}
        for method in ("der", "sr"):
            for place, node_id in enumerate(row["methods"][method]["50"]["ids"], start=1):
                best[node_id] = min(best.get(node_id, place), place)
        out[instance] = best
    return out


def boosting_model(train: list[Proposal], setting: dict):
    from sklearn.ensemble import HistGradientBoostingClassifier

    fitted = [p for p in train if p.row["candidates"]]
    return HistGradientBoostingClassifier(**setting).fit(np.vstack([p.x for p in fitted]),
                                                         np.concatenate([p.y for p in fitted]))


def tuned_setting(train: list[Proposal]) -> dict:
    """The setting of BOOSTING_GRID whose models rank held-out training repositories' candidates (of the default
    expansion) best: INNER_FOLDS groups of repositories, dealt largest first; mean average precision."""
    from sklearn.metrics import average_precision_score

    sizes: dict[str, int] = {}
    for p in train:
        sizes[p.row["repo"]] = sizes.get(p.row["repo"], 0) + (p.row["edges"] == EDGES)
    group = {repo: n % INNER_FOLDS for n, repo in enumerate(sorted(sizes, key=lambda r: (-sizes[r], r)))}
    scores = []
    for setting in BOOSTING_GRID:
        precision = []
        for fold in range(INNER_FOLDS):
            held = [p for p in train if group[p.row["repo"]] == fold and p.row["edges"] == EDGES and p.row["candidates"]]
            y = np.concatenate([p.y for p in held]) if held else np.zeros(0)
            if y.sum():
                model = boosting_model([p for p in train if group[p.row["repo"]] != fold], setting)
                precision.append(average_precision_score(y, model.predict_proba(np.vstack([p.x for p in held]))[:, 1]))
        scores.append(np.mean(precision))
    return BOOSTING_GRID[int(np.argmax(scores))]


def boosted(train: list[Proposal], mine: list[Proposal],
            setting: dict = BOOSTING) -> tuple[Callable[[Proposal], np.ndarray], float]:
    """A gradient-boosted model of the training candidates, and its threshold chosen as the recipe's is."""
    model = boosting_model(train, setting)

    def probability(proposal: Proposal) -> np.ndarray:
        return model.predict_proba(proposal.x)[:, 1] if proposal.row["candidates"] else np.zeros(0)

    return probability, best_threshold(mine, [recall_curve(p, probability(p)) for p in mine])


def answers(proposals: list[Proposal], rows: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """{way: {instance: cell}}, every repository answered by models fit on the others."""
    ranks = supports(rows)
    ways: dict[str, dict[str, dict]] = {}
    for repo, train, test in repository_folds(proposals):
        weights = fit(train)  # every expansion's proposals, as `spider train-selector` fits a first stage
        mine = [p for p in train if p.row["edges"] == EDGES]
        curves = [recall_curve(p, probabilities_of(weights, p)) for p in mine]
        recipe = weights.threshold_for(EDGES)
        decisions = {"recipe": at_threshold(recipe),
                     **{f"tolerance {t}": at_threshold(within(curves, allowed(mine, curves), t))
                        for t in TOLERANCES},
                     "per language": at_threshold(within(curves, per_language(mine, curves), 0.0)),
                     "support": at_threshold(recipe, ranks), "place rates": by_place_rates(place_rates(mine))}
        setting = tuned_setting(train)
        untuned = boosted(train, mine)
        models = {"gradient boosting": untuned,  # the tuned setting may be BOOSTING itself: the same model then
                  "gradient boosting, tuned": untuned if setting == BOOSTING else boosted(train, mine, setting)}
        for proposal in (p for p in test if p.row["edges"] == EDGES):
            probability = probabilities_of(weights, proposal)
            for way, decide in decisions.items():
                ways.setdefault(way, {})[proposal.row["instance_id"]] = decide(proposal, probability)
            for way, (boosted_probability, boosted_threshold) in models.items():
                ways.setdefault(way, {})[proposal.row["instance_id"]] = at_threshold(boosted_threshold)(
                    proposal, boosted_probability(proposal))
        print(f"held out {repo}: tuned boosting {setting['max_leaf_nodes']} leaves, "
              f"{setting['min_samples_leaf']} per leaf", file=sys.stderr)
    return ways


def table(ways: dict[str, dict[str, dict]], rows: dict[str, dict]) -> list[str]:
    lines = ["| way | group | instances | R@20 | p vs recipe | p vs hybrid alone | DER-solved kept | admitted | "
             "admitted targets | displaced targets |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    languages = sorted({row["language"] for row in rows.values()})
    hybrid = {i: row["methods"]["hybrid"][str(K)] for i, row in rows.items()}
    for way, cells in {"hybrid alone": hybrid, **ways}.items():
        for group in ("all", *languages):
            ids = sorted(i for i in ways["recipe"] if group in ("all", rows[i]["language"]))
            recall = [recall_at(cells[i]["hits"], rows[i]["m"], K) for i in ids]
            against = {name: [recall_at(c[i]["hits"], rows[i]["m"], K) for i in ids]
                       for name, c in (("recipe", ways["recipe"]), ("hybrid", hybrid))}
            solved = [i for i in ids if accuracy_at(rows[i]["methods"]["der"][str(K)]["hits"], rows[i]["m"], K) == 1]
            kept = sum(accuracy_at(cells[i]["hits"], rows[i]["m"], K) for i in solved)
            counts = [sum(cells[i].get(key, 0) for i in ids) for key in ("admitted", "admitted_hits", "displaced_hits")]
            p = [f"{paired_bootstrap_p(recall, against[name]):.3f}" if cells is not source else ""
                 for name, source in (("recipe", ways["recipe"]), ("hybrid", hybrid))]
            lines.append(f"| {way} | {group} | {len(ids)} | {np.mean(recall):.3f} | {p[0]} | {p[1]} | "
                         f"{kept:.0f} of {len(solved)} | " + " | ".join(map(str, counts)) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, required=True, help="a `spider eval` results directory")
    parser.add_argument("--out", type=Path, help="also write the table here (markdown, and .json beside it)")
    args = parser.parse_args()
    proposals, rows = default_proposals(args.eval)
    ways = answers(proposals, rows)
    lines = table(ways, rows)
    print("\n".join(lines))
    if args.out:
        write_results(args.out, "Another decision rule or model for the learned selector?",
                      "(see the script's docstring for the ways)", lines, ways)


def default_proposals(eval_dir: Path) -> tuple[list[Proposal], dict[str, dict]]:
    """The default pipeline's proposals (every expansion's: a first stage's regression is fit on them all) and the
    instances of a `spider eval` results directory; a one-line exit naming the script where it holds none."""
    script = Path(sys.argv[0]).name
    if not (eval_dir / "instances.jsonl").is_file():
        raise SystemExit(f"{script}: {eval_dir} holds no instances.jsonl (a `spider eval --out` directory)")
    try:
        proposals = [p for p in load_proposals(eval_dir / "candidates.jsonl") if p.stage == ("hybrid", DEFAULT_TESTS)]
        rows = {row["instance_id"]: row for row in instance_rows(eval_dir)}
    except SpiderError as error:
        raise SystemExit(f"{script}: {error}") from None
    if not any(p.row["edges"] == EDGES for p in proposals):
        raise SystemExit(f"{script}: {eval_dir} holds no proposals of the default pipeline ({EDGES})")
    return proposals, rows


def write_results(out: Path, title: str, what: str, lines: list[str], ways: dict[str, dict[str, dict]]) -> None:
    """The `table` as markdown at `out` (titled, with the command and spider's commit), each way's answers as JSON
    beside it."""
    out.write_text(f"# {title} (issue 20)\n\n`{' '.join([Path(sys.argv[0]).name, *sys.argv[1:]])}` at spider "
                   f"{spider_commit()['sha'][:7]}: the default pipeline's proposals, each repository answered by "
                   f"models fit on the others, K=20 {what}.\n\n" + "\n".join(lines) + "\n")
    out.with_suffix(".json").write_text(json.dumps(
        {"command": " ".join(sys.argv), "spider": spider_commit(),
         "ways": {way: {i: {k: c.get(k, 0) for k in ("hits", "admitted", "admitted_hits", "displaced_hits")}
                        for i, c in cells.items()} for way, cells in ways.items()}}) + "\n")


if __name__ == "__main__":
    main()
