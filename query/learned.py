"""The LLM-free selector. Until the evaluation issue trains the model DESIGN.md describes, it is a documented rule
with the same interface: admit a neighbour when the issue text names it (its function name as a whole
identifier, at least 4 characters, or its `Class.method`). Deterministic, zero tokens, microseconds.
"""

from __future__ import annotations

import re

from query.select import Decision, SelectionRequest

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
MIN_NAME = 4


def named_in(issue: str) -> set[str]:
    """Every identifier and every dotted suffix of a dotted name in the issue (`a.B.c` -> a.B.c, B.c, c, a, B)."""
    names: set[str] = set()
    for dotted in _IDENTIFIER.findall(issue):
        parts = dotted.split(".")
        names.update(parts)
        names.update(".".join(parts[i:]) for i in range(len(parts) - 1))
    return names


def qualified_parts(node_id: str) -> tuple[str, str]:
    """(`method`, `Class.method`) of `path:Class.method` (the second is "" for a top-level function)."""
    qualname = node_id.rsplit(":", 1)[-1].split("#")[0]
    parts = qualname.split(".")
    return parts[-1], ".".join(parts[-2:]) if len(parts) > 1 else ""


class NamedInIssueSelector:
    name = "learned (rule until trained: admit neighbours the issue names)"
    uses_budget = True

    def decide(self, request: SelectionRequest) -> Decision:
        names = named_in(request.issue)
        offered = [c.id for c in request.candidates]
        admitted = []
        for candidate in request.candidates:
            short, qualified = qualified_parts(candidate.id)
            if (len(short) >= MIN_NAME and short in names) or (qualified and qualified in names):
                admitted.append(candidate.id)
        return Decision(request.seed.id, offered, admitted=admitted)
