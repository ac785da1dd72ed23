"""Aggregate per-instance evaluation rows: Recall/Acc/MRR@K per language and overall with bootstrap CIs,
paired tests against DER, and the exchange quantities of the paper's Prop. 1."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from spider.query.evaluation.metrics import (
    accuracy_at,
    bootstrap_ci,
    mrr_at,
    paired_bootstrap_p,
    recall_at,
    sign_flip_p,
)

BASELINE = "der"


def per_instance(rows: list[dict], method: str, k: int) -> dict[str, list[float]]:
    values: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        cell = row["methods"][method][str(k)]
        values["recall"].append(recall_at(cell["hits"], row["m"], len(cell["hits"])))
        values["acc"].append(accuracy_at(cell["hits"], row["m"], len(cell["hits"])))
        values["mrr"].append(mrr_at(cell["hits"], len(cell["hits"])))
    return values


def exchange_quantities(rows: list[dict], method: str, k: int) -> dict[str, float | None]:
    cells = [row["methods"][method][str(k)] for row in rows]
    admitted = sum(c.get("admitted", 0) for c in cells)
    displaced = sum(c.get("displaced", 0) for c in cells)
    return {
        "mean_admitted": admitted / len(cells) if cells else None,
        "eta": sum(c.get("admitted_hits", 0) for c in cells) / admitted if admitted else None,
        "tau": sum(c.get("displaced_hits", 0) for c in cells) / displaced if displaced else None,
        "mean_proposals": sum(c.get("proposals", 0) for c in cells) / len(cells) if cells else None,
        "tokens": sum(c.get("tokens", 0) for c in cells),
    }


def summarize(rows: list[dict], methods: list[str], ks: tuple[int, ...]) -> dict:
    groups = {"all": rows}
    for row in rows:
        groups.setdefault(row["language"], []).append(row)
    summary: dict = {"instances": len(rows), "groups": {}}
    for group, members in sorted(groups.items()):
        table: dict = {}
        for method in methods:
            for k in ks:
                values = per_instance(members, method, k)
                base = per_instance(members, BASELINE, k) if BASELINE in methods else None
                cell: dict[str, Any] = {}
                for metric, vals in values.items():
                    mean = sum(vals) / len(vals)
                    cell[metric] = {"mean": mean, "ci95": bootstrap_ci(vals)}
                    if base is not None and method != BASELINE:
                        cell[metric]["p_paired_bootstrap"] = paired_bootstrap_p(vals, base[metric])
                        cell[metric]["p_sign_flip"] = sign_flip_p(vals, base[metric])
                if "/" in method:
                    cell["exchange"] = exchange_quantities(members, method, k)
                table.setdefault(method, {})[str(k)] = cell
        summary["groups"][group] = {"instances": len(members), "methods": table}
    summary["gain_captured"] = gain_captured(summary, methods, ks)
    summary["acc_where_der_solves"] = acc_where_der_solves(rows, methods, ks)
    summary["locality"] = {group: locality_table(members) for group, members in sorted(groups.items())}
    unmatched = [(row["instance_id"], t) for row in rows for t in row["unmatched_targets"]]
    summary["unmatched_targets"] = {"count": len(unmatched), "of": sum(row["m"] for row in rows),
                                    "examples": [{"instance_id": i, **t} for i, t in unmatched[:30]]}
    return summary


def locality_table(rows: list[dict]) -> dict:
    """Multi-target instances: mean CONTAINS hop distance between target pairs, share of instances whose pairs
    are all within 2 / 4 hops, pairs farther than the search depth; all instances: share of targets within
    reach of a top-C dense seed, per edge configuration."""
    rows = [r for r in rows if "locality" in r]
    multi = [r for r in rows if len([n for n in r["locality"]["target_nodes"] if n]) > 1]
    pairs = [h for r in multi for h in r["locality"]["pair_hops"]]
    near = [h for h in pairs if h is not None]

    def all_within(row: dict, hops: int) -> bool:
        return all(h is not None and h <= hops for h in row["locality"]["pair_hops"])

    targets = sum(r["m"] for r in rows)
    configs = sorted({c for r in rows for c in r["locality"]["reachable_from_seeds"]})
    return {
        "instances": len(rows), "multi_target_instances": len(multi),
        "mean_pair_hops": sum(near) / len(near) if near else None,
        "share_within_2": sum(all_within(r, 2) for r in multi) / len(multi) if multi else None,
        "share_within_4": sum(all_within(r, 4) for r in multi) / len(multi) if multi else None,
        "pairs": len(pairs), "pairs_beyond_search": len(pairs) - len(near),
        "share_targets_reachable_from_seeds": {
            c: sum(r["locality"]["reachable_from_seeds"].get(c, 0) for r in rows) / targets if targets else None
            for c in configs},
    }


def acc_where_der_solves(rows: list[dict], methods: list[str], ks: tuple[int, ...]) -> dict:
    """Per method and K: over the instances DER solves (Acc@K = 1), the share the method still solves. A
    selector that admits noise evicts targets DER had; this is where it shows."""
    if BASELINE not in methods:
        return {}
    out: dict = {}
    for k in ks:
        solved = [r for r in rows if accuracy_at(r["methods"][BASELINE][str(k)]["hits"], r["m"], k)]
        for method in methods:
            kept = [accuracy_at(r["methods"][method][str(k)]["hits"], r["m"], len(r["methods"][method][str(k)]["hits"]))
                    for r in solved]
            out.setdefault(method, {})[str(k)] = {"instances": len(solved),
                                                  "acc": sum(kept) / len(kept) if kept else None}
    return out


def gain_captured(summary: dict, methods: list[str], ks: tuple[int, ...]) -> dict:
    """(Recall@K(method) − Recall@K(DER)) / (Recall@K(ceiling or oracle, same edges) − Recall@K(DER))."""
    out: dict = {}
    overall = summary["groups"]["all"]["methods"]
    for method in methods:
        if not method.startswith("spider/") or method.split("/")[1] in ("all", "oracle") or BASELINE not in overall:
            continue
        edges = method.split("/")[2]
        for bound in ("all", "oracle"):
            reference = f"spider/{bound}/{edges}"
            if reference not in overall:
                continue
            for k in ks:
                der = overall[BASELINE][str(k)]["recall"]["mean"]
                gain = overall[reference][str(k)]["recall"]["mean"] - der
                mine = overall[method][str(k)]["recall"]["mean"] - der
                out.setdefault(method, {}).setdefault(bound, {})[str(k)] = mine / gain if gain > 0 else None
    return out


def render_markdown(summary: dict, methods: list[str], ks: tuple[int, ...]) -> str:
    lines = []
    for group, data in summary["groups"].items():
        lines += [f"### {group} ({data['instances']} instances)", "",
                  "| method | " + " | ".join(f"R@{k}" for k in ks) + " | " + " | ".join(f"Acc@{k}" for k in ks)
                  + f" | MRR@{ks[-1]} | p vs DER (R@20, sign-flip) | mean A / η / τ (K=20) |",
                  "|---|" + "---:|" * (2 * len(ks) + 3)]
        for method in methods:
            cells = data["methods"][method]
            recall = [f"{cells[str(k)]['recall']['mean']:.3f}" for k in ks]
            acc = [f"{cells[str(k)]['acc']['mean']:.3f}" for k in ks]
            at20 = cells.get("20", cells[str(ks[-1])])
            p = at20["recall"].get("p_sign_flip")
            ex = at20.get("exchange")
            exchange = "" if not ex else " / ".join(
                "–" if v is None else f"{v:.2f}" for v in (ex["mean_admitted"], ex["eta"], ex["tau"]))
            lines.append(f"| {method} | " + " | ".join(recall) + " | " + " | ".join(acc)
                         + f" | {cells[str(ks[-1])]['mrr']['mean']:.3f} | {'' if p is None else f'{p:.3f}'} | {exchange} |")
        lines.append("")
    lines += ["### Locality of targets", "",
              "| group | instances (multi-target) | mean pair hops (contains) | all pairs ≤ 2 / ≤ 4 hops | pairs beyond 6 hops | targets reachable from top-C seeds |",
              "|---|---:|---:|---:|---:|---|"]
    for group, table in summary.get("locality", {}).items():
        fmt = lambda v: "–" if v is None else f"{v:.2f}"
        reach = ", ".join(f"{c} {fmt(v)}" for c, v in table["share_targets_reachable_from_seeds"].items())
        lines.append(f"| {group} | {table['instances']} ({table['multi_target_instances']}) | {fmt(table['mean_pair_hops'])} | "
                     f"{fmt(table['share_within_2'])} / {fmt(table['share_within_4'])} | {table['pairs_beyond_search']} of {table['pairs']} | {reach} |")
    return "\n".join(lines) + "\n"
