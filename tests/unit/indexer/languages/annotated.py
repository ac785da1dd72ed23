"""Extractor test cases written as annotated source files (the syntax is in README.md beside this module), kept in
each language's package: indexer/languages/<lang>/cases/.

A case file is real source followed by an `expect:` comment block; the source alone goes to the extractor and
the facts it returns must be exactly the ones the block lists."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from spider.core.schema import Label
from spider.indexer.parse.facts import Entity, Export, FileFacts, Import, Reference, RefKind

FUNCTION_KINDS = {"function", "method", "constructor"}  # every other kind is a class-like entity
FILE_SCOPE = "<file>"  # a reference or import outside every entity (scope None)
UNKNOWN_ARITY = "?"


@dataclass
class Case:
    """One case file: the source the extractor sees and the facts the comment block expects."""

    path: Path
    source: bytes
    expected: dict[str, list] = field(default_factory=dict)  # fact kind -> every fact of that kind, in order
    scalars: dict[str, object] = field(default_factory=dict)  # language, package, syntax-errors


def comment_marker(path: Path) -> str:
    return "#" if path.suffix == ".py" else "//"


LANGUAGES = Path(__file__).resolve().parents[4] / "indexer" / "languages"  # the language packages, in the checkout


def cases_folder(test_module: str) -> Path:
    """The `cases/` folder of the language whose tests are in `test_module`'s folder (tests/unit/indexer/languages/
    <lang>/): it is in the language's own package, indexer/languages/<lang>/cases/."""
    return LANGUAGES / Path(test_module).resolve().parent.name / "cases"


def case_files(test_module: str) -> list[Path]:
    """The case files of the language whose tests are in `test_module`'s folder."""
    return sorted(path for path in cases_folder(test_module).iterdir() if path.is_file())


def read_case(path: Path) -> Case:
    marker = comment_marker(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"{marker} expect:")
    source = "\n".join(lines[:start]).rstrip("\n") + "\n"
    case = Case(path, source.encode())
    for number, line in enumerate(lines[start + 1 :], start + 2):
        if not line.startswith(marker):
            raise ValueError(f"{path.name}:{number}: the expect: block holds comment lines only")
        fact = line[len(marker) :].partition(" -- ")[0].strip()  # ` -- ` starts a remark
        if fact:
            try:
                add_fact(case, shlex.split(fact, comments=False))
            except (ValueError, IndexError, KeyError) as error:
                raise ValueError(f"{path.name}:{number}: {error}: {line}") from error
    return case


def add_fact(case: Case, words: list[str]) -> None:
    keyword, *rest = words
    if keyword == "no":
        (kinds,) = rest
        case.expected.setdefault(PLURALS[kinds], [])
    elif keyword in ("language:", "package:", "syntax-errors:"):
        (value,) = rest
        name = keyword.removesuffix(":")
        case.scalars[name] = None if value == "none" else int(value) if name == "syntax-errors" else value
    else:
        case.expected.setdefault(keyword, []).append(PARSERS[keyword](rest))


def options(words: list[str], allowed: set[str]) -> dict[str, str]:
    pairs = dict(word.split("=", 1) for word in words)
    if unknown := set(pairs) - allowed:
        raise ValueError(f"unknown option {sorted(unknown)}")
    return pairs


def scope_of(word: str) -> str | None:
    return None if word == FILE_SCOPE else word


def target_of(word: str) -> tuple[str, ...]:
    return tuple(word.split("."))


def line_of(word: str) -> int:
    if not word.startswith("@"):
        raise ValueError("a line is written @N")
    return int(word[1:])


def entity(words: list[str]) -> tuple:
    """entity KIND QUALNAME START-END [parent=QUALNAME] [name=NAME]"""
    kind, qualname, span, *more = words
    start, end = span.split("-")
    extra = options(more, {"parent", "name"})
    name = extra.get("name", re.sub(r"#\d+$", "", qualname.rsplit(".", 1)[-1]))
    label = Label.FUNCTION if kind in FUNCTION_KINDS else Label.CLASS
    return (label, qualname, name, kind, int(start), int(end), extra.get("parent"))


def call(words: list[str]) -> tuple:
    """call SCOPE -> TARGET/ARITY @LINE [inferred]"""
    scope, arrow, target_arity, line, *inferred = words
    if arrow != "->" or inferred not in ([], ["inferred"]):
        raise ValueError("expected SCOPE -> TARGET/ARITY @LINE [inferred]")
    target, arity = target_arity.rsplit("/", 1)
    return (scope_of(scope), target_of(target), line_of(line), None if arity == UNKNOWN_ARITY else int(arity),
            bool(inferred))


def inherit(words: list[str]) -> tuple:
    """inherit SCOPE -> BASE @LINE (also member SCOPE -> CLASS @LINE)"""
    scope, arrow, target, line = words
    if arrow != "->":
        raise ValueError("expected SCOPE -> NAME @LINE")
    return (scope_of(scope), target_of(target), line_of(line))


def import_(words: list[str]) -> Import:
    """import MODULE @LINE [name=NAME] [alias=ALIAS] [scope=QUALNAME]"""
    module, line, *more = words
    extra = options(more, {"name", "alias", "scope"})
    return Import(extra.get("scope"), module, extra.get("name"), extra.get("alias", ""), line_of(line))


def export(words: list[str]) -> Export:
    """export NAME [local=QUALNAME] [module=MODULE] [imported=NAME]"""
    name, *more = words
    return Export(name, **options(more, {"local", "module", "imported"}))


PARSERS = {"entity": entity, "call": call, "inherit": inherit, "member": inherit, "import": import_, "export": export}
PLURALS = {"entities": "entity", "calls": "call", "inherits": "inherit", "members": "member", "imports": "import",
           "exports": "export"}


def entity_row(e: Entity) -> tuple:
    return (e.label, e.qualname, e.name, e.kind, e.start_line, e.end_line, e.parent)


def reference_rows(facts: FileFacts, kind: RefKind) -> list[tuple]:
    def row(r: Reference) -> tuple:
        return (r.scope, r.target, r.line, r.arity, r.inferred) if kind == RefKind.CALL else (r.scope, r.target, r.line)

    return [row(r) for r in facts.references if r.kind == kind]


def extracted(facts: FileFacts, kind: str) -> list:
    if kind == "entity":
        return [entity_row(e) for e in facts.entities]
    if kind in ("call", "inherit", "member"):
        return reference_rows(facts, RefKind(kind))
    return {"import": facts.imports, "export": facts.exports}[kind]


def check(case: Case, extract: Callable[[str, bytes], FileFacts]) -> None:
    """Every fact kind the case mentions is extracted exactly as listed; every entity's code is its lines."""
    facts = extract(case.path.name, case.source)
    assert facts.path == case.path.name
    assert facts.syntax_errors == case.scalars.get("syntax-errors", 0)
    if "language" in case.scalars:
        assert facts.language == case.scalars["language"]
    if "package" in case.scalars:
        assert facts.package == case.scalars["package"]
    for kind, expected in case.expected.items():
        assert extracted(facts, kind) == expected, kind
    lines = case.source.decode().splitlines(keepends=True)
    for e in facts.entities:
        assert e.code == "".join(lines[e.start_line - 1 : e.end_line]), e.qualname
