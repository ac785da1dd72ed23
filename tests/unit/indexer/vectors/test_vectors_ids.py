"""Collection names and point ids are stable forever: they name stored data."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid

import pytest
from spider.indexer.vectors.store import (
    SPIDER_NAMESPACE,
    WINDOWS_PER_FUNCTION,
    collection_name,
    member_of,
    member_window,
    members_of,
    point_id,
    point_key,
    window_key,
)

SAFE = re.compile(r"^[a-z0-9][a-z0-9-]{0,98}[a-z0-9]$")


def test_collection_name_is_a_slug_of_model_and_size():
    assert collection_name("all-MiniLM-L6-v2", 384) == "spider-all-minilm-l6-v2-384"
    assert collection_name("sentence-transformers/all-MiniLM-L6-v2", 384) == (
        "spider-sentence-transformers-all-minilm-l6-v2-384")
    assert collection_name("BAAI/bge-small-en-v1.5", 384) == "spider-baai-bge-small-en-v1-5-384"
    assert collection_name("all-MiniLM-L6-v2", 384) != collection_name("all-MiniLM-L6-v2", 768)


@pytest.mark.parametrize("model", ["a/b c", "../../etc/passwd", "Ünïcode ✓ model", "x" * 300, "--weird__"])
def test_collection_name_is_safe_for_files_and_qdrant(model):
    name = collection_name(model, 1024)
    assert SAFE.match(name), name
    assert name == collection_name(model, 1024)


def test_long_model_names_stay_distinct():
    assert collection_name("m" * 200 + "a", 8) != collection_name("m" * 200 + "b", 8)


def test_collection_name_rejects_nonsense():
    with pytest.raises(ValueError):
        collection_name("///", 384)
    with pytest.raises(ValueError):
        collection_name("model", 0)


def test_point_id_is_a_pinned_uuid5_of_repo_and_hash():
    pid = point_id("org/repo", "abc123")
    assert pid == str(uuid.uuid5(SPIDER_NAMESPACE, "org/repo\nabc123"))
    assert pid == "5bfd79fb-6f30-5032-9ebc-ea463756b8b7"  # stored data depends on this exact value
    assert uuid.UUID(pid).version == 5
    assert point_id("org/repo", "abc123") != point_id("org/other", "abc123")


def test_point_id_is_the_same_in_another_process():
    code = "from spider.indexer.vectors.store import point_id; print(point_id('org/repo', 'abc123'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == point_id("org/repo", "abc123")


def test_point_key_is_the_point_ids_integer_and_members_are_keyed_by_it():
    assert point_key("org/repo", "abc123") == uuid.UUID("5bfd79fb-6f30-5032-9ebc-ea463756b8b7").int
    members = members_of("org/repo", [("a.py:f", "abc123"), ("b.py:g", "def456")])
    assert members == {point_key("org/repo", "abc123"): ("a.py:f", "abc123"),
                       point_key("org/repo", "def456"): ("b.py:g", "def456")}


def test_a_later_window_of_a_function_has_its_own_point_that_maps_back_to_the_function():
    assert point_id("org/repo", "abc123", 1) == point_id("org/repo", "abc123")
    windows = [point_id("org/repo", "abc123", w) for w in range(1, WINDOWS_PER_FUNCTION + 1)]
    assert len(set(windows)) == WINDOWS_PER_FUNCTION
    members = members_of("org/repo", [("m.py:f", "abc123")])
    assert all(member_of(members, uuid.UUID(pid).int) == ("m.py:f", "abc123") for pid in windows)
    assert [member_window(members, uuid.UUID(pid).int) for pid in windows] == [
        (("m.py:f", "abc123"), w) for w in range(1, WINDOWS_PER_FUNCTION + 1)]
    assert member_of(members, uuid.UUID(point_id("org/repo", "other")).int) is None
    beyond = window_key(point_key("org/repo", "abc123"), WINDOWS_PER_FUNCTION + 1)
    assert member_of(members, beyond) is None  # only the windows a function may have
