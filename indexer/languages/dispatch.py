"""Parse stage: one file's bytes -> FileFacts, or the reason it was skipped. Pure, so it runs in any worker."""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

from spider.indexer.languages import extractor_for, is_generated
from spider.indexer.parse.facts import FileFacts, facts_from_dict, facts_to_dict

UNREADABLE_BLOB = "blob corrupt or unreadable in the git object store"  # not the file's fault: never cached
NESTED_TOO_DEEP = "nested deeper than the parser follows: parsed in part"
_MINIFIED_LINE = 5_000  # a line this long in a file with few lines: machine-written
_MINIFIED_AVERAGE = 500
# UTF-32 before UTF-16: the UTF-32 LE mark starts with the UTF-16 LE one
_BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32-LE"), (codecs.BOM_UTF32_BE, "UTF-32-BE"),
                     (codecs.BOM_UTF16_LE, "UTF-16-LE"), (codecs.BOM_UTF16_BE, "UTF-16-BE"), (codecs.BOM_UTF8, "UTF-8"))


@dataclass(slots=True)
class ParseOutcome:
    path: str
    facts: FileFacts | None = None
    code: str | None = None  # the file's text (File node `code`)
    skipped: str | None = None  # reason, when facts is None
    warnings: list[str] = field(default_factory=list)  # parsed, but: "syntax errors", "invalid UTF-8", ...


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


def outcome_to_dict(outcome: ParseOutcome) -> dict:
    return {
        "path": outcome.path, "facts": facts_to_dict(outcome.facts) if outcome.facts else None,
        "code": outcome.code, "skipped": outcome.skipped, "warnings": outcome.warnings,
    }


def outcome_from_dict(data: dict) -> ParseOutcome:
    facts = facts_from_dict(data["facts"]) if data["facts"] else None
    return ParseOutcome(data["path"], facts, data["code"], data["skipped"], data["warnings"])
