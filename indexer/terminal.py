"""Text from outside (file names, ids, repository names, error messages) shown to a person on a terminal."""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the bidirectional marks, overrides and isolates that reorder what is shown
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with each control character shown as its escape (ESC as \\x1b, a newline as \\n), so a name cannot
    clear the screen, set the window title, move the cursor, forge a line or reverse what follows it."""
    return _CONTROL.sub(lambda match: match[0].encode("unicode_escape").decode("ascii"), text)
