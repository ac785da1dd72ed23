"""Reading a commit's blobs from git: many at once, through one `git cat-file --batch`."""

from __future__ import annotations

import threading

from spider.indexer.source.walk import open_commit, read_blobs, select_files

from tests.fixtures.gitrepo import make_repo


def test_thousands_of_blobs_stream_through_one_cat_file_without_deadlock(tmp_path):
    files = {f"pkg{i // 500}/m{i:04d}.py": f"def f{i}():\n    return {i}\n" for i in range(3000)}  # > a pipe of requests
    root, _ = make_repo(tmp_path / "repo", files)
    selected = select_files(open_commit(str(root))).files
    read: dict[str, bytes] = {}
    reader = threading.Thread(
        target=lambda: read.update(read_blobs(open_commit(str(root)).git_dir, [f.blob for f in selected])), daemon=True)

    reader.start()
    reader.join(timeout=60)

    assert not reader.is_alive(), "read_blobs hung"
    assert {read[f.blob].decode() for f in selected} == set(files.values())
