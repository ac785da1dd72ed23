"""Would more features let the learned selector tell targets among graph neighbours? (issue 20)

Out of fold, the selector's admissions hold targets about as often as the places they displace, while the oracle
over the same proposals reaches R@20 0.82 (selector_decisions.md). This asks whether signals the 32 FEATURES lack
separate the targets, before any of them is built into the product. From one `spider eval` results directory,
the default pipeline's proposals get up to three groups of candidate features:

- `query`: what the whole query knows and one seed's request does not: how many seeds propose the candidate
  (log), the best and the summed reciprocal place of those seeds, how many of the first stage's top K share its
  file and its class (log1p), and the best place of a function of its file in the first stage's top 50 (log);
- `history`: the repository's commits before the instance's base commit (the last HISTORY of them, without
  merges or commits touching more than SWEEPING files): how often the candidate's file changed, how often it
  changed with the seed's file (count and share of the seed file's changes), with the other seeds' files, and
  how many commits ago it last changed (all log1p but the share);
- `components` (with `--fusion-dump`, fusion.py's dump of the same first stage): the hybrid's parts the features
  see only fused: the candidate's places in the dense and the BM25 top-n (log; n + 1 where absent), its dense
  cosine and the seed's cosine less it, and whether the dense top-n holds it.

Each repository is answered by models fit on the others: the recipe (`spider train-selector`'s regression and
threshold) and gradient boosting (selector_decisions.py's untuned setting), each on the 32 features alone and
with each group, replayed through the real exchange at K=20.

    python bench/selector_features.py --eval RESULTS --repos /work/.mirror [--fusion-dump DUMP] \
        --out bench/results/selector_features.md
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections import Counter, defaultdict
from functools import cached_property
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from fusion import FEATURES as FUSION_FEATURES  # noqa: E402 - bench/fusion.py
from selector_decisions import EDGES, K, at_threshold, boosted, default_proposals, table, write_results  # noqa: E402 - bench/selector_decisions.py
from spider.indexer.errors import SpiderError  # noqa: E402
from spider.indexer.languages import split_entity_id  # noqa: E402
from spider.query.evaluation.run import find_repository  # noqa: E402
from spider.query.evaluation.train_selector import Proposal, fit, probabilities_of, repository_folds  # noqa: E402

HISTORY = 1000
SWEEPING = 50  # a commit touching more files than this (a reformat, a licence header) says little about coupling
TOP_FILES = 50  # the first stage's places `file_best` looks at


def commits_before(git_dir: Path, commit: str) -> tuple[list[set[str]], bool]:
    """The files of each of the last HISTORY non-merge commits up to `commit`, newest first (sweeping ones left out
    but counted in the distance), and whether git read them all: a snapshot may lack old objects, and then the
    history is what git read before it stopped."""
    shown = subprocess.run(["git", "--git-dir", str(git_dir), "log", "--no-merges", "--name-only", "--format=format:@@",
                            "-n", str(HISTORY), commit, "--"], capture_output=True, text=True)
    commits = [{line for line in chunk.split("\n") if line.strip()} for chunk in shown.stdout.split("@@")[1:]]
    if shown.returncode and not commits:
        raise SystemExit(f"selector_features.py: git log {commit} in {git_dir}: {shown.stderr.strip()}")
    return [files if len(files) <= SWEEPING else set() for files in commits], not shown.returncode


def file_of(node_id: str) -> str:
    return split_entity_id(node_id)[0]


def class_of(node_id: str) -> tuple[str, str] | None:
    path, qualname = split_entity_id(node_id)
    parts = qualname.split("#")[0].split(".")
    return (path, ".".join(parts[:-1])) if len(parts) > 1 else None


def query_features(row: dict) -> list[list[float]]:
    top = row["top"][:K]
    files, classes = Counter(map(file_of, top)), Counter(c for c in map(class_of, top) if c)
    best_file: dict[str, int] = {}
    for place, node_id in enumerate(row["top"][:TOP_FILES], start=1):
        best_file.setdefault(file_of(node_id), place)
    seed_place = {seed: n for n, seed in enumerate(row["seeds"], start=1)}
    proposers: dict[str, set[str]] = defaultdict(set)
    for candidate in row["candidates"]:
        proposers[candidate["id"]].add(candidate["seed"])
    rows = []
    for candidate in row["candidates"]:
        places = [seed_place.get(seed, len(seed_place) + 1) for seed in proposers[candidate["id"]]]
        klass = class_of(candidate["id"])
        rows.append([math.log(len(places)), math.log(min(places)), sum(1 / p for p in places),
                     math.log1p(files[file_of(candidate["id"])]), math.log1p(classes[klass]) if klass else 0.0,
                     math.log(best_file.get(file_of(candidate["id"]), TOP_FILES + 1))])
    return rows


def component_features(row: dict, first_stage: dict) -> list[list[float]]:
    """`first_stage`: the instance's row of fusion.py's dump (its dense and BM25 top-n, each id's dense cosine)."""
    dense, bm25 = ({node_id: place for place, node_id in enumerate(ranking, start=1)}
                   for ranking in first_stage["rankings"][:2])
    cosine = {node_id: x[FUSION_FEATURES.index("dense_score")] for node_id, x in zip(first_stage["ids"], first_stage["x"])}
    absent = math.log(max(len(dense), len(bm25)) + 1)
    return [[math.log(dense[c["id"]]) if c["id"] in dense else absent,
             math.log(bm25[c["id"]]) if c["id"] in bm25 else absent,
             cosine.get(c["id"], 0.0), cosine.get(c["seed"], 0.0) - cosine.get(c["id"], 0.0), float(c["id"] in dense)]
            for c in row["candidates"]]


def history_features(row: dict, commits: list[set[str]]) -> list[list[float]]:
    changed: dict[str, set[int]] = defaultdict(set)
    for n, files in enumerate(commits):
        for name in files:
            changed[name].add(n)
    seed_files = {file_of(seed) for seed in row["seeds"]}
    rows = []
    for candidate in row["candidates"]:
        mine, seeds = changed.get(file_of(candidate["id"]), set()), changed.get(file_of(candidate["seed"]), set())
        others = sum(len(mine & changed.get(name, set())) for name in seed_files - {file_of(candidate["id"])})
        rows.append([math.log1p(len(mine)), math.log1p(len(mine & seeds)), len(mine & seeds) / len(seeds) if seeds else 0.0,
                     math.log1p(others), math.log1p(min(mine) if mine else len(commits) + 1)])
    return rows


class Extended(Proposal):
    """A proposal whose candidates carry `extra` feature columns after the 32."""

    def __init__(self, row: dict, extra: list[list[float]]) -> None:
        super().__init__(row)
        self.extra = extra

    @cached_property
    def x(self) -> np.ndarray:
        base = super().x
        return np.hstack([base, np.array(self.extra, dtype=float).reshape(len(base), -1)]) if self.extra else base


def answers(groups: dict[str, list[Proposal]]) -> dict[str, dict[str, dict]]:
    """{way: {instance: cell}}: per feature group, the recipe and boosting, every repository held out once."""
    ways: dict[str, dict[str, dict]] = {}
    for group, proposals in groups.items():
        for repo, train, test in repository_folds(proposals):
            weights = fit(train)
            mine = [p for p in train if p.row["edges"] == EDGES]
            boosted_probability, boosted_threshold = boosted(train, mine)
            for proposal in (p for p in test if p.row["edges"] == EDGES):
                instance = proposal.row["instance_id"]
                ways.setdefault(f"recipe{group}", {})[instance] = at_threshold(weights.threshold_for(EDGES))(
                    proposal, probabilities_of(weights, proposal))
                ways.setdefault(f"boosting{group}", {})[instance] = at_threshold(boosted_threshold)(
                    proposal, boosted_probability(proposal))
            print(f"features{group or ' (32)'}: held out {repo}", file=sys.stderr)
    return ways


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, required=True, help="a `spider eval` results directory")
    parser.add_argument("--repos", type=Path, required=True, help="the benchmark repositories (as `spider eval --repos`)")
    parser.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "bench", help="the benchmark directory")
    parser.add_argument("--fusion-dump", type=Path,
                        help="fusion.py's dump of the same first stage: adds the `components` group")
    parser.add_argument("--out", type=Path, help="also write the table here (markdown, and .json beside it)")
    args = parser.parse_args()
    proposals, rows = default_proposals(args.eval)
    try:
        bases = {json.loads(line)["instance_id"]: json.loads(line)
                 for line in (args.bench / "instances.jsonl").read_text().splitlines() if line.strip()}
        first_stage = ({json.loads(line)["instance_id"]: json.loads(line)
                        for line in args.fusion_dump.read_text().splitlines() if line.strip()}
                       if args.fusion_dump else {})
        git_dirs = {repo: find_repository(args.repos, repo) for repo in {p.row["repo"] for p in proposals}}
    except (SpiderError, OSError, ValueError, KeyError) as error:
        detail = f"a row lacks {error}" if isinstance(error, KeyError) else str(error)
        raise SystemExit(f"selector_features.py: {detail}") from None
    instances = {p.row["instance_id"] for p in proposals}
    require_every(instances, bases, args.bench / "instances.jsonl")
    history: dict[str, list[set[str]]] = {}
    cut_short = 0
    for instance in sorted(instances):
        history[instance], whole = commits_before(git_dirs[bases[instance]["repo"]], bases[instance]["base_commit"])
        cut_short += not whole
    groups = {"": proposals,
              " + query": [Extended(p.row, query_features(p.row)) for p in proposals],
              " + history": [Extended(p.row, history_features(p.row, history[p.row["instance_id"]])) for p in proposals]}
    if first_stage:
        require_every(instances, first_stage, args.fusion_dump)
        try:
            groups[" + components"] = [Extended(p.row, component_features(p.row, first_stage[p.row["instance_id"]]))
                                       for p in proposals]
        except (KeyError, IndexError, TypeError) as error:
            raise SystemExit(f"selector_features.py: {args.fusion_dump} is not fusion.py's dump ({error!r})") from None
    ways = answers(groups)
    lines = table(ways, rows)
    print("\n".join(lines))
    if args.out:
        write_results(args.out, "More features for the learned selector?",
                      "on the 32 features and with each group (see the script's docstring); `recipe` is the 32 "
                      f"features' regression. The history of {cut_short} of {len(history)} instances is cut short "
                      "where the repository snapshot lacks older objects (what git read before it stopped)", lines, ways)


def require_every(instances: set[str], found: dict, source: Path) -> None:
    """A one-line exit where `source` (read into `found`) lacks some of the results directory's instances."""
    if missing := instances - set(found):
        raise SystemExit(f"selector_features.py: {source} lacks {len(missing)} of the instances, e.g. {min(missing)}")


if __name__ == "__main__":
    main()
