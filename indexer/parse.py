"""Parse stage: one file's bytes -> FileFacts, or the reason it was skipped. Pure, so it runs in any worker."""

from __future__ import annotations

from dataclasses import dataclass, field

from indexer.languages import extractor_for
from indexer.model import FileFacts, facts_from_dict, facts_to_dict

_MINIFIED_LINE = 5_000  # a line this long in a file with few lines: machine-written
_MINIFIED_AVERAGE = 500


@dataclass(slots=True)
class ParseOutcome:
    path: str
    facts: FileFacts | None = None
    code: str | None = None  # the file's text (File node `code`)
    skipped: str | None = None  # reason, when facts is None
    warnings: list[str] = field(default_factory=list)  # parsed, but: "syntax errors", "invalid UTF-8"


def _looks_minified(data: bytes) -> bool:
    lines = data.count(b"\n") + 1
    return len(data) / lines > _MINIFIED_AVERAGE and any(
        len(line) > _MINIFIED_LINE for line in data.split(b"\n", 50)[:50]
    )


def parse_file(path: str, data: bytes) -> ParseOutcome:
    extract = extractor_for(path)
    if extract is None:
        return ParseOutcome(path, skipped="unsupported language")
    if b"\0" in data[:8192]:
        return ParseOutcome(path, skipped="binary")
    if _looks_minified(data):
        return ParseOutcome(path, skipped="minified")
    warnings = []
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
        warnings.append("syntax errors")
    return ParseOutcome(path, facts=facts, code=code, warnings=warnings)


def outcome_to_dict(outcome: ParseOutcome) -> dict:
    return {
        "path": outcome.path, "facts": facts_to_dict(outcome.facts) if outcome.facts else None,
        "code": outcome.code, "skipped": outcome.skipped, "warnings": outcome.warnings,
    }


def outcome_from_dict(data: dict) -> ParseOutcome:
    facts = facts_from_dict(data["facts"]) if data["facts"] else None
    return ParseOutcome(data["path"], facts, data["code"], data["skipped"], data["warnings"])
