"""Qdrant Edge's Rust panics as one-line spider errors.

A damaged shard file (truncated by a crash, overwritten) can make the engine panic, on opening the shard or on any
later call. pyo3 raises the panic as PanicException, a BaseException that `except Exception` and the CLI's handler
let through, after Rust's panic hook has written it to stderr (with RUST_BACKTRACE=1, 185 lines for one
truncated file). Every engine call therefore runs under `panics_as_corruption`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from spider.indexer.errors import CorruptStore

_STDERR = threading.Lock()  # file descriptor 2 is the process's: one engine call at a time holds it


def is_panic(error: BaseException) -> bool:
    """Whether `error` is pyo3's PanicException: each Rust extension makes its own class, importable from none."""
    kind = type(error)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


def corrupt_store(directory: Path, panic: BaseException) -> CorruptStore:
    detail = " ".join(str(panic).split())[:200]
    return CorruptStore(f"the local vector store {directory} is damaged (its engine failed: {detail}): delete that "
                        "directory, then run `spider index PATH` again for each repository to rebuild it")


@contextmanager
def panics_as_corruption(directory: Path) -> Iterator[None]:
    """Run an engine call on the shard in `directory` with stderr held: a panic becomes CorruptStore, and what was
    written during the call (its hook's report, with anything else) is dropped; without one, what was written
    meanwhile (by another thread, a library) is passed on after the call."""
    with _STDERR, tempfile.TemporaryFile() as held:
        stderr = os.dup(2)
        os.dup2(held.fileno(), 2)
        panicked = False
        try:
            yield
        except BaseException as error:
            if not is_panic(error):
                raise
            panicked = True
            raise corrupt_store(directory, error) from None
        finally:
            os.dup2(stderr, 2)
            os.close(stderr)
            if not panicked:
                held.seek(0)
                with open(2, "wb", closefd=False) as restored:
                    shutil.copyfileobj(held, restored)


class PanicSafeShard:
    """An EdgeShard (or the EdgeShard class, for `load` and `create`) whose every method runs under
    `panics_as_corruption`."""

    def __init__(self, shard: Any, directory: Path) -> None:
        self._shard = shard
        self._directory = directory

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._shard, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            with panics_as_corruption(self._directory):
                return method(*args, **kwargs)

        return call
