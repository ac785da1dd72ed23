"""Files spider keeps beside a snapshot (`settings.snapshot_cache_dir`): written whole or not at all, and read
back only by the code (and the write) that made them."""

from __future__ import annotations

import os
import pickle
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

T = TypeVar("T")
KEPT_FILES = 16  # what one process keeps read: a few snapshots' indexes
_kept: dict[tuple[Path, str], tuple[tuple[int, int, int], Any]] = {}
_keeping = threading.Lock()


def write_atomically(path: Path, data: bytes) -> None:
    """A reader never sees half a file, and concurrent writers never share a staging file. The file is its
    owner's only (0600): caches hold pickles and the code of indexed repositories."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as file:
        file.write(data)
    staging.replace(path)


def save_tagged(path: Path, tag: Any, value: Any) -> None:
    """Pickle `value` with `tag`: what `load_tagged` must be asked for to get it back."""
    write_atomically(path, pickle.dumps((tag, value), protocol=pickle.HIGHEST_PROTOCOL))


def load_tagged(path: Path, tag: Any) -> Any | None:
    """What `save_tagged` kept with this `tag`; None when the file is missing, damaged, from another version of
    spider, or tagged otherwise."""
    try:
        saved_tag, value = pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError, TypeError):
        return None
    return value if saved_tag == tag else None


def read_while_unchanged(path: Path, load: Callable[[], T | None], variant: str = "") -> T | None:
    """`load()` (which reads `path` and what was written with it), kept in this process while `path` is the same
    file (inode, size, time): a long-running process (the MCP server, a worker, a benchmark) reads a snapshot's
    files once, not on every query. `variant` names one of several things made from the same file. None (nothing
    there yet) is not kept."""
    try:
        stat = path.stat()
    except OSError:
        return load()
    version = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with _keeping:
        kept = _kept.pop((path, variant), None)
        if kept is not None and kept[0] == version:
            _kept[path, variant] = kept
            return kept[1]
    value = load()
    if value is not None:
        with _keeping:
            _kept[path, variant] = (version, value)
            while len(_kept) > KEPT_FILES:
                del _kept[next(iter(_kept))]
    return value
