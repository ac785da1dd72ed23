"""How Python's tracebacks name functions, read from an issue's text.

Query-side only: the graph's format (`pipeline.graph_format.graph_format()`) does not fingerprint `frames.py` modules, so a
change here re-resolves no snapshot."""

from __future__ import annotations

import re

_FRAME = re.compile(r'File "([^"\n]{1,400})", line \d+, in ([\w<>]{1,200})')


def stack_frames(text: str) -> list[tuple[str, str]]:
    """A traceback's `File "xarray/core/merge.py", line 90, in merge_core`; not `<module>` or `<lambda>`."""
    return [(path, name) for path, name in _FRAME.findall(text) if not name.startswith("<")]
