"""Qdrant Edge's Rust panics as one-line spider errors.

A damaged shard file (truncated by a crash, overwritten) can make the engine panic, on opening the shard or on any
later call. pyo3 raises the panic as PanicException, a BaseException that `except Exception` and the CLI's handler
let through, after Rust's panic hook has written it to stderr (with RUST_BACKTRACE=1, 185 lines for one
truncated file). Every engine call therefore runs under `panics_as_corruption`. Other damage makes an open
shard's engine fail without a panic, with a plain Exception of its service errors ("Service runtime error: vector 0
is not readable from ..."): from an open shard that is damage too (its "Wrong input" errors are spider's bugs).
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

from spider.core.errors import CorruptStore
from spider.core.terminal import squeezed

_STDERR = threading.Lock()  # file descriptor 2 is the process's: one engine call at a time holds it
_SERVICE_ERROR = "Service runtime error"  # how the engine words a failure of its own storage, not of its input


def is_panic(error: BaseException) -> bool:
    """Whether `error` is pyo3's PanicException: each Rust extension makes its own class, importable from none."""
    kind = type(error)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


def corrupt_store(directory: Path, panic: BaseException) -> CorruptStore:
    detail = squeezed(panic)[:200]
    return CorruptStore(f"the local vector store {directory} is damaged (its engine failed: {detail}): delete that "
                        "directory, then run `spider index PATH` again for each repository to rebuild it")


def is_damage(error: BaseException) -> bool:
    """Whether an open shard's engine failed on its own files: a panic, or one of its service errors."""
    return is_panic(error) or (type(error) is Exception and str(error).startswith(_SERVICE_ERROR))


@contextmanager
def panics_as_corruption(directory: Path, service_errors: bool = False) -> Iterator[None]:
    """Run an engine call on the shard in `directory` with stderr held: a panic (and with `service_errors`, for an
    open shard, an engine service error) becomes CorruptStore, and what was written during the call (a panic
    hook's report, with anything else) is dropped; otherwise what was written meanwhile (by another thread, a
    library) is passed on after the call."""
    with _STDERR, tempfile.TemporaryFile() as held:
        stderr = os.dup(2)
        os.dup2(held.fileno(), 2)
        panicked = False
        try:
            yield
        except BaseException as error:
            if not (is_damage(error) if service_errors else is_panic(error)):
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
    """An EdgeShard whose every method runs under `panics_as_corruption`, its service errors taken as damage too;
    or the EdgeShard class, for `load` and `create` (`opening`), whose errors the opener tells apart itself (a
    shard another process holds, one being created)."""

    def __init__(self, shard: Any, directory: Path, opening: bool = False) -> None:
        self._shard = shard
        self._directory = directory
        self._service_errors = not opening

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._shard, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            with panics_as_corruption(self._directory, self._service_errors):
                return method(*args, **kwargs)

        return call
