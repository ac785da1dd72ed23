"""Which functions a diff changes: those whose body holds a changed line, as the benchmark's ground truth counts
them (a function added next to an existing one does not make the neighbour changed)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Hunk:
    """Lines first..first+count-1 of the old file were removed or replaced; count 0: lines were inserted after
    line `first`."""

    first: int
    count: int


def hunks_of(diff: bytes) -> list[Hunk]:
    """The old file's side of `git diff -U0`'s hunks."""
    return [Hunk(int(m[1]), 1 if m[2] is None else int(m[2])) for m in _HUNK.finditer(diff)]


def touches(hunk: Hunk, start: int, end: int) -> bool:
    """Whether the hunk changes lines start..end of the old file: a removed line inside, or lines inserted
    between two of its lines (not before its first or after its last)."""
    if hunk.count:
        return hunk.first <= end and start <= hunk.first + hunk.count - 1
    return start <= hunk.first < end
