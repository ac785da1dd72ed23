"""The Go extractor: the annotated cases in indexer/languages/go/cases/ (types, methods, imports, receiver types,
exactly), go.mod, and the robustness checks a case file cannot hold."""

from __future__ import annotations

import pytest
from spider.indexer.languages.go.extract import extract, package_name
from spider.indexer.parse.facts import RefKind

from tests.unit.indexer.languages.annotated import case_files, check, read_case


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


@pytest.mark.parametrize(("source", "module"), [
    (b"module github.com/acme/shop\n\ngo 1.22\n", "github.com/acme/shop"),
    (b'// a comment\nmodule "example.com/quoted" // trailing\n', "example.com/quoted"),
    (b"go 1.22\n", None),
    (b"module\n", None),
])
def test_go_mod_gives_its_module_path(source, module):
    facts = extract("tools/go.mod", source)
    assert (facts.module, facts.entities, facts.imports) == (module, [], [])


@pytest.mark.parametrize(("import_path", "name"), [
    ("fmt", "fmt"), ("net/http", "http"), ("github.com/acme/shop/v2", "shop"), ("gopkg.in/yaml.v3", "yaml"),
    ("github.com/mattn/go-isatty", "isatty"), ("k8s.io/client-go", "client"), ("example.com/my-pkg", ""),
    ("v2", "v2"),
])
def test_an_import_binds_its_package_name_by_convention(import_path, name):
    assert package_name(import_path) == name


def test_weird_inputs_do_not_raise():
    assert extract("e.go", b"").entities == []
    bad_bytes = extract("b.go", b"package x\n// \xff\xfe\nfunc h() { f(\"\xc3\") }\n")
    assert [r.target for r in bad_bytes.references] == [("f",)]
    assert extract("m.go", b"package x\nfunc () None() {}\nfunc (a []T) Slice() {}\n").entities == []  # no receiver type


def test_deep_nesting_does_not_exhaust_the_stack():
    blocks = "{" * 3000 + "g()" + "}" * 3000
    sums = " + ".join(f"f{i}()" for i in range(3000))
    facts = extract("d.go", f"package x\nfunc m() {{ x := {sums}\n {blocks} }}\n".encode())
    targets = [r.target for r in facts.references if r.kind == RefKind.CALL and r.scope == "m"]
    assert len(targets) == 3001 and targets[-1] == ("g",)


def test_deterministic():
    src = b"package x\ntype T struct{ U }\nfunc (t *T) m() { v := &T{}; v.m(); go func() { t.m() }() }\n"
    assert extract("a.go", src) == extract("a.go", src)
