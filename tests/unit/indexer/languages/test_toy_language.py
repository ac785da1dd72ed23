"""A language is a plug-in: one registered from here, with its own extractor and rules, is parsed, indexed and
resolved by the shared code like the built-in ones."""

from __future__ import annotations

import posixpath
import re

import pytest
from spider.core.schema import Label, Rel, Resolution
from spider.indexer.languages import extractor_for, grammars, is_test_code, language_of, languages, register_language
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.languages.rules import Exports, LanguageRules, Module, ModuleMap, TestCode
from spider.indexer.parse.facts import FileFacts, Import, Reference, RefKind
from spider.indexer.parse.treesitter import SourceLines
from spider.indexer.pipeline.graph_format import grammar_distributions, graph_format
from spider.indexer.resolve.codegraph import build_graph


def extract_toy(path: str, source: bytes) -> FileFacts:
    """Toy syntax, a statement a line: `use m` imports the file m.toy of the same directory, `fn f` defines a
    function, an indented `a.b` inside it calls a.b."""
    facts = FileFacts(path=path, language="toy")
    lines = SourceLines(source)
    for number, line in enumerate(source.decode().splitlines(), 1):
        word, _, rest = line.strip().partition(" ")
        if word == "use":
            facts.imports.append(Import(None, rest, None, rest, number))
        elif word == "fn":
            facts.entities.append(lines.entity(Label.FUNCTION, rest, rest, "function", number, number, None))
        elif line.startswith(" ") and facts.entities:
            caller = facts.entities[-1].qualname
            facts.references.append(Reference(caller, RefKind.CALL, tuple(word.split(".")), number))
    return facts


class ToyModules(ModuleMap):
    """`use m` names m.toy beside the importer."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        self._files = set(files)

    def module(self, importer: str, specifier: str) -> Module | None:
        path = posixpath.join(posixpath.dirname(importer), f"{specifier}.toy")
        return Module(path) if path in self._files else None


# Toy tests live in checks/ trees, *_check.toy files, or an in-file `checks` block (qualified names checks.*).
TOY_TESTS = TestCode(frozenset({"checks"}), re.compile(r"_check\.toy$"), qualname=re.compile(r"^checks\."))


def register_toy():
    return register_language("toy", (".toy",), extract_toy, LanguageRules(ToyModules, Exports.FILE_SCOPE, TOY_TESTS))


@pytest.fixture
def toy_language():
    unregister = register_toy()
    yield
    unregister()


def test_a_registered_language_is_indexed_and_resolved_like_a_built_in_one(toy_language):
    sources = {
        "app/main.toy": "use util\nfn main\n  util.helper\n  local\n  print\nfn local\n",
        "app/util.toy": "fn helper\n",
    }
    files = {path: parse_file(path, code.encode()).facts for path, code in sources.items()}
    graph = build_graph(files, "toy-repo", sources)

    assert graph.labels["app/main.toy:main"] == Label.FUNCTION
    assert {node.language for node in graph.nodes if node.label == Label.FILE} == {"toy"}
    resolved = {(e.type, e.src, e.dst, e.resolution) for e in graph.edges if e.type != Rel.CONTAINS}
    assert resolved == {
        (Rel.IMPORTS, "app/main.toy", "app/util.toy", Resolution.IMPORT),
        (Rel.INVOKES, "app/main.toy:main", "app/util.toy:helper", Resolution.IMPORT),
        (Rel.INVOKES, "app/main.toy:main", "app/main.toy:local", Resolution.EXACT),
    }


def test_unregistering_a_language_forgets_its_extensions():
    unregister = register_toy()
    assert language_of("a/b.toy") == "toy" and extractor_for("a/b.toy") is extract_toy
    unregister()
    assert language_of("a/b.toy") is None and extractor_for("a/b.toy") is None
    assert language_of("a/b.py") == "python"


def test_an_extension_is_read_by_one_language_only():
    with pytest.raises(ValueError, match=r"\.py"):
        register_language("toy", (".py",), extract_toy, LanguageRules(ToyModules, Exports.FILE_SCOPE, TOY_TESTS))
    assert language_of("a/b.py") == "python"


def test_a_registered_language_brings_its_own_test_code_definition(toy_language):
    assert is_test_code("app/checks/main.toy:run") and is_test_code("app/parse_check.toy:run")
    assert is_test_code("app/parse.toy:checks.parses_empty#2")  # an in-file marker
    assert not is_test_code("app/parse.toy:parse") and not is_test_code("app/parse.toy:checker.run")


def test_a_language_may_read_whole_file_names_and_mark_the_files_tools_write():
    rules = LanguageRules(ToyModules, Exports.FILE_SCOPE, TOY_TESTS,
                          generated=lambda path, source: source.startswith(b"# generated"))
    unregister = register_language("toy", (".toy",), extract_toy, rules, file_names=("Toyfile",))
    try:
        assert language_of("app/Toyfile") == "toy" and language_of("app/Toyfile.txt") is None
        assert parse_file("app/a.toy", b"# generated\nfn f\n").skipped == "generated"
        assert parse_file("app/b.toy", b"fn f\n# generated\n").facts is not None
    finally:
        unregister()
    assert language_of("app/Toyfile") is None


def test_a_registered_language_is_named_and_its_grammar_is_part_of_the_graph_format():
    """The language names and the grammars come from what is registered: a language plugged in from outside is one
    of them, and the versions of the grammars it declares are fingerprinted with the graph's format. (A toy has no
    grammar distribution: an installed one stands in for it.)"""
    built_in = graph_format()
    assert "toy" not in languages() and {"python", "typescript"} <= languages()
    unregister = register_language("toy", (".toy",), extract_toy,
                                   LanguageRules(ToyModules, Exports.FILE_SCOPE, TOY_TESTS), grammars=("pytest",))
    try:
        assert "toy" in languages() and "pytest" in grammars() and "pytest" in grammar_distributions()
        assert graph_format() != built_in
    finally:
        unregister()
    assert "toy" not in languages() and "pytest" not in grammar_distributions()
    assert graph_format() == built_in
