"""Resolving a commit from its base's resolution gives the full resolution, edge for edge, over random edit
sequences on generated repositories; and it redoes only the files a change can reach."""

from __future__ import annotations

from hashlib import sha1

from hypothesis import given, settings
from hypothesis import strategies as st
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.resolve.codegraph import keeps_file
from spider.indexer.resolve.incremental import ResolutionState, resolve_from
from spider.indexer.resolve.references import Resolver

from tests.fixtures.generated_repos import CLASS_EDITS, EDITS, edit, render, repos


def parsed(files: dict[str, str]) -> tuple[dict, dict[str, str]]:
    facts = {path: parse_file(path, code.encode()).facts for path, code in files.items()}
    kept = {path: f for path, f in facts.items() if f is not None and keeps_file(f)}
    return kept, {path: sha1(files[path].encode()).hexdigest() for path in kept}


def sorted_edges(edges: list) -> list:
    return sorted(edges, key=lambda e: (e.type, e.src, e.dst))


def resolved_from(files: dict, blobs: dict[str, str], earlier: ResolutionState | None):
    return resolve_from(files, blobs, "format", earlier)


def resolves_like_everything_after_each_edit(data, state, kinds: tuple[str, ...] = EDITS) -> None:
    files, blobs = parsed(render(state))
    _, run = resolved_from(files, blobs, None)
    for _ in range(data.draw(st.integers(1, 4))):
        for _ in range(data.draw(st.integers(1, 2))):
            edit(data.draw, state, kinds)
        files, blobs = parsed(render(state))

        edges, run = resolved_from(files, blobs, run.state)

        assert sorted_edges(edges) == Resolver(files).edges()


@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_resolving_from_the_base_equals_resolving_everything(data):
    resolves_like_everything_after_each_edit(data, data.draw(repos()))


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_java_classes_of_one_package_inheriting_across_files_resolve_from_the_base_like_everything(data):
    """Same-package Java classes see each other without imports, so a class renamed, nested or unnested in one
    file changes the bases of classes in others, and theirs the bases of others still (the inheritance fixpoint)."""
    repo = data.draw(repos(languages=("java",), directories=("pkg",)))
    resolves_like_everything_after_each_edit(data, repo, CLASS_EDITS)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_go_packages_of_several_files_resolve_from_the_base_like_everything(data):
    """The Go files of a directory are one package: a function, type or method added or renamed in one file, or a
    file moved to another package, changes what its package's other files and its importers resolve to."""
    repo = data.draw(repos(languages=("go",), directories=("pkg", "pkg/sub")))
    resolves_like_everything_after_each_edit(data, repo)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_cpp_translation_units_resolve_from_the_base_like_everything(data):
    """A bare C++ call means the innermost declaration the translation unit sees: a class starting or stopping to
    declare a method (or defining it in the class instead), a base changed, or a second definition appearing
    changes what calls in files that never read the changed file resolve to, and which class contains a method
    written in a .cpp."""
    repo = data.draw(repos(languages=("cpp",), directories=("pkg", "pkg/sub")))
    resolves_like_everything_after_each_edit(data, repo, EDITS + ("nest", "base", "class") * 3)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_c_translation_units_resolve_from_the_base_like_everything(data):
    """A C call resolves through the headers a file includes, transitively, to the one external definition of a
    name anywhere: a header starting or stopping to declare a name, a second definition appearing or a `static`
    one shadowing it, changes what files that never read the changed file resolve to."""
    repo = data.draw(repos(languages=("c",), directories=("pkg", "pkg/sub")))
    resolves_like_everything_after_each_edit(data, repo, EDITS + ("nest",) * 4)  # what changes a header alone


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_rust_modules_of_one_crate_resolve_from_the_base_like_everything(data):
    """A Rust type's impl blocks may stand in any module of its crate, and a module moves between foo.rs and
    foo/mod.rs: a type declared, renamed or moved in one file changes what methods other files' calls find."""
    repo = data.draw(repos(languages=("rust",), directories=("pkg", "pkg/sub")))
    resolves_like_everything_after_each_edit(data, repo)


def test_an_edit_redoes_the_files_that_read_what_it_changed_and_no_others():
    sources = {
        "pkg/a.py": "def helper():\n    return 1\n\nclass Base:\n    def run(self):\n        return helper()\n",
        "pkg/b.py": "from pkg.a import Base\n\nclass Shop(Base):\n    def buy(self):\n        return self.run()\n",
        "pkg/c.py": "def alone():\n    return 3\n",
    }
    files, blobs = parsed(sources)
    _, first = resolved_from(files, blobs, None)
    assert (first.inherits_resolved, first.links_resolved, first.reason) == (3, 3, "no base resolution")
    sources["pkg/a.py"] = sources["pkg/a.py"].replace("return 1", "return 2")
    files, blobs = parsed(sources)

    edges, run = resolved_from(files, blobs, first.state)

    assert sorted_edges(edges) == Resolver(files).edges()
    assert (run.inherits_resolved, run.links_resolved, run.reason) == (2, 2, "")  # a.py and b.py, not c.py
    sources["pkg/d.py"] = "def more():\n    return 4\n"
    files, blobs = parsed(sources)
    edges, added = resolved_from(files, blobs, run.state)
    assert sorted_edges(edges) == Resolver(files).edges()
    assert (added.links_resolved, added.reason) == (4, "the module layout changed")


def test_a_saved_state_serves_only_its_graph_format(tmp_path):
    files, blobs = parsed({"a.py": "def one():\n    return 1\n"})
    _, run = resolved_from(files, blobs, None)
    run.state.save(tmp_path / "state.pickle")

    assert ResolutionState.load(tmp_path / "state.pickle", "format") == run.state
    assert ResolutionState.load(tmp_path / "state.pickle", "another format") is None
    (tmp_path / "state.pickle").write_bytes(b"not a pickle")
    assert ResolutionState.load(tmp_path / "state.pickle", "format") is None


def test_a_base_found_through_an_unchanged_files_bases_is_resolved_again_when_those_change():
    """web/c.java reads the bases of pkg/b.java (its class's base is b's Shop), never lib/a.java; defining Cart in
    a.java gives Shop a base, and through it c's nested class one: c redoes its pass only through the fixpoint."""
    sources = {
        "lib/a.java": "package lib;\npublic class A {\n}\n",
        "pkg/b.java": "package pkg;\nimport lib.*;\npublic class B {\n}\nclass Shop extends Cart {\n}\n",
        "web/c.java": "package web;\nimport pkg.*;\npublic class C {\n    static class X extends Shop {\n"
                      "        static class Y extends Inner {\n        }\n    }\n}\n",
    }
    files, blobs = parsed(sources)
    _, first = resolved_from(files, blobs, None)
    sources["lib/a.java"] += "class Cart {\n    static class Inner {\n    }\n}\n"
    files, blobs = parsed(sources)

    edges, run = resolved_from(files, blobs, first.state)

    assert ("INHERITS", "web/c.java:C.X.Y", "lib/a.java:Cart.Inner") in {(e.type.value, e.src, e.dst) for e in edges}
    assert sorted_edges(edges) == Resolver(files).edges()
    assert run.inherits_resolved == 3


def test_a_changed_go_module_path_resolves_everything_again():
    """Every Go import resolves through go.mod's module path: a new one is a new module layout."""
    sources = {
        "go.mod": "module example.com/app\n",
        "shop/shop.go": "package shop\nfunc Buy() {}\n",
        "main.go": 'package main\nimport "example.com/app/shop"\nfunc main() { shop.Buy() }\n',
    }
    files, blobs = parsed(sources)
    first_edges, first = resolved_from(files, blobs, None)
    sources["go.mod"] = "module example.com/renamed\n"
    files, blobs = parsed(sources)

    edges, run = resolved_from(files, blobs, first.state)

    assert ("main.go:main", "shop/shop.go:Buy") in {(e.src, e.dst) for e in first_edges}
    assert run.reason == "the module layout changed" and sorted_edges(edges) == Resolver(files).edges()
    assert not [e for e in edges if e.type.value == "INVOKES"]  # the import names another module now
