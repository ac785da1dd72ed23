"""The first stage end to end (`spider-query`, real Neo4j and Qdrant Edge): test code kept out, the hybrid
ranking, the functions an issue names, and the same first stage and selector over another registered model."""

from __future__ import annotations

import json

import pytest
from spider.indexer.models.embedding import register_model
from spider.indexer.pipeline.index import index_repository
from spider.query.retrieve.first_stage import Origin, first_stage

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.tiny_model import build_tiny_model
from tests.integration.helpers import (
    invoke_index_json,
    invoke_spider,
    invoke_spider_query,
    one_window_per_function,
    succeeded,
    unique_name,
)

BILLING = {
    "billing/__init__.py": "",
    "billing/invoice.py": '''def render_invoice(invoice):
    lines = [header(invoice)] + [str(line) for line in invoice.lines]
    return "\\n".join(lines)


def header(invoice):
    return f"Invoice {invoice.number}"


def total_due(invoice):
    total = sum(line.amount for line in invoice.lines)
    if total < 0:
        raise ValueError("the invoice total must not be negative for a credit note")
    return total
''',
    "billing/tax.py": '''def apply_vat_rate(amount, rate):
    return amount * (1 + rate)


class TaxTable:
    def lookup_rate(self, region):
        return self.rates[region]
''',
    "tests/test_invoice.py": '''from billing.invoice import total_due


def test_total_due_of_a_credit_note_is_negative_invoice_total():
    invoice = credit_note_invoice_total_negative()
    assert total_due(invoice) < 0  # the credit note invoice total due is negative


def credit_note_invoice_total_negative():
    return make_invoice_total(credit_note=True)
''',
}
ISSUE = """Credit notes fail: the invoice total due of a credit note is negative and it raises
ValueError: the invoice total must not be negative for a credit note
Traceback (most recent call last):
  File "/srv/app/billing/tax.py", line 2, in apply_vat_rate
"""


def answer(*args: str, env: dict | None = None) -> dict:
    return json.loads(succeeded(invoke_spider_query(ISSUE, *args, "--json", env=env)))


@pytest.fixture(scope="module")
def billing(tmp_path_factory) -> str:
    root, _ = make_repo(tmp_path_factory.mktemp("billing") / "repo", BILLING)
    name = unique_name()
    invoke_index_json(root, name)
    return name


@pytest.mark.parametrize("method", ["bm25", "der", "hybrid"])
def test_test_code_is_kept_out_by_default_and_demoted_or_included_on_request(billing, method):
    def ids(tests: str | None) -> list[str]:
        chosen = ("--tests", tests) if tests else ()
        return [r["id"] for r in answer("--repo", billing, "--method", method, "-k", "8", *chosen)["results"]]

    test_function = "tests/test_invoice.py:test_total_due_of_a_credit_note_is_negative_invoice_total"
    included, demoted, excluded = ids("include"), ids("demote"), ids(None)

    assert len(included) == 7 and included.index(test_function) <= 3  # its words are the issue's: it ranks high
    assert not [i for i in excluded if i.startswith("tests/")] and excluded == [i for i in included if
                                                                               not i.startswith("tests/")]
    assert demoted.index(test_function) > included.index(test_function) and set(demoted) == set(included)


def test_hybrid_says_why_each_result_is_there_and_what_the_issue_names(billing):
    result = answer("--repo", billing, "--method", "hybrid", "-k", "6")
    by_id = {r["id"]: r for r in result["results"]}

    assert result["first_stage"] == "hybrid" and result["tests"] == "exclude"
    assert not [i for i in by_id if i.startswith("tests/")]
    frame = by_id["billing/tax.py:apply_vat_rate"]
    assert frame["origin"] == "mentioned" and frame["named"] == "a stack-trace frame"
    said = by_id["billing/invoice.py:total_due"]
    assert said["origin"] == "mentioned" and said["named"] == "an error message in its code"
    assert said["fused_from"]["bm25"] >= 1 and set(said["fused_from"]) <= {"dense", "bm25"}
    table = succeeded(invoke_spider_query(ISSUE, "--repo", billing, "--method", "hybrid", "-k", "6"))
    assert "named in the issue (a stack-trace frame), hybrid #" in table and "tests excluded" in table


SHOP = {
    "shop/orders.py": """def cancel(order):
    if order.shipped:
        raise RuntimeError(f"order {order.id}: an order that has shipped cannot be cancelled any more")
    order.state = "cancelled"


def ship(order):
    order.shipped = True
""",
    "tests/test_orders.py": """def test_a_shipped_order_stays_shipped(order):
    expect_error("an order that has shipped cannot be cancelled any more", cancel, order)
""",
}


def test_an_error_message_names_the_code_that_says_it_and_not_test_code_that_quotes_it(tmp_path):
    root, _ = make_repo(tmp_path / "repo", SHOP)
    name = unique_name()
    invoke_index_json(root, name)
    issue = "Refunds break:\nRuntimeError: order 7: an order that has shipped cannot be cancelled any more\n"

    def named(*args: str) -> dict[str, str | None]:
        found = json.loads(succeeded(invoke_spider_query(issue, "--repo", name, "--method", "hybrid", "-k", "3", *args,
                                                  "--json")))
        return {r["id"]: r["named"] for r in found["results"]}

    assert named() == {"shop/orders.py:cancel": "an error message in its code", "shop/orders.py:ship": None}
    assert named("--tests", "include")["tests/test_orders.py:test_a_shipped_order_stays_shipped"] == \
        "an error message in its code"


def test_first_stage_is_spiders_alone(billing):
    result = invoke_spider_query(ISSUE, "--repo", billing, "--method", "der", "--first-stage", "bm25")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == ["spider-query: error: --first-stage is spider's: der ranks by dense "
                                          "(use --method spider)"]


def test_spider_over_each_first_stage_starts_from_that_ranking(billing):
    for stage, method in (("dense", "der"), ("bm25", "bm25"), ("hybrid", "hybrid")):
        alone = answer("--repo", billing, "--method", method, "-k", "4")
        graph = answer("--repo", billing, "--method", "spider", "--first-stage", stage, "--selector", "none",
                       "-k", "4", "-c", "2", "-n", "50")
        assert graph["first_stage"] == stage
        assert [r["id"] for r in graph["results"]] == [r["id"] for r in alone["results"]]


def test_another_registered_model_serves_the_same_first_stage_and_selector(tmp_path):
    """A stronger model is a `spider models register` away: the hybrid first stage and the learned selector
    work over it unchanged (here a second tiny model, of another size)."""
    register_model("test/tiny-wide", build_tiny_model(tmp_path / "wide", dim=48, seed=7), dim=48, pooling="mean")
    root, _ = make_repo(tmp_path / "repo", BILLING)
    name = unique_name()
    invoke_index_json(root, name, "--model", "test/tiny-wide")

    result = answer("--repo", name, "--selector", "learned", "-k", "4", "-c", "2", "-n", "50")

    assert result["method"] == "spider" and result["first_stage"] == "hybrid" and result["model"] == "test/tiny-wide"
    assert result["selector"].startswith("learned") and len(result["results"]) == 4
    assert "billing/tax.py:apply_vat_rate" in [r["id"] for r in result["results"]]


def test_indexing_an_indexed_snapshot_with_another_model_embeds_it_with_that_model(tmp_path):
    """A model switch (`--model`, SPIDER_EMBED_MODEL) on a snapshot embedded with another model embeds it with
    the new one, and queries then use it; switching back reuses the first model's vectors."""
    register_model("test/tiny-switch", build_tiny_model(tmp_path / "switch", dim=40, seed=3), dim=40, pooling="mean")
    root, _ = make_repo(tmp_path / "repo", BILLING)
    name = unique_name()
    first = invoke_index_json(root, name)

    switched = invoke_index_json(root, name, "--model", "test/tiny-switch")
    after_switch = answer("--repo", name, "--method", "der")
    back = json.loads(succeeded(invoke_spider("index", root, "--repo", name, "--json")))

    assert first["embedding"]["model"] == "test/tiny"
    assert not switched["already_indexed"] and switched["embedding"]["model"] == "test/tiny-switch"
    assert switched["embedding"]["embedded"] == first["embedding"]["functions"] > 0
    assert after_switch["model"] == "test/tiny-switch"
    assert back["embedding"]["model"] == "test/tiny" and back["embedding"]["embedded"] == 0
    assert answer("--repo", name, "--method", "der")["model"] == "test/tiny"


def test_without_embeddings_the_default_fuses_bm25_and_mentions_and_says_so(tmp_path):
    root, _ = make_repo(tmp_path / "repo", BILLING)
    name = unique_name()
    invoke_index_json(root, name, "--no-embed")

    result = answer("--repo", name, "--selector", "learned", "-k", "4", "-c", "2", "-n", "50")

    assert result["first_stage"] == "hybrid" and result["model"] is None and len(result["results"]) == 4
    assert any("indexed without embeddings" in note for note in result["notes"])
    assert all(set(r["fused_from"] or {}) <= {"bm25"} for r in result["results"] if r["origin"] != "graph")
    dense = invoke_spider_query(ISSUE, "--repo", name, "--method", "der")
    assert dense.returncode == 2 and "indexed without embeddings" in dense.stderr


def test_a_snapshot_embedded_with_fewer_windows_says_long_functions_were_scored_by_their_first(
        tmp_path, store, repo_name, monkeypatch):
    root, sha = make_repo(tmp_path / "repo", BILLING)
    with one_window_per_function(monkeypatch):
        index_repository(store, str(root), repo=repo_name, rev=sha)

    for origin in (Origin.DENSE, Origin.HYBRID):
        ranking = first_stage(store, repo_name, sha, ISSUE, origin, 10)
        assert ranking.scored and [n for n in ranking.notes if "first window of each function only" in n], origin
    assert not first_stage(store, repo_name, sha, ISSUE, Origin.BM25, 10).notes
    index_repository(store, str(root), repo=repo_name, rev=sha)  # embeds the rest
    assert not first_stage(store, repo_name, sha, ISSUE, Origin.HYBRID, 10).notes
