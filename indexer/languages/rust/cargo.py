"""`Cargo.toml`: the name its `[package]` table gives the crate, which other crates of a workspace `use` it by."""

from __future__ import annotations

import re

from spider.indexer.languages.rust import LANGUAGE
from spider.indexer.parse.facts import FileFacts

_TABLE = re.compile(rb"^[ \t]*\[([^\]\n]{1,200})\][ \t]*(?:#[^\n]*)?\r?$", re.MULTILINE)
_NAME = re.compile(rb'^[ \t]*name[ \t]*=[ \t]*"([A-Za-z0-9_-]{1,200})"', re.MULTILINE)


def extract(path: str, source: bytes) -> FileFacts:
    """The crate name of the `[package]` table; None for a workspace's manifest, which names no crate."""
    tables = list(_TABLE.finditer(source))
    for table, following in zip(tables, tables[1:] + [None]):
        if table[1].strip() == b"package":
            found = _NAME.search(source, table.end(), following.start() if following else len(source))
            return FileFacts(path=path, language=LANGUAGE, module=found[1].decode() if found else None)
    return FileFacts(path=path, language=LANGUAGE)
