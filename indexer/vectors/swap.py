"""Building a shard's HNSW index beside it: a copy of its directory that keeps the holes of its memory-mapped files
(an Edge segment pre-allocates chunks of 32 MiB that a plain copy would fill with zeros), and an atomic exchange of
two directories (Linux's renameat2 RENAME_EXCHANGE), so that readers find one shard or the other, never neither."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV}


def copy_keeping_holes(source: Path, target: Path) -> None:
    """`source` (a directory tree of regular files) copied to `target`, which must not exist; the holes of a
    sparse file stay holes."""
    target.mkdir(mode=0o700)
    for entry in os.scandir(source):
        destination = target / entry.name
        if entry.is_dir(follow_symlinks=False):
            copy_keeping_holes(Path(entry.path), destination)
        elif entry.is_file(follow_symlinks=False):
            _copy_file(Path(entry.path), destination)


def _copy_file(source: Path, target: Path) -> None:
    with open(source, "rb") as reading, open(target, "wb") as writing:
        size = os.fstat(reading.fileno()).st_size
        offset = 0
        while offset < size:
            try:
                data = os.lseek(reading.fileno(), offset, os.SEEK_DATA)
                hole = os.lseek(reading.fileno(), data, os.SEEK_HOLE)
            except OSError as error:
                if error.errno == errno.ENXIO:  # only a hole is left
                    break
                if error.errno not in _UNSUPPORTED:
                    raise
                data, hole = offset, size  # no SEEK_DATA here: copy it all
            reading.seek(data)
            writing.seek(data)
            shutil.copyfileobj(_Limited(reading, hole - data), writing)
            offset = hole
        writing.truncate(size)
    shutil.copystat(source, target)


class _Limited:
    """The next `left` bytes of a file, as `shutil.copyfileobj` reads them."""

    def __init__(self, handle, left: int) -> None:
        self._handle, self._left = handle, left

    def read(self, size: int = -1) -> bytes:
        size = self._left if size < 0 else min(size, self._left)
        chunk = self._handle.read(size)
        self._left -= len(chunk)
        return chunk


def exchange(first: Path, second: Path) -> bool:
    """Swap two directories atomically; False where the system cannot (not Linux, an old kernel or C library, a
    filesystem without RENAME_EXCHANGE), and nothing was moved."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(first))
