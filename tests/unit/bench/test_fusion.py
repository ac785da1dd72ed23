"""bench/fusion.py's hand-made fusions against spider's own: its shipped setting must be what `hybrid` runs, or
every comparison it reports is against the wrong baseline."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest
from spider.query.retrieve.fusion import RRF_K, reciprocal_rank_fusion
from spider.query.retrieve.mentions import Named

_PATH = Path(__file__).resolve().parents[3] / "bench" / "fusion.py"
_SPEC = importlib.util.spec_from_file_location("bench_fusion", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
fusion = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fusion)


def row(seed: int) -> dict:
    """Three overlapping rankings (dense, BM25, mentions) over 60 functions, how the issue names the mentioned ones
    (the last three by their file alone), and hits for a few of them."""
    rng = random.Random(seed)
    ids = [f"f{i}" for i in range(60)]
    rankings = [rng.sample(ids, 40), rng.sample(ids, 40), rng.sample(ids, 5)]
    named = {i: Named.NAME if place < 2 else Named.FILE for place, i in enumerate(rankings[2])}
    x = [[0.0] * 6 + [float(named.get(i) == kind) for kind in Named] for i in ids]
    hits = {i: [n] for n, i in enumerate(rng.sample(ids, 6))}
    return {"instance_id": f"i{seed}", "ids": ids, "x": x, "rankings": rankings, "hits": hits, "m": 6,
            "named": named}


@pytest.mark.parametrize("seed", range(5))
def test_the_shipped_setting_is_spiders_fusion(seed: int) -> None:
    r = row(seed)
    weights = [{}, {}, {i: kind.fusion_weight for i, kind in r["named"].items()}]  # as first_stage weighs them
    expected = [node_id for node_id, _ in reciprocal_rank_fusion(r["rankings"], RRF_K, weights)][: fusion.K]
    assert fusion.fusion_grid()[fusion.SHIPPED](r) == expected


@pytest.mark.parametrize("seed", range(5))
def test_the_reserved_places_go_to_each_rankings_best_missing_function(seed: int) -> None:
    r = row(seed)
    fused, answer = fusion.weighted_rrf(r, RRF_K, 1.0), fusion.rrf_with_tail(r, 4)
    assert answer[: fusion.K - 4] == fused[: fusion.K - 4] and len(answer) == fusion.K == len(set(answer))
    for place in range(fusion.K - 4, fusion.K):
        ranking = r["rankings"][(place - fusion.K + 4) % 2]
        assert answer[place] == next(i for i in ranking if i not in answer[:place])


def test_an_interrupted_dump_leaves_nothing_to_be_reused(tmp_path) -> None:
    def rows_until_interrupted():
        yield row(0)
        raise KeyboardInterrupt

    dump = tmp_path / "fusion.jsonl"
    with pytest.raises(KeyboardInterrupt):
        fusion.write_dump(dump, rows_until_interrupted(), 2)
    assert not dump.exists()
    fusion.write_dump(dump, (row(seed) for seed in range(2)), 2)
    assert [r["instance_id"] for r in map(json.loads, dump.read_text().splitlines())] == ["i0", "i1"]


def test_issue_targets_name_the_languages_each_setting_misses() -> None:
    # 20 Rust instances: BM25 finds the one target in half, DER in one; 1 C instance DER solves.
    def instance(n: int, language: str, dense: list[str], bm25: list[str]) -> dict:
        return {"instance_id": f"{language}{n}", "language": language, "m": 1, "hits": {"t": [0]},
                "rankings": [dense, bm25, []]}

    rows = [instance(n, "rust", ["t"] if n == 0 else ["x"], ["t"] if n < 10 else ["y"]) for n in range(20)]
    rows.append(instance(0, "c", ["t"], ["y"]))
    recall = {"bm25-like": {r["instance_id"]: 1.0 if r["language"] == "rust" else 0.0 for r in rows},
              "dense-like": {r["instance_id"]: 1.0 if r["instance_id"] in ("rust0", "c0") else 0.0 for r in rows},
              "bm25": {r["instance_id"]: 1.0 if r["instance_id"] in [f"rust{n}" for n in range(10)] else 0.0
                       for r in rows},
              "both": dict.fromkeys((r["instance_id"] for r in rows), 1.0)}
    targets = {t["setting"]: t for t in fusion.issue_targets(rows, recall)}
    assert targets["bm25-like"]["below_der_or_bm25"] == [] and targets["bm25-like"]["der_solved_dropped"] == ["c 0/1"]
    assert targets["dense-like"]["below_der_or_bm25"] == ["rust"] and targets["dense-like"]["der_solved_dropped"] == []
    assert targets["bm25"]["below_der_or_bm25"] == ["rust"]  # equal to BM25 is not above it
    assert targets["both"]["below_der_or_bm25"] == targets["both"]["der_solved_dropped"] == []
    assert [t["setting"] for t in fusion.issue_targets(rows, recall)][0] == "both"
