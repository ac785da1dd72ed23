"""Batches for contrastive training with in-batch negatives: every other function of a batch is a wrong answer
for a message, so a batch holding two pairs with one message, or one function text, would teach the model that a
right answer is wrong. A commit that changed three functions gives three pairs with one message."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence


@dataclass(frozen=True, slots=True)
class Pair:
    """A message and the text of a function its commit changed. commit and function ("repo sha", "repo path:name")
    are known only where the pairs file gives them (they place hard negatives) and do not make two pairs differ."""
    message: str
    text: str
    commit: str = field(default="", compare=False)
    function: str = field(default="", compare=False)


def batches_without_repeats(pairs: Sequence[Pair], size: int, rng: random.Random) -> list[list[int]]:
    """Indices of pairs in batches of at most size, shuffled by rng, no batch holding one message or one function
    text twice. A pair goes into the oldest batch still open that has room and neither of its texts, the pairs of
    the most repeated messages first (they are the hardest to place); batches of fewer than two pairs (nothing to
    contrast) are dropped."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    repeats = Counter(pair.message for pair in pairs)
    order.sort(key=lambda i: -repeats[pairs[i].message])
    open_batches: list[tuple[list[int], set[str], set[str]]] = []
    full: list[list[int]] = []
    for i in order:
        pair = pairs[i]
        for batch, messages, texts in open_batches:
            if pair.message not in messages and pair.text not in texts:
                break
        else:
            batch, messages, texts = [], set(), set()
            open_batches.append((batch, messages, texts))
        batch.append(i)
        messages.add(pair.message)
        texts.add(pair.text)
        if len(batch) == size:
            full.append(batch)
            open_batches = [b for b in open_batches if b[0] is not batch]
    full.extend(batch for batch, _, _ in open_batches if len(batch) > 1)
    rng.shuffle(full)
    return full
