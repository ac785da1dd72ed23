"""How an answer is printed: a table for people, JSON with every field for agents."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from spider.core.terminal import printable, render_table
from spider.query.results import Answer, Origin, Result

JSON_NAMES = {"first_stage_rank": "dense_rank"}  # fields whose JSON key kept an earlier name


def to_json(answer: Answer) -> str:
    """Every field of the answer, every result with its `lines`, every selector call."""
    payload = asdict(answer)
    for key in ("results", "displaced"):
        payload[key] = [_result_row(row, result) for row, result in zip(payload[key], getattr(answer, key))]
    return json.dumps(payload, indent=2)


def _result_row(row: dict[str, Any], result: Result) -> dict[str, Any]:
    shown = {JSON_NAMES.get(key, key): value for key, value in row.items()}
    shown["lines"] = result.lines
    return shown


def to_table(answer: Answer) -> str:
    """One line per result (with why it is there where the answer explains), then what was displaced, failed
    selector calls, notes and the headline."""
    explained = answer.selector is not None or answer.first_stage == Origin.HYBRID
    header = ["rank", "score", "id", "path:lines"] + (["why"] if explained else [])
    rows = [[str(r.rank), f"{r.score:.4f}", r.id, f"{r.path}:{r.lines}"] + ([r.why()] if explained else [])
            for r in answer.results]
    below = [f"displaced: {item.id}, {item.first_stage_why()}" for item in answer.displaced]
    for call in answer.calls:
        if call.status != "ok":
            below.append(f"seed {call.seed}: {call.status} ({call.detail}); admitted nothing")
        elif call.ignored:
            below.append(f"seed {call.seed}: ignored {len(call.ignored)} id(s) that were not offered")
    below.extend(f"note: {note}" for note in answer.notes)
    below.append(headline(answer))
    # ids, paths and notes come from outside: no control characters (render_table escapes the cells)
    return "\n".join([render_table(header, rows, max_cell=None, rule=False)] + [printable(line) for line in below])


def headline(answer: Answer) -> str:
    """What ran over which snapshot, what the graph steps did, and the seconds of each stage."""
    timing = ", ".join(f"{stage} {seconds:.3f}s" for stage, seconds in answer.seconds.items())
    model = f", model {answer.model}" if answer.model else ""
    first = f", first stage {answer.first_stage}" if answer.selector is not None and answer.first_stage else ""
    tests = f", tests {answer.tests}d" if answer.tests else ""
    line = f"{answer.method} top-{answer.k} of {answer.repo} @ {answer.snapshot[:12]}{first}{model}{tests}"
    if answer.selector is not None:
        s = answer.summary
        line += (f", selector {answer.selector}, edges {answer.edges}: {s.proposals} proposal(s) from "
                 f"{s.seeds} seed(s), {s.admitted} admitted, {s.displaced} displaced; "
                 f"tokens {s.tokens_in} in / {s.tokens_out} out")
    return f"{line}: {timing}"
