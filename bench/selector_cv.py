"""Should the learned selector be retrained on every language (issue 22, item 5), or for a changed first stage?

From one `spider eval` results directory over the dev split and `dev-more` (its candidates.jsonl), the default
pipeline's selector (the hybrid first stage's regression, test code excluded) is measured three ways, each replayed
offline through the real exchange as `spider train-selector` does:

- `dev-cv`: leave-one-repository-out over the dev split's repositories only (the recipe of the shipped model);
- `all-cv`: leave-one-repository-out over every repository, every language (the retrained recipe);
- `shipped`: the shipped model as it is (in-sample on the repositories it was trained on);
- `fit-on-cv` (with `--fit-on EARLIER`): leave-one-repository-out, each fold's model fit on another results
  directory's proposals of the other repositories (an earlier first stage): does a selector fit there serve
  this first stage as well as one refit on it?

The retrained recipe ships only if it is no worse on the original dev split (a refit for a changed first stage
only if it is better out of fold); `spider train-selector` on the same directory then writes it and its
cross-validated answers. p: paired bootstrap of each way's Recall@20 against `all-cv`'s on the same instances.

    python bench/selector_cv.py --eval RESULTS --bench ../shared/bench --out bench/results/selector_cv.md
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from spider.indexer.errors import SpiderError  # noqa: E402
from spider.query.evaluation.metrics import accuracy_at, paired_bootstrap_p, recall_at  # noqa: E402
from spider.query.evaluation.run import read_jsonl  # noqa: E402
from spider.query.evaluation.train_selector import CLASS_WEIGHT, MAX_ACC_DROP, admitted, cross_validate, load_proposals  # noqa: E402
from spider.query.retrieve.test_policy import DEFAULT_TESTS  # noqa: E402
from spider.query.select.learned import SelectorModel, model_path  # noqa: E402

DEFAULT = "spider/learned-cv/contains:4,invokes:2"
KS = (5, 10, 20, 50)


def shipped_cells(proposals: list, model: SelectorModel) -> dict[str, dict[str, dict]]:
    """Every proposal of a first stage the model has a regression for, answered by the model as it is."""
    cells: dict[str, dict[str, dict]] = {}
    for proposal in proposals:
        weights = model.weights.get(proposal.row["origin"])
        if weights is None:
            continue
        admit = admitted(weights, proposal)
        cells.setdefault(proposal.row["instance_id"], {})[proposal.method] = {
            str(k): proposal.replay(admit, k) for k in KS}
    return cells


def default_stage(directory: Path) -> list:
    """A results directory's proposals from the default first stage (hybrid, test code excluded)."""
    return [p for p in load_proposals(directory / "candidates.jsonl") if p.stage == ("hybrid", DEFAULT_TESTS)]


def recall20(cells: dict[str, dict[str, dict]], row: dict) -> float:
    return recall_at(cells[row["instance_id"]][DEFAULT]["20"]["hits"], row["m"], 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, required=True, help="a `spider eval` results directory")
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--dev-subset", default="dev", help="the original split, of subsets.json")
    parser.add_argument("--max-acc-drop", type=float, default=MAX_ACC_DROP,
                        help="the share of the first stage's solved instances a fold's threshold may cost")
    parser.add_argument("--class-weight", choices=("none", "balanced"), default=str(CLASS_WEIGHT).lower(),
                        help="the regression's class weighting (sklearn's class_weight; none: unweighted)")
    parser.add_argument("--fit-on", type=Path, help="another results directory (an earlier first stage): "
                        "also answer each fold with a model fit on its proposals")
    parser.add_argument("--out", type=Path, help="also write the table here (markdown)")
    args = parser.parse_args()
    subsets = json.loads((args.bench / "subsets.json").read_text())
    if args.dev_subset not in subsets:
        raise SystemExit(f"selector_cv.py: no subset {args.dev_subset!r} in {args.bench / 'subsets.json'}")
    dev = set(subsets[args.dev_subset])
    try:
        proposals = default_stage(args.eval)
        earlier = default_stage(args.fit_on) if args.fit_on else None
    except SpiderError as error:
        raise SystemExit(f"selector_cv.py: {error}") from None
    if not (args.eval / "instances.jsonl").is_file():
        raise SystemExit(f"selector_cv.py: {args.eval} holds no instances.jsonl (a `spider eval --out` directory)")
    rows = {row["instance_id"]: row for row in read_jsonl(args.eval / "instances.jsonl")}
    class_weight = None if args.class_weight == "none" else args.class_weight
    with ProcessPoolExecutor(2) as pool:  # the cross-validations side by side
        dev_cv = pool.submit(cross_validate, [p for p in proposals if p.row["instance_id"] in dev], KS, print,
                             args.max_acc_drop, class_weight)
        all_cv = pool.submit(cross_validate, proposals, KS, print, args.max_acc_drop, class_weight)
        fit_on_cv = earlier and pool.submit(cross_validate, proposals, KS, print, args.max_acc_drop, class_weight,
                                            earlier)
        ways = {"dev-cv": dev_cv.result()[0], "all-cv": all_cv.result()[0],
                "shipped": shipped_cells(proposals, SelectorModel.load(model_path()))}
        if fit_on_cv:
            ways["fit-on-cv"] = fit_on_cv.result()[0]
    languages = sorted({row["language"] for row in rows.values()})
    lines = [f"{DEFAULT} at K=20 (MAX_ACC_DROP {args.max_acc_drop}, class weight {args.class_weight}): R@20, "
             "and of the instances DER solves, how many stay solved", "",
             "| way | group | instances | R@20 | p vs all-cv | DER solves → kept |", "|---|---|---:|---:|---:|---:|"]
    for way, cells in ways.items():
        for group in ("all", "dev", *languages):
            members = [r for i, r in rows.items() if i in cells and (
                group == "all" or (i in dev if group == "dev" else r["language"] == group))]
            if not members:
                continue
            recall = [recall20(cells, r) for r in members]
            against = [recall20(ways["all-cv"], r) for r in members]
            p = "" if way == "all-cv" else f"{paired_bootstrap_p(recall, against):.3f}"
            solved = [r for r in members if accuracy_at(r["methods"]["der"]["20"]["hits"], r["m"], 20) == 1.0]
            kept = sum(accuracy_at(cells[r["instance_id"]][DEFAULT]["20"]["hits"], r["m"], 20) for r in solved)
            lines.append(f"| {way} | {group} | {len(members)} | {sum(recall) / len(recall):.3f} | {p} | "
                         f"{len(solved)} → {kept:.0f} |")
    print("\n".join(lines))
    if args.out:
        title = ("Refit the learned selector for a changed first stage?" if earlier else
                 "Retrain the learned selector on every language? (issue 22, item 5)")
        args.out.write_text(f"# {title}\n\n"
                            f"`{' '.join(sys.argv)}`\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
