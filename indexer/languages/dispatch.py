"""Parse stage: one file's bytes -> FileFacts, or the reason it was skipped. Pure, so it runs in any worker."""

from __future__ import annotations

import codecs

from spider.indexer.languages import extractor_for, is_generated
from spider.indexer.parse.facts import NESTED_TOO_DEEP, ParseOutcome

_MINIFIED_LINE = 5_000  # a line this long in a file with few lines: machine-written
_MINIFIED_AVERAGE = 500
# UTF-32 before UTF-16: the UTF-32 LE mark starts with the UTF-16 LE one
_BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32-LE"), (codecs.BOM_UTF32_BE, "UTF-32-BE"),
                     (codecs.BOM_UTF16_LE, "UTF-16-LE"), (codecs.BOM_UTF16_BE, "UTF-16-BE"), (codecs.BOM_UTF8, "UTF-8"))


def _looks_minified(data: bytes) -> bool:
    lines = data.count(b"\n") + 1
    return len(data) / lines > _MINIFIED_AVERAGE and any(
        len(line) > _MINIFIED_LINE for line in data.split(b"\n", 50)[:50]
    )


def as_utf8(data: bytes) -> tuple[bytes, list[str]]:
    """The file's bytes in UTF-8, without a byte-order mark: editors on Windows write UTF-16 sources, whose
    ASCII would otherwise look binary (every other byte NUL). Lines stay where they were. Also the warning, when
    the marked encoding does not decode."""
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            body = data[len(mark):]
            if encoding == "UTF-8":
                return body, []
            try:
                return body.decode(encoding).encode("utf-8"), []
            except UnicodeDecodeError:
                return body.decode(encoding, "replace").encode("utf-8"), [f"invalid {encoding[:6]}"]
    return data, []


def parse_file(path: str, data: bytes, language: str | None = None) -> ParseOutcome:
    """`language`: the one the snapshot chose for a contested extension (None: the extension's)."""
    extract = extractor_for(path, language)
    if extract is None:
        return ParseOutcome(path, skipped="unsupported language")
    data, warnings = as_utf8(data)
    if b"\0" in data[:8192]:
        return ParseOutcome(path, skipped="binary")
    if _looks_minified(data):
        return ParseOutcome(path, skipped="minified")
    if is_generated(path, data):
        return ParseOutcome(path, skipped="generated")
    try:
        code = data.decode("utf-8")
    except UnicodeDecodeError:
        code = data.decode("utf-8", "replace")
        warnings.append("invalid UTF-8")
    try:
        facts = extract(path, data)
    except RecursionError:
        return ParseOutcome(path, skipped="nesting too deep")
    if facts.syntax_errors:
        warnings.append(NESTED_TOO_DEEP if facts.nesting_too_deep else "syntax errors")
    return ParseOutcome(path, facts=facts, code=code, warnings=warnings)
