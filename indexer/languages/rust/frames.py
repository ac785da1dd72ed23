"""How a Rust backtrace names functions, read from an issue's text.

Query-side only: the graph's format (`pipeline.graph_format.graph_format()`) does not fingerprint `frames.py` modules, so a
change here re-resolves no snapshot."""

from __future__ import annotations

import re

from spider.indexer.languages.frames import symbol_name

# `  13: crate::module::Type::method::h0123456789abcdef` then `at ./src/file.rs:735:9`
_FRAME = re.compile(r"^[ \t]*\d{1,4}: ([^\n]{1,400}?)(?:::h[0-9a-f]{16})?[ \t]*\n[ \t]+at ([^\s:]{1,400}\.rs):\d+",
                    re.MULTILINE)


def stack_frames(text: str) -> list[tuple[str, str]]:
    """A backtrace (`RUST_BACKTRACE=1`): each frame's symbol, then its file."""
    return [(path, symbol_name(symbol)) for symbol, path in _FRAME.findall(text)]
