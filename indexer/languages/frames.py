"""What every language's `frames.py` shares: the type of a stack-trace reader, and how a native frame's
`::`-qualified symbol names its function (Rust, C++)."""

from __future__ import annotations

import re
from typing import Callable, Iterable

# an issue's text -> (path as written, function name) of each stack-trace frame the language's runtime, debugger or
# sanitizer prints in it: what names a function most surely (`query.retrieve.mentions`)
StackFrames = Callable[[str], Iterable[tuple[str, str]]]

_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]{0,400}>")


def symbol_name(symbol: str) -> str:
    """The function a `::`-qualified symbol of a native frame names: `fmt::v10::detail::parse<char>` -> `parse`,
    `<A as B>::matched` -> `matched`, a closure (`{{closure}}`) -> its function; "" if none."""
    parts = [p for p in _TEMPLATE_ARGUMENTS.sub("", _TEMPLATE_ARGUMENTS.sub("", symbol)).split("::")
             if p and not p.startswith("{")]
    name = re.match(r"[A-Za-z_~]\w*", parts[-1]) if parts else None
    return name.group(0) if name else ""
