"""What spider reads of a disk before it grows memory-mapped files: free room, holes, and the filesystem's type."""

from __future__ import annotations

from pathlib import Path

import spider.indexer.disk_space as disk_space
from spider.indexer.disk_space import allocated_bytes, filesystem_type, hole_bytes, reading_holes_takes_space

MOUNTS = "/dev/vda / ext4 rw 0 0\ntmpfs /srv/small\\040disk tmpfs rw,size=64m 0 0\nproc /proc proc rw 0 0\n"


def test_a_path_is_on_the_filesystem_of_its_innermost_mount(tmp_path, monkeypatch):
    mounts = tmp_path / "mounts"
    mounts.write_text(MOUNTS)
    monkeypatch.setattr(disk_space, "_MOUNTS", mounts)

    assert filesystem_type(Path("/srv/small disk/vectors")) == "tmpfs"  # \040 is a space
    assert filesystem_type(Path("/srv/small")) == "ext4"
    assert reading_holes_takes_space(Path("/srv/small disk")) and not reading_holes_takes_space(Path("/srv"))


def test_without_proc_the_filesystem_is_unknown_and_its_holes_are_not_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(disk_space, "_MOUNTS", tmp_path / "absent")
    assert filesystem_type(tmp_path) == "" and not reading_holes_takes_space(tmp_path)


def test_the_holes_of_sparse_files_are_counted_but_in_skipped_folders(tmp_path):
    for folder in ("segment", "segment/payload_storage"):
        (tmp_path / folder).mkdir()
        with open(tmp_path / folder / "mapped.dat", "wb") as mapped:
            mapped.write(b"x" * 4096)
            mapped.truncate(1 << 20)

    holes = hole_bytes(tmp_path / "segment", skip={"payload_storage"})

    assert (1 << 20) - (64 << 10) <= holes <= (1 << 20) - 4096
    assert hole_bytes(tmp_path / "segment") >= 2 * holes
    assert 4096 <= allocated_bytes(tmp_path / "segment") < 1 << 20
