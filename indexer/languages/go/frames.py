"""How a Go panic's goroutine trace names functions, read from an issue's text.

Query-side only: the graph's format (`pipeline.graph_format.graph_format()`) does not fingerprint `frames.py` modules, so a
change here re-resolves no snapshot."""

from __future__ import annotations

import re

# `pkg.(*Type).Method(0xc0001)` then a tab and `/abs/path/file.go:642 +0x1d`
_FRAME = re.compile(r"^[ \t]*([\w./*()\[\]-]{1,300})\([^\n]{0,400}\)[ \t]*\n[ \t]+([^\s:]{1,400}\.go):\d+", re.MULTILINE)
_CLOSURE = re.compile(r"(?:\.func\d+|\.\d+)+\Z")  # `Method.func1.2`: a closure of Method, no Function itself


def stack_frames(text: str) -> list[tuple[str, str]]:
    """A panic's goroutine trace: `(*Type).Method` names Method, its closures `Method.func1` too."""
    return [(path, _CLOSURE.sub("", function).rsplit(".", 1)[-1].strip("()*")) for function, path in _FRAME.findall(text)]
