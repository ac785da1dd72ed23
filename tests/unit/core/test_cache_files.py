"""Files kept beside a snapshot are a cache: one spider cannot read back is a miss, never a crash."""

from __future__ import annotations

import os

from spider.core.cache_files import load_tagged, read_while_unchanged, save_tagged


def test_what_was_saved_comes_back_with_its_tag_only(tmp_path):
    save_tagged(tmp_path / "kept", ("v1", "format"), {"a": 1})
    assert load_tagged(tmp_path / "kept", ("v1", "format")) == {"a": 1}
    assert load_tagged(tmp_path / "kept", ("v2", "format")) is None


def test_a_file_naming_a_module_this_spider_lacks_is_a_miss(tmp_path):
    # What an older spider pickled names its own modules (e.g. indexer.graph_diff before the move to packages).
    (tmp_path / "kept").write_bytes(b"cno_such_spider_module\nGraphDigest\n.")
    assert load_tagged(tmp_path / "kept", "tag") is None


def test_a_file_read_is_kept_until_it_changes_and_nothing_is_kept_for_a_missing_one(tmp_path):
    path, reads = tmp_path / "index.json", []

    def load():
        reads.append(1)
        return path.read_text() if path.exists() else None

    assert read_while_unchanged(path, load) is None and read_while_unchanged(path, load) is None
    path.write_text("one")
    assert [read_while_unchanged(path, load) for _ in range(3)] == ["one"] * 3 and len(reads) == 3
    path.write_text("two")
    os.utime(path, ns=(1, 1))  # a rewrite within the clock's resolution still changes the time spider compares
    assert read_while_unchanged(path, load) == "two" and len(reads) == 4
