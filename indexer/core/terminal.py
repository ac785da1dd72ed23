"""Text from outside (file names, ids, repository names, error messages) shown to a person on a terminal."""

from __future__ import annotations

import re

from spider.core.redact import redact

# C0 and C1 controls, DEL, and the bidirectional marks, overrides and isolates that reorder what is shown
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with each control character shown as its escape (ESC as \\x1b, a newline as \\n), so a name cannot
    clear the screen, set the window title, move the cursor, forge a line or reverse what follows it."""
    return _CONTROL.sub(lambda match: match[0].encode("unicode_escape").decode("ascii"), text)


def one_line(text: str) -> str:
    """What a message may show: its first line, secrets masked, control characters as escapes."""
    lines = text.strip().splitlines()
    return printable(redact(lines[0] if lines else ""))


def squeezed(text: object) -> str:
    """`text` on one line, each run of whitespace one space: how an engine's message is quoted inside spider's."""
    return " ".join(str(text).split())


def render_table(header: list[str], rows: list[list[str]], max_cell: int | None = 60, rule: bool = True) -> str:
    """Columns two spaces apart, each as wide as its widest cell, every cell shown through `printable`, trailing
    spaces cut from the rows; a cell longer than `max_cell` is cut to it, ending in '…'. With `rule`, a line of
    dashes under the header, which then keeps its padding to the rule's width."""
    header = [printable(h) for h in header]
    cells = [[c if max_cell is None or len(c) <= max_cell else c[: max_cell - 1] + "…" for c in map(printable, row)]
             for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)]
    head = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    lines = [head, "  ".join("-" * w for w in widths)] if rule else [head.rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)
