"""Every answer of `spider mcp` fits an agent's tool-output limit: whole items are dropped from the end of a
ranked list (never cut mid-code), and the answer says how many went and how to get them."""

from __future__ import annotations

import json
from math import ceil
from typing import Any, TypeVar

from pydantic import BaseModel

DEFAULT_MAX_TOKENS = 20_000  # well inside the tool-output limits of Claude Code (25k) and similar agents
MIN_MAX_TOKENS = 500  # below this not even one function with its location fits
CHARS_PER_TOKEN = 4  # a usual tokenizer's average on code and JSON; an estimate, erring on the long side for prose

Answer = TypeVar("Answer", bound=BaseModel)


class Dropped(BaseModel):
    """What the token budget left out of an answer."""

    items: int
    kept: int
    note: str


def estimate_tokens(value: Any) -> int:
    """The tokens `value` takes as the JSON the client receives (an estimate: characters / CHARS_PER_TOKEN)."""
    text = value.model_dump_json() if isinstance(value, BaseModel) else json.dumps(value, default=str)
    return ceil(len(text) / CHARS_PER_TOKEN)


def fitting(costs: list[int], budget: int) -> int:
    """How many leading items, costing `costs` tokens each, fit in `budget` tokens together."""
    spent = 0
    for kept, cost in enumerate(costs):
        spent += cost
        if spent > budget:
            return kept
    return len(costs)


def bounded(answer: Answer, field: str, max_tokens: int, what: str) -> Answer:
    """`answer` with as many leading items of its list `field` as fit in `max_tokens` with the rest of the answer,
    and a `dropped` note when some did not (`what` names them: "results", "rows", ...)."""
    items = getattr(answer, field)
    note_room = estimate_tokens(Dropped(items=len(items), kept=len(items), note="x" * 200))
    fixed = estimate_tokens(answer.model_copy(update={field: []})) + note_room
    kept = fitting([estimate_tokens(item) for item in items], max_tokens - fixed)
    if kept == len(items):
        return answer
    note = (f"{len(items) - kept} of {len(items)} {what} dropped whole to stay within max_tokens={max_tokens}; "
            "ask again with a larger max_tokens or a narrower question")
    return answer.model_copy(update={field: items[:kept], "dropped": Dropped(items=len(items) - kept, kept=kept,
                                                                              note=note)})
