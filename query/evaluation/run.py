"""`spider eval`: index each benchmark repository at each instance's base_commit through the real pipeline, run
every method at every K, match results to targets, and write one JSON line per instance (resumable).

Snapshots shared by several instances are indexed once; embeddings are reused across commits of a repository
by content hash (the indexer does that), so only the first commit of a repository pays for all its functions.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from spider import cypher
from spider.core.errors import InvalidInput, RepositoryNotFound, SpiderError
from spider.core.schema import Rel
from spider.core.settings import Settings
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import resolve_spec
from spider.indexer.pipeline.index import index_repository, is_indexed
from spider.query.evaluation.metrics import Span, all_hits
from spider.query.expand import MAX_DEPTH, expand_neighbourhood, parse_edges
from spider.query.fetch import function_info
from spider.query.graph_steps import Proposal, propose, select_and_exchange
from spider.query.pipeline import SELECTORS, open_selector
from spider.query.results import Decision, Origin
from spider.query.retrieve.first_stage import Ranking, first_stage
from spider.query.retrieve.tests_policy import DEFAULT_TESTS, TEST_POLICIES, TestPolicy
from spider.query.select.decide import AdmitAll, AdmitOracle, Selector, SelectorKind
from spider.query.select.features import FEATURES, request_features

KS = (5, 10, 20, 50)
EDGE_CONFIGS = ("contains:4", "invokes:2", "contains:4,invokes:2")


@dataclass(frozen=True)
class Instance:
    id: str
    repo: str
    language: str
    base_commit: str
    problem: str
    targets: tuple[Span, ...]


BM25_RANKING = "sr"  # the BM25 ranking's method name: the paper's SR, as results files have always spelled it
FIRST_STAGE_OF = {"der": Origin.DENSE, BM25_RANKING: Origin.BM25, "hybrid": Origin.HYBRID,
                  "dense+bm25": Origin.HYBRID, "spisr": Origin.BM25,
                  "spider": Origin.HYBRID, "spider-dense": Origin.DENSE, "spider-bm25": Origin.BM25,
                  "spider-hybrid": Origin.HYBRID}
RANKINGS = ("der", BM25_RANKING, "hybrid", "dense+bm25")  # dense+bm25: hybrid without the functions the issue names
GRAPH_METHODS = tuple(name for name in FIRST_STAGE_OF if name not in RANKINGS)


def method_forms() -> str:
    """How a method is spelled: what `spider eval --help` and the error for an unknown method both say."""
    return (f"{', '.join(RANKINGS)}, or {'|'.join(GRAPH_METHODS)}/SELECTOR/EDGES such as spider/learned/contains:4, "
            f"each optionally @{'|@'.join(TEST_POLICIES)}")


@dataclass(frozen=True)
class EvalMethod:
    """A method `spider eval` measures (`spider-query`'s are `Method`): `der`, `sr` (BM25), `hybrid`, or
    `<graph>/<selector>/<edges>` where graph is spider (over the hybrid first stage, as `spider-query` runs it),
    spider-dense, spider-bm25 or spisr (= spider-bm25); the ceiling is selector `all`, the oracle `oracle`.
    `@exclude`, `@demote` or `@include` at the end says what becomes of test code (default: the product's,
    DEFAULT_TESTS)."""

    name: str

    @property
    def base(self) -> str:
        return self.name.split("@")[0]

    @property
    def tests(self) -> TestPolicy:
        return TestPolicy(self.name.split("@")[1]) if "@" in self.name else DEFAULT_TESTS

    @property
    def first_stage(self) -> Origin:
        return FIRST_STAGE_OF[self.base.split("/")[0]]

    @property
    def stage(self) -> tuple[Origin, TestPolicy, bool]:
        """The first-stage ranking it starts from: origin, test policy, whether the issue's mentions are fused."""
        return self.first_stage, self.tests, self.base != "dense+bm25"

    @property
    def graph(self) -> bool:
        return "/" in self.name

    @property
    def selector(self) -> str:
        return self.base.split("/")[1]

    @property
    def edges(self) -> dict[Rel, int]:
        return parse_edges(self.base.split("/")[2])


def parse_method(name: str) -> EvalMethod:
    """The method `name` spells; `@exclude`, the default, is dropped from its name (`der@exclude` is `der`)."""
    base, _, tests = name.partition("@")
    parts = base.split("/")
    if tests and tests not in TEST_POLICIES:
        raise InvalidInput(f"unknown test-code policy in {name!r}: @{' or @'.join(TEST_POLICIES)}")
    name = base if tests == DEFAULT_TESTS else name
    if base in RANKINGS:
        return EvalMethod(name)
    if len(parts) == 3 and parts[0] in FIRST_STAGE_OF and parts[0] not in RANKINGS and \
            parts[1] in (*SELECTORS, SelectorKind.ORACLE):
        parse_edges(parts[2])
        return EvalMethod(name)
    raise InvalidInput(f"unknown method {name!r}: {method_forms()}")


def default_methods(selector: str = "learned") -> list[EvalMethod]:
    names = ["der", BM25_RANKING, "hybrid"]
    for edges in EDGE_CONFIGS:
        names += [f"spider/{selector}/{edges}", f"spider/all/{edges}", f"spider/oracle/{edges}",
                  f"spider-dense/{selector}/{edges}", f"spisr/{selector}/{edges}"]
    return [EvalMethod(n) for n in names]


def load_instances(bench_dir: Path, subsets: tuple[str, ...] = ()) -> list[Instance]:
    """instances.jsonl + ground_truth.jsonl, in file order: the union of the named subsets of subsets.json, or
    every instance when none is named."""
    try:
        rows = [json.loads(line) for line in (bench_dir / "instances.jsonl").read_text().splitlines() if line.strip()]
        truth = {row["instance_id"]: row["functions"] for row in
                 (json.loads(line) for line in (bench_dir / "ground_truth.jsonl").read_text().splitlines() if line.strip())}
        named = json.loads((bench_dir / "subsets.json").read_text()) if subsets else {}
    except FileNotFoundError as exc:
        raise InvalidInput(f"not a benchmark directory: {exc.filename} is missing") from None
    except (ValueError, KeyError) as exc:
        raise InvalidInput(f"benchmark files in {bench_dir} are malformed: {exc}") from None
    unknown = [subset for subset in subsets if not isinstance(named.get(subset), list)]
    if unknown:
        raise InvalidInput(f"{bench_dir / 'subsets.json'} lacks subset {unknown[0]!r} (it has {', '.join(map(repr, named))})")
    wanted = set().union(*(named[subset] for subset in subsets)) if subsets else None
    instances = []
    for row in rows:
        if wanted is not None and row["instance_id"] not in wanted:
            continue
        spans = tuple(Span(f["file"], f["start_line"], f["end_line"]) for f in truth.get(row["instance_id"], []))
        if spans:
            instances.append(Instance(row["instance_id"], row["repo"], row["language"], row["base_commit"],
                                      row["problem_statement"], spans))
    return instances


def find_repository(repos_dir: Path, repo: str) -> Path:
    """The git dir of `owner/name` under repos_dir: owner+name/repo (the search tool's fetch), owner+name,
    owner/name or name; owner and name match case-insensitively."""
    owner, name = repo.split("/", 1)
    for candidate in (f"{owner}+{name}/repo", f"{owner}+{name}", f"{owner}/{name}", name):
        path = repos_dir
        for part in candidate.split("/"):
            match = next((p for p in path.iterdir() if p.name.lower() == part.lower()), None) if path.is_dir() else None
            if match is None:
                break
            path = match
        else:
            return path
    raise RepositoryNotFound(f"no git repository for {repo} under {repos_dir} (looked for {owner}+{name}/repo, {owner}/{name}, {name})")


def done_instances(results: Path, methods: list[EvalMethod]) -> set[str]:
    """Instances already written with every requested method: a rerun skips them."""
    if not results.exists():
        return set()
    return {row["instance_id"] for row in read_jsonl(results) if all(m.name in row.get("methods", {}) for m in methods)}


def oldest_first(instances: list[Instance], git_dirs: dict[str, Path]) -> list[Instance]:
    """Each repository's instances by commit time, oldest first: a commit then mostly adds functions to what
    earlier ones embedded, and embedding is what indexing costs (a commit git lacks goes first, to fail early).
    `git_dirs`: each repository's git directory (`find_repository`)."""
    def committed(instance: Instance) -> int:
        shown = subprocess.run(["git", "-C", str(git_dirs[instance.repo]), "show", "-s", "--format=%ct",
                                instance.base_commit], capture_output=True, text=True)
        return int(shown.stdout) if shown.returncode == 0 else 0

    return sorted(instances, key=lambda i: (i.repo, committed(i), i.id))


def ensure_snapshot(store: GraphStore, instance: Instance, repos_dir: Path, settings: Settings) -> dict:
    """Index the instance's commit unless a complete snapshot with vectors of the model in use (the settings'
    SPIDER_EMBED_MODEL, else the default) exists; what it cost."""
    if is_indexed(store.snapshot_state(instance.repo, instance.base_commit), resolve_spec(settings=settings).name):
        return {"indexed": False}
    report = index_repository(store, str(find_repository(repos_dir, instance.repo)), repo=instance.repo,
                              rev=instance.base_commit, settings=settings)
    return {"indexed": True, "seconds": report.seconds, "embedding": report.stats()["embedding"]}


def evaluate_instance(store: GraphStore, instance: Instance, methods: list[EvalMethod], ks: tuple[int, ...],
                      n: int, c: int, llm: Selector | None, dump: Callable[[dict], None] | None = None,
                      settings: Settings | None = None) -> dict:
    """Every method at every K on one instance. Each (first stage, edges) proposal is computed once and each
    selector decides once; only the exchange depends on K. `dump` receives, per proposal, every candidate's
    features and label (the learned selector's training data) with what an offline exchange needs."""
    repo, snapshot = instance.repo, instance.base_commit
    rankings: dict[tuple[Origin, TestPolicy, bool], Ranking] = {}
    for stage in {m.stage for m in methods}:
        rankings[stage] = first_stage(store, repo, snapshot, instance.problem, stage[0], max(n, max(ks)), stage[1],
                                      mentions=stage[2], settings=settings)
    targets = match_targets(store, instance, rankings)
    proposals = InstanceProposals(store, instance, rankings, n, max(ks), targets, dump)
    out: dict[str, dict] = {}
    for method in methods:
        decided: dict[int, list[Decision]] = {}  # by seeds: a selector decides once per proposal, whatever K
        out[method.name] = {str(k): method_cell(method, k, c, rankings[method.stage], proposals, targets, llm, decided)
                            for k in ks}
    dense = next((r for (origin, *_), r in sorted(rankings.items()) if origin == Origin.DENSE), None)
    seeds = [i for i, _ in dense.scored[:c]] if dense is not None else []
    return {"instance_id": instance.id, "repo": repo, "language": instance.language, "snapshot": snapshot,
            "m": len(instance.targets), "unmatched_targets": targets.unmatched, "methods": out,
            "locality": locality(store, repo, snapshot, instance.targets, targets.file_functions, seeds)}


@dataclass(frozen=True)
class Targets:
    """An instance's targets as functions of its snapshot: the ids that overlap one, the span of every id a
    ranking may hold, the functions of the targets' files, and the targets no function overlaps."""

    targets: tuple[Span, ...]
    ids: set[str]
    spans: dict[str, Span]
    file_functions: dict[str, Span]
    unmatched: list[dict]

    def hits(self, ids: list[str]) -> list[list[int]]:
        """Every target each id hits, position by position (an id with no span hits nothing)."""
        return [all_hits([self.spans[i]], self.targets)[0] if i in self.spans else [] for i in ids]


def match_targets(store: GraphStore, instance: Instance, rankings: dict[tuple[Origin, TestPolicy, bool], Ranking]
                  ) -> Targets:
    """Match the instance's targets to its snapshot's functions by file and overlapping lines."""
    repo, snapshot = instance.repo, instance.base_commit
    pool_ids = list(dict.fromkeys(i for r in rankings.values() for i, _ in r.scored))
    spans = spans_of(store, repo, snapshot, pool_ids)
    file_functions = functions_in_files(store, repo, snapshot, sorted({t.path for t in instance.targets}))
    target_ids = {i for i, span in file_functions.items() if any(span.overlaps(t) for t in instance.targets)}
    unmatched = [t.__dict__ for t in instance.targets if not any(s.overlaps(t) for s in file_functions.values())]
    spans.update(file_functions)
    return Targets(instance.targets, target_ids, spans, file_functions, unmatched)


class InstanceProposals:
    """An instance's proposals, each (first stage, test policy, edges, seeds) made once, as the learned selector
    reads them (`lexical`); `dump` receives each one made as training data (`training_row`)."""

    def __init__(self, store: GraphStore, instance: Instance, rankings: dict[tuple[Origin, TestPolicy, bool], Ranking],
                 n: int, top: int, targets: Targets, dump: Callable[[dict], None] | None) -> None:
        self.store, self.instance, self.rankings, self.n, self.top = store, instance, rankings, n, top
        self.targets, self.dump = targets, dump
        self.made: dict[tuple[Origin, TestPolicy, str, int], Proposal] = {}

    def of(self, method: EvalMethod, seeds: int) -> Proposal:
        key = (method.first_stage, method.tests, method.base.split("/")[2], seeds)
        if key not in self.made:
            ranking = self.rankings[method.stage]
            instance = self.instance
            proposal = self.made[key] = propose(self.store, instance.repo, instance.base_commit, instance.problem,
                                                ranking, seeds, self.n, method.edges, lexical=True)
            if self.dump is not None:
                top = [i for i, _ in ranking.scored[:self.top]]
                self.dump(training_row(instance, key, proposal, top, self.targets.ids, self.targets.hits))
        return self.made[key]


def method_cell(method: EvalMethod, k: int, c: int, ranking: Ranking, proposals: InstanceProposals, targets: Targets,
                llm: Selector | None, decided: dict[int, list[Decision]]) -> dict:
    """One method at one K: its ids and their hits; for a graph method also what the exchange did, counted as
    `spider-query`'s summary counts it (`select_and_exchange`), with how many admitted and displaced are hits.
    `decided` holds the method's decisions by seeds, made at an earlier K."""
    top_k = [i for i, _ in ranking.scored[:k]]
    if not method.graph:
        return {"ids": top_k, "hits": targets.hits(top_k)}
    seeds = min(c, k)
    bounds: dict[str, Selector] = {SelectorKind.ALL: AdmitAll(), SelectorKind.ORACLE: AdmitOracle(targets.ids)}
    selector = bounds.get(method.selector, llm)
    assert selector is not None  # the LLM is opened when a method needs it
    done = select_and_exchange(proposals.of(method, seeds), selector, top_k, decided.get(seeds))
    decided[seeds] = done.decisions
    outcome, counts = done.outcome, done.summary
    return {"ids": outcome.ranking, "hits": targets.hits(outcome.ranking),
            "admitted": counts.admitted, "admitted_hits": sum(i in targets.ids for i in outcome.admitted),
            "displaced": counts.displaced, "displaced_hits": sum(i in targets.ids for i in outcome.displaced),
            "proposals": counts.proposals, "tokens": counts.tokens_in + counts.tokens_out}


def training_row(instance: Instance, key: tuple[Origin, TestPolicy, str, int], proposal: Proposal, top: list[str],
                 target_ids: set[str], hits_of: Callable[[list[str]], list[list[int]]]) -> dict:
    """One proposal as the selector's training data: each candidate's features and label (is it a target), and
    the first-stage top and every id's hits, so `spider train-selector` can replay the exchange offline."""
    candidates = [(r.seed.id, c, row) for r in proposal.requests for c, row in zip(r.candidates, request_features(r))]
    ids = list(dict.fromkeys(top + [c.id for _, c, _ in candidates]))
    return {"instance_id": instance.id, "repo": instance.repo, "language": instance.language,
            "m": len(instance.targets), "origin": key[0], "tests": key[1], "edges": key[2], "c": key[3],
            "seeds": proposal.seeds,
            "top": top, "hits": dict(zip(ids, hits_of(ids))), "features": list(FEATURES),
            "candidates": [{"id": c.id, "seed": seed, "rank": c.rank, "label": c.id in target_ids, "x": row}
                           for seed, c, row in candidates]}


def locality(store: GraphStore, repo: str, snapshot: str, targets: tuple[Span, ...], functions: dict[str, Span],
             seeds: list[str]) -> dict:
    """Where the targets sit in the graph (the paper's App. "Empirical Support for Graph Locality"): hop
    distances between target pairs along CONTAINS (None: more than MAX_DEPTH), and which targets lie within
    each edge configuration's reach of the dense seeds."""
    nodes = []
    for target in targets:  # the innermost function overlapping the target: the smallest overlapping span
        overlapping = [(s.end_line - s.start_line, i) for i, s in functions.items() if s.overlaps(target)]
        nodes.append(min(overlapping)[1] if overlapping else None)
    known = [n for n in dict.fromkeys(nodes) if n is not None]
    pairs = []
    for index, node in enumerate(known):
        reach = {nb.id: nb.hops for nb in expand_neighbourhood(store, repo, snapshot, [node], {Rel.CONTAINS: MAX_DEPTH})}
        pairs += [reach.get(other) for other in known[index + 1:]]
    reachable = {}
    for spec in EDGE_CONFIGS:
        near = {nb.id for nb in expand_neighbourhood(store, repo, snapshot, seeds, parse_edges(spec))} | set(seeds)
        reachable[spec] = sum(1 for n in nodes if n in near)
    return {"target_nodes": nodes, "pair_hops": pairs, "reachable_from_seeds": reachable}


def spans_of(store: GraphStore, repo: str, snapshot: str, ids: list[str]) -> dict[str, Span]:
    return {i: Span(info.path, info.start_line, info.end_line)
            for i, info in function_info(store, repo, snapshot, ids).items()}


def functions_in_files(store: GraphStore, repo: str, snapshot: str, paths: list[str]) -> dict[str, Span]:
    _, rows = store.read(cypher.load("functions_in_files"), {"repo": repo, "snapshot": snapshot, "paths": paths})
    return {row[0]: Span(row[1], row[2], row[3]) for row in rows}


def run_evaluation(
    store: GraphStore, instances: list[Instance], repos_dir: Path, out_dir: Path, methods: list[EvalMethod],
    ks: tuple[int, ...] = KS, n: int = 500, c: int = 5, llm_selector: str = "learned",
    report: Callable[[str], None] = print, *, settings: Settings,
) -> tuple[Path, list[dict]]:
    """Evaluate every instance not already in out_dir/instances.jsonl; returns that file and the instances that
    failed (also in out_dir/failures.jsonl). A missing repository stops the run before it starts; an instance
    that fails (an unknown base commit, an error while indexing or evaluating it) is recorded and skipped, so
    one bad instance does not cost hours of others. The learned selector's training data goes to
    out_dir/candidates.jsonl."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results, training = out_dir / "instances.jsonl", out_dir / "candidates.jsonl"
    done = done_instances(results, methods)
    needs_llm = any(m.graph and m.selector not in (SelectorKind.ALL, SelectorKind.ORACLE) for m in methods)
    llm = open_selector(llm_selector, settings=settings)[0] if needs_llm else None
    todo = [i for i in instances if i.id not in done]
    git_dirs = {repo: find_repository(repos_dir, repo) for repo in sorted({i.repo for i in todo})}
    todo = oldest_first(todo, git_dirs)
    report(f"{len(instances)} instances, {len(done & {i.id for i in instances})} already done, {len(todo)} to run; "
           f"{len(methods)} methods x K {', '.join(map(str, ks))}")
    failures = []
    for number, instance in enumerate(todo, start=1):
        clock = time.perf_counter()
        try:
            indexing = ensure_snapshot(store, instance, repos_dir, settings)
            indexed_at = time.perf_counter()
            proposals: list[dict] = []
            row = evaluate_instance(store, instance, methods, ks, n, c, llm, dump=proposals.append, settings=settings)
        except Exception as exc:  # noqa: BLE001 - recorded with its type, and the run goes on
            error = str(exc) if isinstance(exc, SpiderError) else f"{type(exc).__name__}: {exc}"
            failures.append({"instance_id": instance.id, "repo": instance.repo, "error": error})
            report(f"[{number}/{len(todo)}] {instance.id}: FAILED: {error}")
            continue
        row["seconds"] = {"index": round(indexed_at - clock, 2), "methods": round(time.perf_counter() - indexed_at, 2)}
        row["indexing"] = indexing
        with training.open("a") as handle:  # first: an instance in results always has its training rows
            handle.writelines(json.dumps(p) + "\n" for p in proposals)
        with results.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        embedding = indexing.get("embedding") or {}
        embedded = f"{embedding.get('embedded', 0)} embedded, {embedding.get('later_windows', 0)} later windows"
        report(f"[{number}/{len(todo)}] {instance.id}: index {row['seconds']['index']:.1f}s"
               f"{f' ({embedded})' if indexing['indexed'] else ' (reused)'}, methods {row['seconds']['methods']:.1f}s, "
               f"unmatched targets {len(row['unmatched_targets'])}/{row['m']}")
    (out_dir / "failures.jsonl").write_text("".join(json.dumps(f) + "\n" for f in failures))
    return results, failures


def read_jsonl(path: Path) -> Iterator[dict]:
    """The rows of a file `spider eval` appends to, in order; a line cut by an interruption is skipped."""
    for line in path.read_text().splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def read_results(path: Path) -> list[dict]:
    """The rows of a results file; an instance evaluated again (more methods) keeps its latest row."""
    return list({row["instance_id"]: row for row in read_jsonl(path)}.values())


def instance_rows(eval_dir: Path) -> list[dict]:
    """Every instance's cells, the out-of-fold (learned-cv) methods merged in as `spider eval` merges them (where
    `spider train-selector` wrote them)."""
    rows = read_results(eval_dir / "instances.jsonl")
    cross_validated = eval_dir / "learned_cv.jsonl"
    cv = ({row["instance_id"]: row["methods"] for row in read_results(cross_validated)}
          if cross_validated.is_file() else {})
    for row in rows:
        row["methods"].update(cv.get(row["instance_id"], {}))
    return rows


def merge_cross_validation(rows: list[dict], path: Path, ks: tuple[int, ...],
                           report: Callable[[str], None] = print) -> list[str]:
    """Add `spider train-selector`'s out-of-fold methods (`path`: its learned_cv.jsonl) to the rows, when every
    row has them at every K in `ks` (else `report` says so); their names."""
    if not path.is_file():
        return []
    cells = {row["instance_id"]: row["methods"] for row in read_results(path)}
    names = sorted({m for methods in cells.values() for m in methods})
    if not rows or any(set(names) - set(cells.get(row["instance_id"], {})) for row in rows):
        report(f"note: {path} does not cover every instance (rerun `spider train-selector`); left out")
        return []
    missing = sorted({k for methods in cells.values() for by_k in methods.values() for k in ks if str(k) not in by_k})
    if missing:  # trained at other K values than this evaluation asks for
        report(f"note: {path} lacks K {', '.join(map(str, missing))} (rerun `spider train-selector` with -k for "
               "each); left out")
        return []
    for row in rows:
        row["methods"].update(cells[row["instance_id"]])
    return names
