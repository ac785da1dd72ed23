"""Precision and recall of INVOKES edges against hand-written call graphs (tests/fixtures/shop.py).

Usage: python bench/call_resolution.py [--out bench/results/call_resolution.json]
Runs the real extractors and resolver (the graph the writer stores); prints a table and writes JSON + Markdown.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from _common import ROOT
from spider.core.schema import Rel
from spider.indexer.languages import contested_languages, language_of
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.resolve.codegraph import build_graph

from tests.fixtures.shop import FIXTURES


def measure(language: str) -> dict:
    fixture = FIXTURES[language]
    contested = contested_languages(fixture.files)  # `.h`: C or C++, as the pipeline chooses
    outcomes = [parse_file(path, code.encode(), language_of(path, contested)) for path, code in fixture.files.items()]
    graph = build_graph(
        {o.path: o.facts for o in outcomes if o.facts}, "shop", {o.path: o.code for o in outcomes if o.facts}
    )
    found = {(e.src, e.dst): e.resolution.value for e in graph.edges if e.type == Rel.INVOKES}
    truth = fixture.true_calls
    hits = set(found) & truth
    by_resolution = {}
    for resolution in sorted(set(found.values())):
        edges = {pair for pair, r in found.items() if r == resolution}
        by_resolution[resolution] = {"edges": len(edges), "correct": len(edges & truth)}
    return {
        "true_calls": len(truth),
        "found": len(found),
        "correct": len(hits),
        "precision": round(len(hits) / len(found), 3) if found else None,
        "recall": round(len(hits) / len(truth), 3) if truth else None,
        "by_resolution": by_resolution,
        "missed": sorted(f"{s} -> {d}" for s, d in truth - set(found)),
        "wrong": sorted(f"{s} -> {d}" for s, d in set(found) - truth),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "call_resolution.json")
    args = parser.parse_args()
    results = {language: measure(language) for language in sorted(FIXTURES)}
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    lines = [
        "| language | true calls | edges found | correct | precision | recall | by resolution (correct/edges) |",
        "|---|---|---|---|---|---|---|",
    ]
    for language, r in results.items():
        kinds = ", ".join(f"{k} {v['correct']}/{v['edges']}" for k, v in r["by_resolution"].items())
        lines.append(
            f"| {language} | {r['true_calls']} | {r['found']} | {r['correct']} | {r['precision']:.2f} | {r['recall']:.2f} | {kinds} |"
        )
    table = "\n".join(lines)
    print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"spider_commit": commit, "languages": results}, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(
        "# INVOKES precision / recall on the hand-written fixture call graphs\n\n"
        f"`python bench/call_resolution.py` at spider commit `{commit[:12]}`; truth: `tests/fixtures/shop.py`.\n\n"
        + table + "\n"
    )


if __name__ == "__main__":
    main()
