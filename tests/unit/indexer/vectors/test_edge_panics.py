"""Every Qdrant Edge call runs with stderr held (`indexer/vectors/edge_panics.py`): a panic becomes CorruptStore and
Rust's report of it is dropped, while what anything writes during a call that does not panic still shows."""

from __future__ import annotations

import os

import pytest
from spider.core.errors import CorruptStore
from spider.indexer.vectors.edge_panics import PanicSafeShard

from tests.unit.cli.test_error_handler import PanicException


class Engine:
    """An engine that writes to file descriptor 2, as Rust code does, and then raises `error` (None: returns)."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error

    def query(self, text: bytes) -> str:
        os.write(2, text)
        if self.error is not None:
            raise self.error
        return "answer"


def test_what_a_call_writes_to_stderr_is_passed_on(tmp_path, capfd):
    assert PanicSafeShard(Engine(), tmp_path).query(b"a library's warning\n") == "answer"
    assert capfd.readouterr().err == "a library's warning\n"


def test_a_panic_is_a_corrupt_store_and_rusts_report_of_it_is_dropped(tmp_path, capfd):
    engine = Engine(PanicException("index out of bounds: the len is 0 but the index is 0"))
    with pytest.raises(CorruptStore) as failed:
        PanicSafeShard(engine, tmp_path).query(b"thread '<unnamed>' panicked at stored_struct.rs:34:21:\n")
    assert str(failed.value) == (f"the local vector store {tmp_path} is damaged (its engine failed: index out of "
                                 "bounds: the len is 0 but the index is 0): delete that directory, then run `spider "
                                 "index PATH` again for each repository to rebuild it")
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("error", [RuntimeError("Service runtime error: WouldBlock"), KeyboardInterrupt()])
def test_any_other_error_passes_through_as_it_is_and_its_output_shows(tmp_path, capfd, error):
    with pytest.raises(type(error)) as raised:
        PanicSafeShard(Engine(error), tmp_path).query(b"said before failing\n")
    assert raised.value is error
    assert capfd.readouterr().err == "said before failing\n"


def test_an_open_shards_service_error_is_damage_but_not_while_opening_nor_a_wrong_input(tmp_path):
    """The engine raises plain Exceptions: its service errors on an open shard mean its files failed it; opening
    tells its own apart (a held shard), and "Wrong input" is spider's mistake, not damage."""
    damaged = Exception("Service runtime error: vector 0 is not readable from chunk_0.mmap")
    with pytest.raises(CorruptStore, match="its engine failed: Service runtime error: vector 0 is not readable"):
        PanicSafeShard(Engine(damaged), tmp_path).query(b"")
    with pytest.raises(Exception) as opening:
        PanicSafeShard(Engine(damaged), tmp_path, opening=True).query(b"")
    assert opening.value is damaged
    wrong = Exception("Wrong input: vector dimension error: expected dim: 4, got 3")
    with pytest.raises(Exception) as mistaken:
        PanicSafeShard(Engine(wrong), tmp_path).query(b"")
    assert mistaken.value is wrong
