"""What an agent means by an id: the node with exactly that id, else the one node its qualified name or path
tail names, else a short ranked list to choose from, never a guess between equals."""

from __future__ import annotations

import re

from pydantic import BaseModel
from spider.indexer.languages import split_entity_id

CHOICES = 10  # candidates an ambiguous id answers with
_OVERLOAD = re.compile(r"#\d+$")  # `Order.add#2`: the second `add` of its file (docs/graph.md, Ids)


class Candidate(BaseModel):
    """A function, class or file an id may mean."""

    id: str
    label: str  # Function, Class or File
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None


def simple_names(wanted: str) -> list[str]:
    """The `name` properties a node called `wanted` may have: its file's name, or the last segment of its
    qualified name (`models.py` may be either; asking for both costs nothing)."""
    tail = split_entity_id(_OVERLOAD.sub("", wanted.strip()).removesuffix("()"))[1].rsplit("/", 1)[-1]
    return sorted({tail, tail.rsplit(".", 1)[-1]} - {""})


def tier(wanted: str, candidate: Candidate) -> int:
    """How closely `candidate` matches `wanted`: 0 its id; 1 its qualified name within its file (`Class.method`);
    2 a tail of its id after a separator (`payments.py:charge`, `Receipt.render`, `models.py`); 3 only its name."""
    if candidate.id == wanted:
        return 0
    if candidate.id.endswith(":" + wanted):
        return 1
    if any(candidate.id.endswith(separator + wanted) for separator in "./#"):
        return 2
    return 3


def ranked(wanted: str, candidates: list[Candidate]) -> list[Candidate]:
    """Closest first; among equals functions before classes before files, then the shorter path, then the id."""
    order = {"Function": 0, "Class": 1, "File": 2}
    return sorted(candidates, key=lambda c: (tier(wanted, c), order.get(c.label, 3), len(c.path or ""), c.id))


def choose(wanted: str, candidates: list[Candidate]) -> Candidate | None:
    """The one candidate `wanted` means, or None when it means none or several (then `ranked` lists them)."""
    if not candidates:
        return None
    best = ranked(wanted, candidates)
    closest = [c for c in best if tier(wanted, c) == tier(wanted, best[0])]
    if len(closest) == 1 and (tier(wanted, best[0]) < 3 or len(best) == 1):
        return best[0]
    return None
