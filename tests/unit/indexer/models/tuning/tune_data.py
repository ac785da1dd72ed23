"""What the tuning tests train on (tests/unit/indexer/models/tuning/test_train.py, and `spider models tune`'s in
tests/integration/indexer/models/tuning/test_tune.py): messages and functions that share no word, and the tiny
BERT's tokenizer. Imports no torch: each test module decides first whether torch must be there."""

from __future__ import annotations

from pathlib import Path

# Messages and functions that share no word: only training can tie them together.
TOPICS = [("quick brown fox", "def search query vector"), ("lazy dog sleepy", "class database cache table"),
          ("password reset user", "func network server client"), ("login hound cat", "fn struct impl enum match"),
          ("jumps over fast", "select insert update delete"), ("http json api", "try except raise async await"),
          ("memory test build", "package var const type interface"), ("crawl spider document", "while return import self")]


def pairs_of(split: str, copies: int) -> list[dict]:
    return [{"repo": "demo", "commit": f"{split}{i}{c}", "split": split, "language": "python", "function": f"m.py:f{i}",
             "message": f"{message} {'please ' * c}", "text": f"m.py:f{i}\n{code} {'x ' * c}"}
            for c in range(copies) for i, (message, code) in enumerate(TOPICS)]


def tokenizer(directory: Path):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(directory / "tokenizer.json"))
