"""Every answer of `spider mcp` fits an agent's tool-output limit: whole items are dropped from the end of a
ranked list (never cut mid-code), and the answer says how many went and how to get them. The budget bounds all
a client receives: the answer's JSON twice, as structured content and as text (`server.py` sends exactly that)."""

from __future__ import annotations

from math import ceil
from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel

DEFAULT_MAX_TOKENS = 20_000  # well inside the tool-output limits of Claude Code (25k) and similar agents
MIN_MAX_TOKENS = 1_000  # below this not even one localize result with its location fits, in both COPIES
CHARS_PER_TOKEN = 4  # a usual tokenizer's average on code and JSON; an estimate, erring on the long side for prose
COPIES = 2  # a client receives an answer as structured content and as the same JSON in a text block
ECHOED_CHARS = 200  # the most of a caller's value an answer or error repeats back

Answer = TypeVar("Answer", bound=BaseModel)


class Dropped(BaseModel):
    """What the token budget left out of an answer."""

    items: int
    kept: int
    note: str


def as_json(value: Any) -> str:
    """`value` as the compact JSON a client receives: what the budget counts, and the text `server.py` sends."""
    return pydantic_core.to_json(value, fallback=str).decode()


def estimate_tokens(value: Any, extra_chars: int = 0) -> int:
    """The tokens one copy of `value` takes as JSON, with `extra_chars` more (an estimate: characters /
    CHARS_PER_TOKEN)."""
    return ceil((len(as_json(value)) + extra_chars) / CHARS_PER_TOKEN)


def received_tokens(value: Any) -> int:
    """The tokens a client receives for `value` in an answer: every copy of it."""
    return COPIES * estimate_tokens(value)


def elided(text: str, limit: int = ECHOED_CHARS) -> str:
    """`text`, or when longer than `limit` its head and tail around a count of what was left out: a caller's
    value repeated back (an unknown id, a 100,000-character statement) costs at most `limit` characters."""
    if len(text) <= limit:
        return text
    half = limit // 2 - 20  # room for the count between the halves
    return f"{text[:half]}…[{len(text) - 2 * half:,} characters]…{text[-half:]}"


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
    and a `dropped` note when some did not (`what` names them: "results", "rows", ...). One copy of the answer
    gets max_tokens / COPIES; each item is counted with the comma before it."""
    items = getattr(answer, field)
    note_room = estimate_tokens(Dropped(items=len(items), kept=len(items), note="x" * 200))
    fixed = estimate_tokens(answer.model_copy(update={field: []})) + note_room
    kept = fitting([estimate_tokens(item, extra_chars=len(",")) for item in items], max_tokens // COPIES - fixed)
    if kept == len(items):
        return answer
    note = (f"{len(items) - kept} of {len(items)} {what} dropped whole to stay within max_tokens={max_tokens}; "
            "ask again with a larger max_tokens or a narrower question")
    return answer.model_copy(update={field: items[:kept], "dropped": Dropped(items=len(items) - kept, kept=kept,
                                                                              note=note)})
