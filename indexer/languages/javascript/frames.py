"""How V8's (Node's, Chrome's) stack traces name functions, read from an issue's text.

Query-side only: the graph's format (`pipeline.graph_format.graph_format()`) does not fingerprint `frames.py` modules, so a
change here re-resolves no snapshot."""

from __future__ import annotations

import re

_FRAME = re.compile(r"\bat (?:(?:new |async )?([\w$.<>]{1,200}) \()?(?:file://)?([^\s():]{1,400}\.[cm]?[jt]sx?):\d+:\d+")


def stack_frames(text: str) -> list[tuple[str, str]]:
    """V8's `at Axios.request (lib/core/Axios.js:45:41)`: request of lib/core/Axios.js; an anonymous frame names
    nothing."""
    return [(path, name.rsplit(".", 1)[-1]) for name, path in _FRAME.findall(text) if name and not name.startswith("<")]
