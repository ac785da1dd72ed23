"""How AddressSanitizer and gdb name C and C++ functions in their frames, read from an issue's text.

Query-side only: the graph's format (`pipeline.graph_format.graph_format()`) does not fingerprint `frames.py` modules, so a
change here re-resolves no snapshot."""

from __future__ import annotations

import re

from spider.indexer.languages.frames import symbol_name

# AddressSanitizer's `#0 0x4f5a2b in ns::f<T>(int) /src/lib/f.c:20:13`, gdb's `#2  0x0000 in f (a=1) at lib/f.c:42`
_FRAME = re.compile(r"^[ \t]*#\d{1,4}[ \t]+(?:0x[0-9a-fA-F]{1,16}[ \t]+in[ \t]+)?([^\s(]{1,400})[^\n]{0,1000}[ \t]"
                    r"(?:at[ \t]+)?([^\s:()]{1,400}):\d+(?::\d+)?[ \t]*$", re.MULTILINE)


def stack_frames(text: str) -> list[tuple[str, str]]:
    """Sanitizer and gdb frames, which print C and C++ alike: C++'s qualified, templated symbols name their last
    part."""
    return [(path, symbol_name(symbol)) for symbol, path in _FRAME.findall(text)]
