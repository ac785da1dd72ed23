"""Two `spider eval` runs of the same instances side by side: did a change help, and whom did it cost?

Each run is a results directory (`instances.jsonl`, and `learned_cv.jsonl` where `spider train-selector` wrote
the cross-validated rows). For every method both runs hold, per group (all, and each language): the instances
both answered, Recall@K before and after, the paired bootstrap p of the difference, and of the instances DER
solves (every target in its top K, read from the first run) how many each run keeps solved, naming those the
second run loses. A change measured on one dump with a refit selector is only evidence through such a paired
comparison: a refit alone moves per-language figures by a few points.

    python bench/compare_evals.py RUN_BEFORE RUN_AFTER --method hybrid \\
        --method spider/learned-cv/contains:4,invokes:2 --out bench/results/NAME.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections import defaultdict
from pathlib import Path

import _common  # noqa: F401 - sets sys.path (bench/_common.py)
from environment import spider_commit  # bench/environment.py
from spider.query.evaluation.metrics import paired_bootstrap_p, recall_at
from spider.query.evaluation.run import instance_rows
from spider.query.evaluation.summary import BASELINE  # whose solved instances every method should keep


def load_run(directory: Path, k: int) -> tuple[dict[str, dict], dict[str, dict[str, float]]]:
    """({instance: its language, m}, {method: {instance: Recall@k}}) of one results directory."""
    if not (directory / "instances.jsonl").is_file():
        raise SystemExit(f"compare_evals.py: {directory} holds no instances.jsonl (a `spider eval --out` directory)")
    recall: dict[str, dict[str, float]] = defaultdict(dict)
    try:
        rows = instance_rows(directory)
        for row in rows:
            for method, cells in row["methods"].items():
                if str(k) in cells:
                    recall[method][row["instance_id"]] = recall_at(cells[str(k)]["hits"], row["m"], k)
        return {row["instance_id"]: {"language": row["language"], "m": row["m"]} for row in rows}, dict(recall)
    except (KeyError, TypeError, AttributeError) as error:
        raise SystemExit(f"compare_evals.py: {directory} does not hold `spider eval` results ({error!r} missing or "
                         "malformed)") from None


def compare(before: tuple[dict, dict], after: tuple[dict, dict], methods: list[str] | None) -> dict[str, dict]:
    """{method: {group: figures}} for every method both runs hold (or those named), over the instances both
    answered."""
    instances, first = before
    second = after[1]
    solved = {i for i, value in first.get(BASELINE, {}).items() if value == 1.0}
    chosen = methods or sorted(set(first) & set(second))
    missing = [method for method in chosen if method not in first or method not in second]
    if missing:
        raise SystemExit(f"compare_evals.py: not in both runs: {', '.join(missing)}")
    result: dict[str, dict] = {}
    for method in chosen:
        shared = sorted(set(first[method]) & set(second[method]))
        if not shared:
            raise SystemExit(f"compare_evals.py: no instance both runs answered with {method}")
        groups = {}
        for group in ["all", *sorted({instances[i]["language"] for i in shared})]:
            ids = [i for i in shared if group in ("all", instances[i]["language"])]
            a, b = [first[method][i] for i in ids], [second[method][i] for i in ids]
            kept = [i for i in ids if i in solved]
            groups[group] = {
                "instances": len(ids), "before": round(sum(a) / len(a), 4), "after": round(sum(b) / len(b), 4),
                "p_paired_bootstrap": round(paired_bootstrap_p(b, a), 4), "der_solved": len(kept),
                "kept_before": sum(first[method][i] == 1.0 for i in kept),
                "kept_after": sum(second[method][i] == 1.0 for i in kept),
                "lost_after": [i for i in kept if second[method][i] < 1.0]}
        result[method] = groups
    return result


def report(result: dict[str, dict], k: int, title: str, notes: str = "", labels: tuple[str, str] | None = None) -> str:
    lines = [f"# {title}", "", *([notes, ""] if notes else []),
             *([f"Before: {labels[0]}; after: {labels[1]}.", ""] if labels else []),
             (f"Recall@{k} per group over the instances both runs answered; p: paired bootstrap of the difference; "
             f"kept: of the instances {BASELINE.upper()} solves, how many stay solved (before → after), and which the "
             "second run loses."), ""]
    for method, groups in result.items():
        lines += [f"## {method}", "", (f"| group | instances | before R@{k} | after R@{k} | difference | p | "
                  f"{BASELINE.upper()}-solved kept | lost after |"), "|---|---:|---:|---:|---:|---:|---:|---|"]
        for group, g in groups.items():
            lines.append(f"| {group} | {g['instances']} | {g['before']:.3f} | {g['after']:.3f} | "
                         f"{g['after'] - g['before']:+.3f} | {g['p_paired_bootstrap']:.3f} | {g['kept_before']} → "
                         f"{g['kept_after']} of {g['der_solved']} | "
                         f"{', '.join(g['lost_after']) if group != 'all' else ''} |")
        lines.append("")
    return "\n".join(lines)


def recorded_command(argv: list[str], labels: dict[Path, str]) -> str:
    """The command as run, each results directory in `labels` named by its label."""
    return " ".join([Path(argv[0]).name, *(labels.get(Path(word), word) for word in argv[1:])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path, help="the baseline's `spider eval` results directory")
    parser.add_argument("after", type=Path, help="the changed run's results directory")
    parser.add_argument("--method", action="append", help="a method both runs hold; repeatable (default: all)")
    parser.add_argument("-k", type=int, default=20, help="the cut-off (default: 20)")
    parser.add_argument("--title", default="Two runs compared")
    parser.add_argument("--notes", default="", help="what the two runs are (a paragraph below the title)")
    parser.add_argument("--labels", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="what to call the two runs in the report and its recorded command (their directories "
                             "are local to this machine)")
    parser.add_argument("--out", type=Path, help="also write the report here (markdown; the figures beside, .json)")
    args = parser.parse_args()
    result = compare(load_run(args.before, args.k), load_run(args.after, args.k), args.method)
    labels = tuple(args.labels) if args.labels else None
    text = report(result, args.k, args.title, args.notes, labels)
    print(text)
    if args.out:
        args.out.write_text(text)
        args.out.with_suffix(".json").write_text(json.dumps(
            {"when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "spider": spider_commit(),
             "command": recorded_command(sys.argv, {args.before: labels[0], args.after: labels[1]} if labels else {}),
             **({"runs": {"before": labels[0], "after": labels[1]}} if labels else {}), "k": args.k,
             "methods": result},
            indent=2) + "\n")


if __name__ == "__main__":
    main()
