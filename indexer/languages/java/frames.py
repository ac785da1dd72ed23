"""How Java's stack traces name methods, read from an issue's text.

Query-side only: the graph's format (`pipeline.graph_format.graph_format()`) does not fingerprint `frames.py` modules, so a
change here re-resolves no snapshot."""

from __future__ import annotations

import re

_FRAME = re.compile(r"\bat ((?:[\w$]{1,200}\.){1,30})([\w$<>]{1,200})\(([\w$]{1,200}\.java):\d+\)")


def stack_frames(text: str) -> list[tuple[str, str]]:
    """`at com.acme.Foo$Inner.bar(Foo.java:42)`: bar of com/acme/Foo.java (the package's lower-case parts are its
    directories)."""
    frames = []
    for qualifier, name, file_name in _FRAME.findall(text):
        package = qualifier.rstrip(".").split(".")
        directory = "/".join(p for p in package[:-1] if p and p[0].islower())
        frames.append((f"{directory}/{file_name}" if directory else file_name, name))
    return frames
