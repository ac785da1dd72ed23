"""Tests that call spider's functions without settings (the vector store, the model registry, the parse cache) fall
back on the environment's SPIDER_HOME (~/.spider by default). So that no test run writes into a real spider home,
SPIDER_HOME points at a throwaway folder before any test runs; the integration tests' session fixture then sets
their own (SPIDER_TEST_HOME or a temporary one).

The slow lane: the tests SLOW names are marked `slow`, so that `pytest -m "not slow" tests` runs the rest in a few
minutes; the README's `pytest tests` and CI run them all."""

import ast
import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests check what happens, not how fast: on a shared machine under load one example can take seconds,
# and hypothesis's default 200 ms deadline then fails a correct test.
settings.register_profile("spider", deadline=None)
settings.load_profile("spider")

os.environ["SPIDER_HOME"] = tempfile.mkdtemp(prefix="spider-test-home-")
atexit.register(shutil.rmtree, os.environ["SPIDER_HOME"], ignore_errors=True)

# The slowest tests (a test with all its parameters, or a whole module): about 14 of 1,288 that take half the suite's
# time, 510 of 1,030 s (`--durations` of a whole run on a 2-core machine shared with other work, November 2026; the
# times are each test's, with all its parameters). Several kill or restart Neo4j or a worker, or wait out timeouts.
SLOW = (
    "tests/integration/indexer/distributed/test_distributed.py::test_neo4j_crashing_mid_write_is_retried_to_the_same_graph",  # 81 s
    "tests/integration/indexer/pipeline/test_incremental.py::test_incremental_index_equals_a_full_rebuild_over_random_edit_sequences",  # 69 s
    "tests/integration/indexer/distributed/test_distributed.py::test_a_worker_killed_mid_job_has_its_tasks_redelivered_and_the_graph_is_whole",  # 57 s
    "tests/integration/indexer/pipeline/test_faults.py::test_a_run_killed_at_each_stage_is_invisible_and_the_next_run_equals_a_clean_one",  # 53 s
    "tests/integration/indexer/graph/test_neo4j_failures.py::test_a_query_past_neos_memory_limit_says_so_in_one_line",  # 48 s
    "tests/integration/indexer/distributed/test_distributed.py::test_a_job_whose_task_message_was_lost_is_sent_again",  # 44 s
    "tests/integration/indexer/graph/test_neo4j_local.py::test_local_server_lifecycle",  # 43 s
    "tests/integration/indexer/distributed/test_distributed.py::test_a_lost_fetch_is_sent_again_unless_its_url_holds_a_credential",  # 23 s
    "tests/integration/indexer/pipeline/test_faults.py::test_twenty_thousand_tiny_files_index_whole",  # 19 s
    "tests/integration/indexer/graph/test_cypher_gate.py::test_an_expression_past_the_timeout_is_stopped_on_the_server",  # 18 s
    "tests/integration/indexer/vectors/test_full_disk.py::test_a_full_disk_under_the_vector_store_is_one_line_and_the_run_after_freeing_it_is_whole",  # 17 s
    "tests/integration/indexer/distributed/test_distributed.py::test_the_same_snapshot_enqueued_twice_at_once_is_one_job",  # 15 s
    "tests/integration/indexer/distributed/test_distributed.py::test_embed_tasks_of_a_repository_wait_their_turn_at_the_local_vector_store",  # 14 s
    "tests/integration/indexer/distributed/test_distributed.py::test_workers_index_a_manifest_and_one_bad_repository_fails_alone",  # 10 s
)


ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Every test SLOW names exists: a renamed one would silently leave the slow lane."""
    for entry in SLOW:
        path, _, name = entry.partition("::")
        source = ROOT / path
        tests = {node.name for node in ast.walk(ast.parse(source.read_text())) if isinstance(node, ast.FunctionDef)} \
            if source.is_file() else set()
        if not source.is_file() or (name and name not in tests):
            raise pytest.UsageError(f"tests/conftest.py: SLOW names {entry}, which is no test")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests SLOW names `slow`."""
    for item in items:
        test = item.nodeid.split("[")[0]
        if test in SLOW or test.split("::")[0] in SLOW:
            item.add_marker(pytest.mark.slow)
