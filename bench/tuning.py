"""The embedding-tuning experiments of issue 23: a sample of `spider models pairs` output to train on, and a report
of one experiment (the tuned model's training record beside `spider eval` of the base and the tuned model on the
same instances).

    python bench/tuning.py sample --pairs PAIRS --out SAMPLE [--per-repo 450] [--validation-per-repo 40]
    spider models tune --pairs SAMPLE --name NAME ...
    SPIDER_EMBED_MODEL=NAME spider eval ... --out TUNED ;  spider eval ... --out BASE
    python bench/tuning.py report --model-dir SPIDER_HOME/models/NAME --pairs-summary PAIRS.summary.json \\
        --base BASE --tuned TUNED --title "..." --notes "..." [--bm25 SR]
    python bench/tuning.py throughput --pairs PAIRS --base all-MiniLM-L6-v2 --tuned NAME [--texts 600 --passes 3]
    python bench/tuning.py steps --pairs PAIRS --base all-MiniLM-L6-v2 [--rounds 3 --frozen-layers 3 --train-tokens 128]
    python bench/tuning.py ship --model-dir SPIDER_HOME/models/NAME --name SHIPPED --description "..." --pairs PAIRS

`ship` writes a tuned model into indexer/vectors/shipped/ (its 4-bit weight delta from all-MiniLM-L6-v2 and a
manifest with the trained weights' vectors of reference texts), builds it from there as `spider models prepare`
does, and writes bench/results/tuning_shipped.{md,json}: the delta's size and the build's cosine with the
trained weights on validation texts.

`throughput` embeds the same seeded sample of function texts with both models, passes interleaved, and writes
bench/results/tuning_throughput.{md,json}: a tuned model has its base's architecture, so the two must be equal
within noise.

`steps` times training steps (forward, backward, optimizer) on seeded batches of a pairs file, interleaved: each
batch's texts in one padded batch and in the `Encoder`'s length-sorted chunks, then chunks with the lower layers
frozen, with a shorter training truncation and with both (the CPU recipe); it writes
bench/results/tuning_steps.{md,json}.

The sample keeps whole commits (a commit's pairs share its message), chosen per repository by a seeded shuffle,
so no repository's history dominates. The report appends the experiment to bench/results/tuning.md (the log: one
section per experiment, newest last) and its figures to bench/results/tuning.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from environment import machine, spider_commit  # noqa: E402 - bench/environment.py
from spider.query.cli.eval import merge_cross_validation  # noqa: E402
from spider.query.evaluation.metrics import (  # noqa: E402
    accuracy_at,
    bootstrap_ci,
    mrr_at,
    paired_bootstrap_p,
    recall_at,
    sign_flip_p,
)
from spider.query.evaluation.run import read_results  # noqa: E402

RESULTS = ROOT / "bench" / "results"
METHODS = ("der", "hybrid", "spider/learned/contains:4,invokes:2", "spider/learned-cv/contains:4,invokes:2")


def sample(pairs: Path, out: Path, per_repo: int, validation_per_repo: int, seed: int) -> dict:
    """Write at most per_repo training and validation_per_repo validation pairs of each repository, whole commits."""
    commits: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for line in pairs.read_text().splitlines():
        row = json.loads(line)
        commits[(row["repo"], row["split"])][row["commit"]].append(line)
    kept: list[str] = []
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for (repo, split), by_commit in sorted(commits.items()):
        cap = per_repo if split == "train" else validation_per_repo
        order = sorted(by_commit)
        random.Random(f"{seed}:{repo}:{split}").shuffle(order)
        chosen: list[str] = []
        for commit in order:
            if len(chosen) + len(by_commit[commit]) <= cap:
                chosen.extend(by_commit[commit])
        kept.extend(chosen)
        counts[repo][split] = len(chosen)
    out.write_text("".join(line + "\n" for line in kept))
    return {"pairs": str(pairs), "out": str(out), "per_repo": per_repo, "validation_per_repo": validation_per_repo,
            "seed": seed, "counts": counts}


def _scores(rows: dict[str, dict], method: str, k: int) -> dict[str, dict[str, float]]:
    """Per instance: recall, accuracy and MRR of method at k, from its answer at k (spider's differs with K)."""
    out = {}
    for instance, row in rows.items():
        hits = row["methods"][method][str(k)]["hits"]
        out[instance] = {"recall": recall_at(hits, row["m"], k), "acc": accuracy_at(hits, row["m"], k),
                         "mrr": mrr_at(hits, k)}
    return out


def _rows(eval_dir: Path) -> dict[str, dict]:
    """A `spider eval` directory's rows by instance, with `spider train-selector`'s out-of-fold answers if any."""
    rows = read_results(eval_dir / "instances.jsonl")
    merge_cross_validation(rows, eval_dir / "learned_cv.jsonl")
    return {r["instance_id"]: r for r in rows}


def compare(base_dir: Path, tuned_dir: Path) -> dict:
    """Base vs tuned for METHODS per language (and all) at K 5/10/20/50 on the instances both ran (`learned-cv`:
    where `spider train-selector` ran on both, each model's selector trained out of fold on its own candidates)."""
    base, tuned = _rows(base_dir), _rows(tuned_dir)
    shared = sorted(set(base) & set(tuned))
    languages = {"all": shared}
    for instance in shared:
        languages.setdefault(base[instance]["language"], []).append(instance)
    table: dict = {}
    for language, instances in languages.items():
        for method in METHODS:
            if not all(method in base[i]["methods"] and method in tuned[i]["methods"] for i in instances):
                continue
            for k in (5, 10, 20, 50):
                b = _scores({i: base[i] for i in instances}, method, k)
                t = _scores({i: tuned[i] for i in instances}, method, k)
                entry = {}
                for metric in ("recall", "acc", "mrr"):
                    bv, tv = [b[i][metric] for i in instances], [t[i][metric] for i in instances]
                    entry[metric] = {"base": sum(bv) / len(bv), "tuned": sum(tv) / len(tv),
                                     "tuned_ci95": bootstrap_ci(tv), "p_paired_bootstrap": paired_bootstrap_p(tv, bv),
                                     "p_sign_flip": sign_flip_p(tv, bv)}
                table.setdefault(language, {"instances": len(instances)}).setdefault(method, {})[str(k)] = entry
    return table


def _found(row: dict, method: str) -> set[int]:
    """The targets (indices) method's top 50 holds."""
    return {t for hits in row["methods"][method]["50"]["hits"] for t in hits}


def complementarity(base_dir: Path, tuned_dir: Path, bm25_dir: Path) -> dict:
    """How each model's dense top 50 complements BM25's (`spider eval --method sr`), which is what fusion gains
    from: the functions both rank, the targets only the dense ranking finds, and what the two find together."""
    bm25 = {r["instance_id"]: r for r in read_results(bm25_dir / "instances.jsonl")}
    out = {}
    for name, directory in (("base", base_dir), ("tuned", tuned_dir)):
        rows = {r["instance_id"]: r for r in read_results(directory / "instances.jsonl")}
        shared = sorted(set(rows) & set(bm25))
        overlap, only_dense, union50 = [], [], []
        for instance in shared:
            dense, lexical, m = rows[instance], bm25[instance], rows[instance]["m"]
            ids = set(dense["methods"]["der"]["50"]["ids"]) & set(lexical["methods"]["sr"]["50"]["ids"])
            by_dense, by_bm25 = _found(dense, "der"), _found(lexical, "sr")
            overlap.append(len(ids))
            only_dense.append(len(by_dense - by_bm25) / m)
            union50.append(len(by_dense | by_bm25) / m)
        out[name] = {"instances": len(shared), "shared_top50": statistics.mean(overlap),
                     "only_dense_top50": statistics.mean(only_dense), "union_recall50": statistics.mean(union50)}
    return out


def report(args: argparse.Namespace) -> None:
    info = json.loads((args.model_dir / "tune_info.json").read_text())
    pairs_summary = json.loads(args.pairs_summary.read_text())
    table = compare(args.base, args.tuned)
    record = {"title": args.title, "date": dt.date.today().isoformat(), "notes": args.notes, "tune_info": info,
              "pairs_summary": pairs_summary, "sample": json.loads(args.sample.read_text()) if args.sample else None,
              "comparison": table, "machine": machine(("torch",)), "spider": spider_commit(),
              "complementarity": complementarity(args.base, args.tuned, args.bm25) if args.bm25 else None}
    log_json = RESULTS / "tuning.json"
    experiments = json.loads(log_json.read_text()) if log_json.exists() else []
    experiments = [e for e in experiments if e["title"] != args.title] + [record]
    log_json.write_text(json.dumps(experiments, indent=1) + "\n")
    (RESULTS / "tuning.md").write_text(render(experiments))
    print(render([record]))


def render(experiments: list[dict]) -> str:
    lines = ["# Embedding tuning: the experiment log (issue 23)", "",
             "Each experiment: the pairs it trained on, the settings, the validation in-batch accuracy per epoch, and "
             "`spider eval` of the base and the tuned model on the same instances, side by side. Written by "
             "`bench/tuning.py report`; the newest last. Figures from a subset of the dev split say so.", "",
             *summary_table(experiments), ""]
    for e in experiments:
        info = e["tune_info"]
        lines += [f"## {e['title']} ({e['date']})", "", e["notes"], ""]
        lines += [f"- Model `{info['name']}` from `{info['base']}` on {info['device']} (torch {info['torch']}), "
                  f"settings {json.dumps(info['settings'])}; {info['train_pairs']} training and "
                  f"{info['validation_pairs']} validation pairs (sha256 {info['pairs_sha256'][:12]}…); training "
                  f"{info['train_seconds'] / 60:.1f} min; export check cosine {info['check_min_cosine']}.",
                  "- Validation in-batch accuracy by epoch: " + ", ".join(
                      f"{row['epoch']}: {row['validation_accuracy']:.3f}" + (f" (loss {row['train_loss']})" if "train_loss" in row else "")
                      for row in info["epochs"]) + ".",
                  f"- Machine: {e['machine']['cpu_model']}, {e['machine']['nproc']} cores; spider {e['spider']['sha'][:12]}.", ""]
        repos = e["pairs_summary"]["repositories"]
        sample = (e.get("sample") or {}).get("counts", {})
        lines += ["| repository | head | commits read | pairs (language/split) | sampled train / validation |",
                  "|---|---|---:|---|---:|"]
        for name, repo in repos.items():
            read = sum(repo["commits"].values())
            pairs = ", ".join(f"{k} {v}" for k, v in repo["pairs"].items())
            note = " (history read in part)" if "unreadable" in repo else ""
            taken = sample.get(name, {})
            lines.append(f"| {name} | {repo['head'][:12]} | {read}{note} | {pairs} | "
                         f"{taken.get('train', 0)} / {taken.get('validation', 0)} |")
        lines += ["", *comparison_table(e["comparison"])]
        if e.get("complementarity"):
            lines += ["", "The dense top 50 beside BM25's (`sr`), which fusion draws on: functions both rank, the share "
                          "of targets only the dense ranking finds, and the share the two find together.", "",
                      "| model | instances | functions in both top 50s | targets only dense finds (top 50) | "
                      "union Recall@50 |", "|---|---:|---:|---:|---:|"]
            for name, c in e["complementarity"].items():
                lines.append(f"| {name} | {c['instances']} | {c['shared_top50']:.2f} | {c['only_dense_top50']:.3f} | "
                             f"{c['union_recall50']:.3f} |")
        lines.append("")
    return "\n".join(lines)


SUMMARY_METHODS = ("der", "hybrid", "spider/learned/contains:4,invokes:2")


def summary_table(experiments: list[dict]) -> list[str]:
    """One row per experiment: what it trained on and Recall@20 base → tuned over all its instances, per method."""
    lines = ["Summary: Recall@20 over all of each experiment's instances, its reference → the tuned model. The "
             "reference is the base model all-MiniLM-L6-v2 unless the experiment's section names another (experiment "
             "9 compares with the same pairs' commit messages, experiment 10 with experiment 6's model); the sections "
             "have the per-language figures, the intervals and the p-values.", "",
             "| experiment | model | training pairs | epochs | device | instances | "
             + " | ".join(f"{m} R@20" for m in SUMMARY_METHODS) + " |", "|---|---|---:|---:|---|---:|"
             + "---|" * len(SUMMARY_METHODS)]
    for e in experiments:
        info, overall = e["tune_info"], e["comparison"]["all"]
        cells = [f"{overall[m]['20']['recall']['base']:.3f} → {overall[m]['20']['recall']['tuned']:.3f}"
                 if m in overall else "–" for m in SUMMARY_METHODS]
        lines.append(f"| {e['title'].split(':')[0]} | `{info['name']}` | {info['train_pairs']:,} | "
                     f"{info['settings']['epochs']} | {info['device']} | {overall['instances']} | {' | '.join(cells)} |")
    return lines


def comparison_table(comparison: dict) -> list[str]:
    """The markdown table of a `compare` result: base → tuned per language and method."""
    lines = ["| language | instances | method | R@5 base → tuned | R@10 | R@20 (tuned 95% CI) | R@50 | Acc@20 | MRR@50 | p R@20 (bootstrap / sign-flip) |",
             "|---|---:|---|---|---|---|---|---|---|---|"]
    for language, methods in comparison.items():
        for method, by_k in methods.items():
            if method == "instances":
                continue

            def pair(k: str, metric: str = "recall") -> str:
                v = by_k[k][metric]
                return f"{v['base']:.3f} → {v['tuned']:.3f}"

            r20 = by_k["20"]["recall"]
            lines.append(f"| {language} | {methods['instances']} | {method} | {pair('5')} | {pair('10')} | "
                         f"{pair('20')} ({r20['tuned_ci95'][0]:.3f}–{r20['tuned_ci95'][1]:.3f}) | {pair('50')} | "
                         f"{pair('20', 'acc')} | {pair('50', 'mrr')} | {r20['p_paired_bootstrap']:.3f} / {r20['p_sign_flip']:.3f} |")
    return lines


def write_results(stem: str, record: dict, markdown: list[str]) -> None:
    """bench/results/STEM.json (the record) and STEM.md (its lines)."""
    (RESULTS / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n")
    (RESULTS / f"{stem}.md").write_text("\n".join([*markdown, ""]))


def throughput(args: argparse.Namespace) -> dict:
    from spider.indexer.vectors.embedding import open_embedder

    texts = sorted({json.loads(line)["text"] for line in args.pairs.open()})
    texts = random.Random(args.seed).sample(texts, min(args.texts, len(texts)))
    models = {"base": open_embedder(args.base), "tuned": open_embedder(args.tuned)}
    for embedder in models.values():
        embedder.embed_documents(texts[:32])  # warm
    rates: dict[str, list[float]] = {role: [] for role in models}
    for _ in range(args.passes):
        for role, embedder in models.items():
            started = time.perf_counter()
            embedder.embed_documents(texts)
            rates[role].append(round(len(texts) / (time.perf_counter() - started), 2))
    ratios = [round(t / b, 3) for b, t in zip(rates["base"], rates["tuned"])]
    record = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "texts": len(texts),
              "seed": args.seed, "passes": args.passes, "models": {"base": args.base, "tuned": args.tuned},
              "texts_per_s": rates, "median_texts_per_s": {r: statistics.median(v) for r, v in rates.items()},
              "tuned_over_base": ratios, "median_ratio": statistics.median(ratios),
              "machine": machine(("fastembed", "onnxruntime")), "spider": spider_commit()}
    write_results("tuning_throughput", record, [
        f"# Embedding throughput: base and tuned model ({record['date']})", "",
        f"`bench/tuning.py throughput`: {len(texts)} function texts (a seeded sample of a pairs file, seed "
        f"{args.seed}) embedded by `Embedder.embed_documents` with `{args.base}` and `{args.tuned}`, "
        f"{args.passes} interleaved passes, on {record['machine']['cpu_model']} ({record['machine']['nproc']} "
        f"cores, shared); spider {record['spider']['sha'][:12]}.", "",
        "| model | texts/s per pass | median |", "|---|---|---:|",
        *(f"| {role} `{record['models'][role]}` | {', '.join(map(str, v))} | {record['median_texts_per_s'][role]} |"
          for role, v in rates.items()), "",
        f"Tuned over base, per pass: {', '.join(map(str, ratios))}; median **{record['median_ratio']}**."])
    return record


def steps(args: argparse.Namespace) -> dict:
    import torch
    from spider.indexer.tuning.batches import Pair, batches_without_repeats
    from spider.indexer.tuning.bert import load_bert
    from spider.indexer.tuning.train import CHUNK, Encoder, freeze_lower_layers, train_step
    from spider.indexer.tuning.tune import base_directory, load_tokenizer

    pairs = [Pair(row["message"], row["text"]) for row in map(json.loads, args.pairs.open())]
    batches = batches_without_repeats(pairs, args.batch_size, random.Random(args.seed))[:args.rounds]
    source = base_directory(args.base)
    chunked = f"chunks of {CHUNK}"
    ways = {  # name: (chunk, frozen layers, training truncation)
        "one padded batch": (args.batch_size, 0, args.max_tokens),
        chunked: (CHUNK, 0, args.max_tokens),
        f"{chunked}, {args.frozen_layers} frozen layers": (CHUNK, args.frozen_layers, args.max_tokens),
        f"{chunked}, {args.train_tokens} tokens": (CHUNK, 0, args.train_tokens),
        f"{chunked}, {args.frozen_layers} frozen layers, {args.train_tokens} tokens":
            (CHUNK, args.frozen_layers, args.train_tokens),
    }
    steppers = {}
    for way, (chunk, frozen, tokens) in ways.items():
        encoder = Encoder(load_bert(source), load_tokenizer(source), torch.device("cpu"), tokens, chunk=chunk)
        encoder.model.train()
        steppers[way] = (encoder, torch.optim.AdamW(freeze_lower_layers(encoder.model, frozen), lr=2e-5))
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    for batch in batches:
        for way, (encoder, optimizer) in steppers.items():
            started = time.perf_counter()
            train_step(encoder, optimizer, [pairs[i].message for i in batch], [pairs[i].text for i in batch])
            seconds[way].append(round(time.perf_counter() - started, 2))
    medians = {way: statistics.median(v) for way, v in seconds.items()}
    over_chunked = {way: [round(a / b, 3) for a, b in zip(v, seconds[chunked])] for way, v in seconds.items()}
    record = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "base": args.base,
              "batch_size": args.batch_size, "max_tokens": args.max_tokens, "rounds": len(batches), "seed": args.seed,
              "torch_threads": torch.get_num_threads(), "seconds_per_step": seconds, "median_seconds": medians,
              f"over_{chunked.replace(' ', '_')}": over_chunked, "machine": machine(("torch",)),
              "spider": spider_commit()}
    write_results("tuning_steps", record, [
        f"# Training step time: padding, frozen layers and training truncation ({record['date']})", "",
        f"`bench/tuning.py steps`: {len(batches)} seeded batches of {args.batch_size} pairs of `{args.pairs.name}`, "
        f"{args.max_tokens} tokens at most unless a way says fewer, `{args.base}`, forward + backward + AdamW step, "
        f"the ways interleaved on the same batches; {record['machine']['cpu_model']} "
        f"({record['machine']['nproc']} cores, shared), {record['torch_threads']} torch threads; "
        f"spider {record['spider']['sha'][:12]}. `spider models tune` encodes in chunks; `--frozen-layers` and "
        "`--train-tokens` choose the other ways.", "",
        f"| way | seconds per step | median | over {chunked}, per step |", "|---|---|---:|---|",
        *(f"| {way} | {', '.join(map(str, v))} | {medians[way]} | {', '.join(map(str, over_chunked[way]))} |"
          for way, v in seconds.items()), "",
        f"An epoch of 25,000 pairs ({25000 // args.batch_size} steps) at the median: "
        + ", ".join(f"{way} {medians[way] * (25000 // args.batch_size) / 60:.0f} min" for way in ways) + "."])
    return record


SHIP_TEXTS = (  # reference texts a shipped model's build is checked on, beside the default model's three
    "TypeError when parsing a date string with a timezone offset: the offset is ignored",
    "Fix a crash in the connection pool when the server closes the socket during a retry",
    "func (s *Server) Shutdown(ctx context.Context) error {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n"
    "\treturn s.listener.Close()\n}",
)


def ship(args: argparse.Namespace) -> dict:
    """Write a tuned model as a shipped model: its weight delta from all-MiniLM-L6-v2 and a manifest with
    reference vectors of the trained weights, into indexer/vectors/shipped/; then build it from there as
    `spider models prepare` does and measure how closely the build reproduces the trained weights."""
    import tempfile

    import numpy as np
    import torch
    from safetensors.numpy import load_file, save_file
    from spider.indexer.tuning.bert import load_bert
    from spider.indexer.tuning.train import Encoder
    from spider.indexer.tuning.tune import load_tokenizer
    from spider.indexer.vectors import model_build, weight_delta

    base_weights = load_file(str(model_build.source_dir() / "model.safetensors"))
    trained = load_bert(args.model_dir)
    trained.eval()
    encoder = Encoder(trained, load_tokenizer(args.model_dir), torch.device("cpu"), model_build.MAX_TOKENS)

    def trained_vectors(texts: list[str]) -> np.ndarray:
        with torch.no_grad():
            return encoder(texts).numpy()

    delta = weight_delta.encode_delta(base_weights, load_file(str(args.model_dir / "model.safetensors")))
    out_dir = model_build.SHIPPED_DIR
    delta_path = out_dir / f"{args.name}.delta.safetensors"
    save_file(delta, str(delta_path))
    delta_path.chmod(0o644)
    golden_texts = [*model_build.GOLDEN_TEXTS, *SHIP_TEXTS]
    tune_info = json.loads((args.model_dir / "tune_info.json").read_text())
    manifest = {
        "name": args.name, "base": model_build.BASE_NAME, "description": args.description,
        "delta_file": delta_path.name, "delta_sha256": model_build.sha256_file(delta_path),
        "delta_bytes": delta_path.stat().st_size, "golden_texts": golden_texts,
        "golden_vectors": model_build.encode_vectors(trained_vectors(golden_texts)),
        "training": {key: tune_info[key] for key in ("pairs_sha256", "train_pairs", "validation_pairs", "settings",
                                                     "device", "torch", "train_seconds", "epochs") if key in tune_info},
        "card": f"docs/embeddings.md#the-shipped-tuned-model-{args.name}",
    }
    manifest_path = out_dir / f"{args.name}.json"
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    model_build.built_models.cache_clear()
    rows = [json.loads(line) for line in args.pairs.open()]
    rows = random.Random(args.seed).sample([r for r in rows if r["split"] == "validation"], args.texts)
    texts = [r["message"] for r in rows] + [r["text"] for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        info = model_build.build_model(Path(tmp) / args.name, model_build.read_manifest(manifest_path))
        cosines = model_build.onnx_cosines(Path(tmp) / args.name, texts, trained_vectors(texts), model_build.MAX_TOKENS)
    record = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "name": args.name,
              "trained_weights": str(args.model_dir), "delta_bytes": manifest["delta_bytes"],
              "float16_weights_bytes": 2 * sum(v.size for v in base_weights.values()),
              "build_seconds": info["seconds"], "golden_min_cosine": info["golden_min_cosine"],
              "validation_texts": len(texts), "seed": args.seed, "min_cosine": round(min(cosines), 7),
              "mean_cosine": round(float(np.mean(cosines)), 7), "spider": spider_commit()}
    write_results("tuning_shipped", record, [
        f"# The shipped tuned model `{args.name}`: weight delta and fidelity ({record['date']})", "",
        f"`bench/tuning.py ship`: the trained weights ({tune_info.get('train_pairs')} training pairs, pairs sha256 "
        f"{str(tune_info.get('pairs_sha256'))[:12]}…) written as a 4-bit weight delta from all-MiniLM-L6-v2 "
        f"(`indexer/vectors/weight_delta.py`), {record['delta_bytes'] / 1e6:.1f} MB against "
        f"{record['float16_weights_bytes'] / 1e6:.1f} MB of float16 weights, then built from it as "
        f"`spider models prepare {args.name}` builds it ({record['build_seconds']} s). The build's vectors of "
        f"{len(texts)} texts (the messages and function texts of {args.texts} validation pairs, seed {args.seed}) "
        f"against the trained weights' (torch): cosine min **{record['min_cosine']}**, mean {record['mean_cosine']}; "
        f"its {len(golden_texts)} reference texts: min {record['golden_min_cosine']}. "
        f"spider {record['spider']['sha'][:12]}."])
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("sample", help="a per-repository sample of a pairs file, whole commits")
    s.add_argument("--pairs", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--per-repo", type=int, default=450)
    s.add_argument("--validation-per-repo", type=int, default=40)
    s.add_argument("--seed", type=int, default=0)
    r = commands.add_parser("report", help="append one experiment to bench/results/tuning.{md,json}")
    r.add_argument("--model-dir", type=Path, required=True)
    r.add_argument("--pairs-summary", type=Path, required=True)
    r.add_argument("--sample", type=Path, help="the sample's record (`sample` prints it; saved as JSON)")
    r.add_argument("--base", type=Path, required=True, help="`spider eval` results with the base model")
    r.add_argument("--tuned", type=Path, required=True, help="`spider eval` results with the tuned model")
    r.add_argument("--title", required=True)
    r.add_argument("--notes", default="", help="paragraphs, separated by blank lines")
    r.add_argument("--bm25", type=Path, help="`spider eval --method sr` results on the same instances: how each "
                                             "model's dense ranking complements BM25's")
    t = commands.add_parser("throughput", help="embedding throughput of the base and the tuned model, side by side")
    t.add_argument("--pairs", type=Path, required=True, help="function texts are sampled from it")
    t.add_argument("--base", required=True)
    t.add_argument("--tuned", required=True)
    t.add_argument("--texts", type=int, default=600)
    t.add_argument("--passes", type=int, default=3)
    t.add_argument("--seed", type=int, default=0)
    st = commands.add_parser("steps", help="training step time: padding, frozen layers, training truncation")
    st.add_argument("--pairs", type=Path, required=True)
    st.add_argument("--base", required=True)
    st.add_argument("--rounds", type=int, default=3)
    st.add_argument("--batch-size", type=int, default=32)
    st.add_argument("--max-tokens", type=int, default=256)
    st.add_argument("--frozen-layers", type=int, default=3)
    st.add_argument("--train-tokens", type=int, default=128)
    st.add_argument("--seed", type=int, default=0)
    sh = commands.add_parser("ship", help="write a tuned model into indexer/vectors/shipped/ as a weight delta")
    sh.add_argument("--model-dir", type=Path, required=True, help="SPIDER_HOME/models/NAME of `spider models tune`")
    sh.add_argument("--name", required=True, help="the shipped model's name (`spider models prepare NAME`)")
    sh.add_argument("--description", required=True)
    sh.add_argument("--pairs", type=Path, required=True, help="its pairs: validation texts for the fidelity check")
    sh.add_argument("--texts", type=int, default=200)
    sh.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "ship":
        print(json.dumps(ship(args), indent=1))
    elif args.command == "steps":
        print(json.dumps(steps(args), indent=1))
    elif args.command == "throughput":
        print(json.dumps(throughput(args), indent=1))
    elif args.command == "sample":
        record = sample(args.pairs, args.out, args.per_repo, args.validation_per_repo, args.seed)
        args.out.with_name(args.out.name + ".sample.json").write_text(json.dumps(record, indent=1) + "\n")
        print(json.dumps(record, indent=1))
    else:
        report(args)


if __name__ == "__main__":
    main()
