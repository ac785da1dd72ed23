"""Answering while indexing on the default local vector store (issue 47): while `spider index` of a repository
runs in another process on the same SPIDER_HOME, queries of that repository's indexed snapshot and an index run of
another repository go on, and answer as they would with nothing running."""

from __future__ import annotations

import json
import subprocess
import threading
import time

from tests.fixtures.gitrepo import make_repo
from tests.integration.helpers import invoke_index_json, invoke_spider_query, succeeded, unique_name

ISSUE = "Invoice total is wrong: compute_invoice_total ignores the tax rate for invoice lines"
INVOICE = ("def compute_invoice_total(invoice_lines, tax_rate):\n"
           "    subtotal = sum(line.amount for line in invoice_lines)\n"
           "    return subtotal * (1 + tax_rate)\n")
BOUND = 60  # seconds a query may take on a loaded 2-core machine while the other run parses, writes and embeds


def many_functions(variant: str, modules: int = 60, per_module: int = 50) -> dict[str, str]:
    """Long functions (several windows of the model each), their code changed with `variant`."""
    body = "".join(f"    total_{j} = value * {j} + offset_{variant}\n" for j in range(30))
    return {f"pkg/m{m}.py": "".join(f"def f{m}_{i}(value, offset_{variant}):\n{body}    return total_0\n\n\n"
                                    for i in range(per_module)) for m in range(modules)}


def answer(repo: str, rev: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.monotonic()
    result = invoke_spider_query(ISSUE, "--repo", repo, "--rev", rev, "--method", "der", "-k", "3", "--json")
    return time.monotonic() - started, result


def test_queries_and_another_repository_s_index_run_answer_while_a_repository_is_indexed(tmp_path, repo_name):
    root, first = make_repo(tmp_path / "repo", {"billing/invoice.py": INVOICE, **many_functions("a")})
    invoke_index_json(root, repo_name)
    idle = json.loads(succeeded(answer(repo_name, first)[1]))["results"]
    _, second = make_repo(root, many_functions("b"), "change every function: all of them to embed again")
    other_root, _ = make_repo(tmp_path / "other", {"billing/invoice.py": INVOICE})

    run = subprocess.Popen(["spider", "index", str(root), "--repo", repo_name], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)  # not --json: its stages show on stderr
    embedding = threading.Event()
    stderr: list[str] = []

    def watch() -> None:
        for line in run.stderr:
            stderr.append(line)
            if line.startswith("embedding functions"):
                embedding.set()

    watcher = threading.Thread(target=watch)
    watcher.start()
    answers, other = [], None
    while run.poll() is None:
        during_embedding = embedding.is_set()
        seconds, result = answer(repo_name, first)
        answers.append((seconds, result, during_embedding and run.poll() is None))
        if other is None:
            other = invoke_index_json(other_root, unique_name())  # embeds into its own shard meanwhile
            other_done_meanwhile = run.poll() is None
    out = run.stdout.read()
    run.wait(600)
    watcher.join(30)

    assert run.returncode == 0, "".join(stderr)
    assert out.startswith(f"indexed {repo_name} @ {second} (HEAD) in "), out
    assert other is not None and not other["already_indexed"] and other_done_meanwhile
    assert len(answers) >= 3, f"only {len(answers)} queries ran during the index run"
    for seconds, result, _ in answers:
        assert json.loads(succeeded(result))["results"] == idle and seconds < BOUND, (seconds, result.stderr)
    assert any(during for *_, during in answers), "no query ran while the other run embedded"
