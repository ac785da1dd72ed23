"""Aggregate per-instance evaluation rows: Recall/Acc/MRR@K per language and overall with bootstrap CIs,
paired tests against DER, and the exchange quantities of the paper's Prop. 1."""

from __future__ import annotations

from collections import defaultdict

from query.metrics import accuracy_at, bootstrap_ci, mrr_at, paired_bootstrap_p, recall_at, sign_flip_p

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
                cell = {}
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
    unmatched = [(row["instance_id"], t) for row in rows for t in row["unmatched_targets"]]
    summary["unmatched_targets"] = {"count": len(unmatched), "of": sum(row["m"] for row in rows),
                                    "examples": [{"instance_id": i, **t} for i, t in unmatched[:30]]}
    return summary


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
    return "\n".join(lines)
