"""Open Qdrant Edge shards, held only while they are used, shared by the threads of a process.

Edge lets one process at a time open a shard (its WAL is locked), and an open handle is the only way in. So a
shard is opened for one operation (a search, a batch of inserts) and closed when its last user in this process
lets go: another process (a query beside an index run, a second index run) gets it between two batches. Within a
process the threads share one handle (Edge's calls are safe across threads; spider's `edge_panics` serialises them
anyway), so an MCP server's concurrent calls never lock each other out. Opening a shard another process holds
retries for `lock_wait` seconds, then raises StoreBusy.

Edge names a shard's files by path, so a shard directory may be replaced (`replacing`: an index built beside it
takes its place) only while no process has it open: a process holding a shard open also holds a shared lock on a
file beside it (`.NAME.open`), which `replacing` takes exclusively. Readers come and go every few milliseconds and
`flock` is not fair, so they first pass a turnstile (`.NAME.turn`, shared for a moment), which `replacing` closes
(exclusive) before it waits for the open handles to go: a reader then waits milliseconds, never the build.
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
    opened: int = -1  # a descriptor of the lock file beside the shard, shared-locked while the shard is open


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
                turn = lock_file(_beside(directory, "turn"), fcntl.LOCK_SH, lock_wait, busy)
                try:
                    held.opened = lock_file(_beside(directory, "open"), fcntl.LOCK_SH, lock_wait, busy)
                finally:
                    os.close(turn)
                try:
                    held.shard = _open_waiting(open_shard, lock_wait, busy)
                except BaseException:
                    os.close(held.opened)
                    raise
        yield held.shard
    finally:
        with _GUARD:
            held.users -= 1
            last = held.users == 0
            if last:
                del _HELD[directory]
        if last and held.shard is not None:
            with held.lock:
                try:
                    close_shard(held.shard)
                finally:
                    os.close(held.opened)


@contextmanager
def replacing(directory: Path, lock_wait: float) -> Iterator[bool]:
    """While the block runs, no process has the shard in `directory` open, nor opens it: True, once every handle
    was closed within `lock_wait` seconds (a thread of this process holding it counts), else False."""
    held: list[int] = []
    try:
        for name in ("turn", "open"):  # new readers stop at the turnstile; then the open handles close
            held.append(lock_file(_beside(directory, name), fcntl.LOCK_EX, lock_wait, None))
    except TimeoutError:
        alone = False
    else:
        alone = True
    try:
        yield alone
    finally:
        for descriptor in held:
            os.close(descriptor)


def _beside(directory: Path, name: str) -> Path:
    return directory.parent / f".{directory.name}.{name}"


def lock_file(path: Path, kind: int, wait: float, busy: Callable[[], StoreBusy] | None) -> int:
    """A descriptor of the lock file `path` (made if need be), `flock`ed `kind` (LOCK_SH, LOCK_EX), waited for
    `wait` seconds; then `busy()` is raised (TimeoutError without one). Closing the descriptor unlocks it, and so
    does the end of the process, however it ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(descriptor, kind | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(descriptor)
                raise busy() if busy is not None else TimeoutError(path) from None
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
