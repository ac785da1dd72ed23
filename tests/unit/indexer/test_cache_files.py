"""Files kept beside a snapshot are a cache: one spider cannot read back is a miss, never a crash."""

from __future__ import annotations

from spider.indexer.cache_files import load_tagged, save_tagged


def test_what_was_saved_comes_back_with_its_tag_only(tmp_path):
    save_tagged(tmp_path / "kept", ("v1", "format"), {"a": 1})
    assert load_tagged(tmp_path / "kept", ("v1", "format")) == {"a": 1}
    assert load_tagged(tmp_path / "kept", ("v2", "format")) is None


def test_a_file_naming_a_module_this_spider_lacks_is_a_miss(tmp_path):
    # What an older spider pickled names its own modules (e.g. indexer.graph_diff before the move to packages).
    (tmp_path / "kept").write_bytes(b"cno_such_spider_module\nGraphDigest\n.")
    assert load_tagged(tmp_path / "kept", "tag") is None
