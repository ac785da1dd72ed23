"""Hard negatives from the same file: beside its own function, a message is contrasted with a function of the same
file that its commit did not touch.

In-batch negatives are mostly functions of other repositories and languages, told apart from the right one by
vocabulary alone; a sibling in the same file shares the file's names and style, so only what the message says
separates them, as it must in localization, where the wrong candidates sit beside the right ones. Negatives are
mined from the training pairs themselves (a function another commit changed in the same file, as it was before
that commit), so no second pass over the history is needed.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Sequence

from spider.indexer.languages import split_entity_id
from spider.indexer.models.tuning.batches import Pair


def touched_functions(pairs: Sequence[Pair]) -> dict[str, frozenset[str]]:
    """The functions each commit changed, as far as the pairs show."""
    touched: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        touched[pair.commit].add(pair.function)
    return {commit: frozenset(functions) for commit, functions in touched.items()}


def same_file_negatives(pairs: Sequence[Pair], rng: random.Random) -> list[Pair | None]:
    """For each pair, a pair of another function of its file that its commit did not change (None where the
    pairs hold none), drawn by rng; the same pairs and rng give the same negatives."""
    touched = touched_functions(pairs)
    files = [split_entity_id(pair.function)[0] for pair in pairs]
    by_file: dict[str, dict[str, Pair]] = defaultdict(dict)
    for pair, path in zip(pairs, files):
        by_file[path].setdefault(pair.function, pair)
    negatives: list[Pair | None] = []
    for pair, path in zip(pairs, files):
        siblings = by_file[path]
        candidates = sorted(f for f in siblings if f not in touched[pair.commit])
        negatives.append(siblings[rng.choice(candidates)] if candidates else None)
    return negatives


def false_negative_mask(batch: Sequence[Pair], negatives: Sequence[Pair],
                        touched: dict[str, frozenset[str]]) -> list[list[bool]]:
    """mask[i][j]: negative j is a function the commit of batch[i] changed, so it must not count as wrong for
    that message (it is another pair's negative, drawn for a different commit)."""
    return [[negative.function in touched.get(pair.commit, ()) or negative.text == pair.text for negative in negatives]
            for pair in batch]
