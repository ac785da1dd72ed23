"""Open Qdrant Edge shards, held only while they are used, shared by the threads of a process.

Edge lets one process at a time open a shard (its WAL is locked), and an open handle is the only way in. So a
shard is opened for one operation (a search, a batch of inserts) and closed when its last user in this process
lets go: another process (a query beside an index run, a second index run) gets it between two batches. Within a
process the threads share one handle (Edge's calls are safe across threads; spider's `edge_panics` serialises them
anyway), so an MCP server's concurrent calls never lock each other out. Opening a shard another process holds
retries for `lock_wait` seconds, then raises StoreBusy.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spider.core.errors import StoreBusy

RETRY = 0.05  # seconds between attempts to open a shard another process holds


@dataclass
class _Held:
    shard: Any
    users: int
    lock: threading.Lock  # held while the shard is opened or closed


_HELD: dict[Path, _Held] = {}
_GUARD = threading.Lock()  # guards _HELD


def is_busy(error: Exception) -> bool:
    """Whether Edge refused to open a shard because another process holds it (or is creating it)."""
    message = str(error)
    return "WouldBlock" in message or "already contains segment data" in message


@contextmanager
def holding(directory: Path, open_shard: Callable[[], Any], close_shard: Callable[[Any], None], lock_wait: float,
            busy: Callable[[], StoreBusy]) -> Iterator[Any]:
    """The shard in `directory`, opened by `open_shard` unless this process has it open already, and closed by
    `close_shard` when its last user here lets go. `open_shard` raises what Edge raises; a refusal because another
    process holds the shard (`is_busy`) is retried for `lock_wait` seconds, then `busy()` is raised."""
    with _GUARD:
        held = _HELD.setdefault(directory, _Held(None, 0, threading.Lock()))
        held.users += 1
    try:
        with held.lock:
            if held.shard is None:
                held.shard = _open_waiting(open_shard, lock_wait, busy)
        yield held.shard
    finally:
        with _GUARD:
            held.users -= 1
            last = held.users == 0
            if last:
                del _HELD[directory]
        if last and held.shard is not None:
            with held.lock:
                close_shard(held.shard)


def lock_file(path: Path, wait: float, busy: Callable[[], StoreBusy]) -> int:
    """A descriptor of the lock file `path` (made if need be), `flock`ed exclusively, waited for `wait` seconds;
    then `busy()` is raised. Closing the descriptor unlocks it, and so does the end of the process, however it
    ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(descriptor)
                raise busy() from None
            time.sleep(RETRY)


def _open_waiting(open_shard: Callable[[], Any], lock_wait: float, busy: Callable[[], StoreBusy]) -> Any:
    deadline = time.monotonic() + lock_wait
    while True:
        try:
            return open_shard()
        except Exception as error:  # qdrant_edge raises plain Exception; tell a held shard by its message
            if not is_busy(error):
                raise
            if time.monotonic() >= deadline:
                raise busy() from None
            time.sleep(RETRY)
