"""`go.mod`: the module path its `module` directive declares, the import path of the directory it stands in."""

from __future__ import annotations

import re

from spider.indexer.languages.go import LANGUAGE
from spider.indexer.parse.facts import FileFacts

# `module example.com/m` or `module "example.com/m"`, with an optional trailing comment.
_MODULE = re.compile(rb'^[ \t]*module[ \t]+"?([^\s"/][^\s"]{0,499})"?[ \t]*(?://[^\n]*)?\r?$', re.MULTILINE)


def extract(path: str, source: bytes) -> FileFacts:
    found = _MODULE.search(source)
    return FileFacts(path=path, language=LANGUAGE, module=found[1].decode("utf-8", "replace") if found else None)
