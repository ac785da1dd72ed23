"""The hand-written shop fixtures (tests/fixtures/shop.py) through parse + build_graph, without Neo4j.

The same graph the integration test reads back from Neo4j (tests/integration/test_index_graph.py), built in
process: files chosen as the pipeline chooses them, every node and CONTAINS / INVOKES / INHERITS / IMPORTS edge
compared exactly with the fixture. A resolver change that finds a MISSED call or drops an EXTRA one fails here
first: then update the fixture.
"""

from __future__ import annotations

import posixpath

import pytest
from spider.core.records import ROOT_DIRECTORY, CodeGraph
from spider.core.schema import Label, Rel
from spider.indexer.languages import contested_languages, language_of
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.resolve.codegraph import build_graph, keeps_file
from spider.indexer.source.walk import skip_reason_for_path

from tests.fixtures.shop import FIXTURES, ShopFixture


def graph_of(fixture: ShopFixture) -> CodeGraph:
    """What the pipeline builds for the fixture's commit (walk -> parse -> keep -> build_graph)."""
    facts, code = {}, {}
    contested = contested_languages(p for p in fixture.files if language_of(p) and not skip_reason_for_path(p))
    for path, text in sorted(fixture.files.items()):
        if language_of(path) is None:
            continue
        reason = skip_reason_for_path(path)
        outcome = None if reason else parse_file(path, text.encode(), language_of(path, contested))
        reason = reason or (outcome.skipped if outcome else None)
        assert reason == fixture.skipped.get(path), path
        if outcome is None or outcome.facts is None:
            continue
        assert not outcome.warnings, f"{path}: {outcome.warnings}"
        if keeps_file(outcome.facts):
            facts[path], code[path] = outcome.facts, outcome.code
    return build_graph(facts, "test/shop", code)


def edges(graph: CodeGraph, rel: Rel) -> set[tuple[str, str]]:
    return {(e.src, e.dst) for e in graph.edges if e.type == rel}


def expected_files(fixture: ShopFixture) -> set[str]:
    return {e.split(":", 1)[0] for e in fixture.classes | fixture.functions} | {
        src for src, _ in fixture.imports if ":" not in src
    } | fixture.manifests


def expected_containment(fixture: ShopFixture, files: set[str]) -> set[tuple[str, str]]:
    """dir -> subdir / file, file -> top-level entity, entity -> nested entity (its longest existing prefix), and
    the fixture's classes -> their methods written in other files."""
    found = set()
    for path in files:
        directory = posixpath.dirname(path)
        found.add((directory or ROOT_DIRECTORY, path))
        while directory:
            found.add((posixpath.dirname(directory) or ROOT_DIRECTORY, directory))
            directory = posixpath.dirname(directory)
    entities = fixture.classes | fixture.functions
    for eid in entities:
        path, qualname = eid.split(":", 1)
        prefixes = (f"{path}:{qualname[:i]}" for i, c in enumerate(qualname) if c == ".")
        owners = [p for p in prefixes if p in entities]
        found.add((max(owners, key=len) if owners else path, eid))
    return found | fixture.members


@pytest.fixture(scope="module", params=sorted(FIXTURES))
def case(request) -> tuple[ShopFixture, CodeGraph]:
    fixture = FIXTURES[request.param]
    return fixture, graph_of(fixture)


def test_nodes_are_exactly_the_fixtures(case):
    fixture, graph = case
    files = expected_files(fixture)
    directories = {ROOT_DIRECTORY} | {posixpath.dirname(f) for f in files} - {""}
    directories |= {d for d in list(directories) for d in _ancestors(d)}
    got = {(n.label, n.id) for n in graph.nodes}
    assert {i for label, i in got if label == Label.CLASS} == fixture.classes
    assert {i for label, i in got if label == Label.FUNCTION} == fixture.functions
    assert {i for label, i in got if label == Label.FILE} == files
    assert {i for label, i in got if label == Label.DIRECTORY} == directories
    assert len(got) == len(graph.nodes), "duplicate node ids"


def test_containment(case):
    fixture, graph = case
    assert edges(graph, Rel.CONTAINS) == expected_containment(fixture, expected_files(fixture))


def test_invokes_are_true_calls_minus_missed_plus_extra(case):
    fixture, graph = case
    assert edges(graph, Rel.INVOKES) == fixture.expected_calls


def test_inherits(case):
    fixture, graph = case
    assert edges(graph, Rel.INHERITS) == fixture.inherits


def test_imports(case):
    fixture, graph = case
    assert edges(graph, Rel.IMPORTS) == fixture.imports


def test_resolutions_and_entity_code(case):
    fixture, graph = case
    assert {e.resolution for e in graph.edges if e.type == Rel.CONTAINS and (e.src, e.dst) not in fixture.members} \
        == {None}
    assert {e.resolution.value for e in graph.edges if (e.src, e.dst) in fixture.members} <= {"import"}
    assert {e.resolution.value for e in graph.edges if e.type != Rel.CONTAINS} <= {"exact", "import", "heuristic"}
    for node in graph.nodes:  # an entity's code is exactly its lines of the file
        if node.label in (Label.CLASS, Label.FUNCTION):
            lines = fixture.files[node.path].splitlines(keepends=True)
            assert node.code == "".join(lines[node.start_line - 1 : node.end_line]), node.id
            assert node.language == fixture.language and len(node.content_hash) == 64


@pytest.mark.parametrize("language", sorted(FIXTURES))
def test_fixture_is_consistent(language):
    """MISSED are true calls, EXTRA are not, and every edge joins nodes the fixture lists."""
    fixture = FIXTURES[language]
    entities = fixture.classes | fixture.functions
    assert fixture.missed <= fixture.true_calls
    assert not fixture.extra & fixture.true_calls
    for src, dst in fixture.true_calls | fixture.extra | fixture.inherits | fixture.members:
        assert src in entities and dst in entities, (src, dst)
    files = expected_files(fixture)
    for src, dst in fixture.imports:
        assert src in files | entities and (dst in entities or dst in fixture.files), (src, dst)


def _ancestors(directory: str) -> list[str]:
    parts = directory.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


BUILD_VARIANTS = ShopFixture(
    language="go", classes=set(), functions=set(), true_calls=set(), files={
        "go.mod": "module example.com/clock\n",
        "clock/clock.go": "package clock\n\ntype Clock struct{}\n\nfunc Stamp(c Clock) int64 {\n\treturn now() + c.tick()\n}\n",
        "clock/now_linux.go": "//go:build linux\n\npackage clock\n\nfunc now() int64 { return 1 }\n\n"
                              "func (c Clock) tick() int64 { return 1 }\n\nfunc Local() int64 { return now() }\n",
        "clock/now_other.go": "//go:build !linux\n\npackage clock\n\nfunc now() int64 { return 2 }\n\n"
                              "func (c Clock) tick() int64 { return 2 }\n",
    })


def test_a_name_several_files_of_a_package_define_is_not_guessed():
    calls = edges(graph_of(BUILD_VARIANTS), Rel.INVOKES)
    # Which variant is compiled with clock.go depends on the build: neither call is resolved.
    assert not {dst for src, dst in calls if src == "clock/clock.go:Stamp"}
    # A file's own definition is the one compiled with it.
    assert ("clock/now_linux.go:Local", "clock/now_linux.go:now") in calls


BARE_NAMES_IN_METHODS = ShopFixture(
    language="python", classes=set(), functions=set(), true_calls=set(), files={
        "pkg/__init__.py": "",
        "pkg/bag.py": "class Bag:\n    def len(self):\n        return 0\n\n    def size(self):\n"
                      "        return len(self.items)\n\n    def total(self):\n        def inner():\n"
                      "            return 1\n        return inner()\n",
        "web/bag.js": "class Bag {\n  len() { return 0; }\n  size() { return len(this.items); }\n}\n"
                      "module.exports = { Bag };\n",
    })


def test_a_bare_name_in_a_method_is_not_a_member_of_its_class_in_python_or_javascript():
    calls = edges(graph_of(BARE_NAMES_IN_METHODS), Rel.INVOKES)
    assert ("pkg/bag.py:Bag.size", "pkg/bag.py:Bag.len") not in calls  # the builtin len
    assert ("web/bag.js:Bag.size", "web/bag.js:Bag.len") not in calls  # a global len: members need `this.`
    assert ("pkg/bag.py:Bag.total", "pkg/bag.py:Bag.total.inner") in calls  # a nested function is in scope
