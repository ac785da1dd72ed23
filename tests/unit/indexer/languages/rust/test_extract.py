"""The Rust extractor: the annotated cases in indexer/languages/rust/cases/ (items, impls, modules, uses, receiver
types, macros), Cargo.toml, and the robustness checks a case file cannot hold."""

from __future__ import annotations

import pytest
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.languages.rust.extract import extract
from spider.indexer.parse.facts import RefKind

from tests.unit.indexer.languages.annotated import case_files, check, read_case


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


@pytest.mark.parametrize(("source", "crate"), [
    (b'[package]\nname = "shop-core"\nversion = "0.1.0"\n', "shop-core"),
    (b'[dependencies]\nname = "not-this"\n\n[package] # the crate\nversion = "1"\nname = "late"\n', "late"),
    (b'[workspace]\nmembers = ["a", "b"]\n', None),
    (b'[package]\nversion = "1"\n[lib]\nname = "other"\n', None),
])
def test_cargo_toml_gives_its_package_name(source, crate):
    facts = extract("crates/core/Cargo.toml", source)
    assert (facts.module, facts.entities, facts.imports) == (crate, [], [])


def test_weird_inputs_do_not_raise():
    assert extract("e.rs", b"").entities == []
    bad_bytes = extract("b.rs", b"// \xff\xfe\nfn h() { f(\"\xc3\") }\n")
    assert [r.target for r in bad_bytes.references] == [("f",)]
    assert extract("s.rs", b"trait T { fn sig(&self); }\nfn decl();\n").entities[1:] == []  # no bodies


def test_deep_nesting_does_not_exhaust_the_stack():
    blocks = "{" * 3000 + "g()" + "}" * 3000
    modules = "mod m { " * 40 + "fn deep() {}" + " }" * 40
    facts = extract("d.rs", f"fn m() {{ {blocks} }}\n{modules}\n".encode())
    assert [r.target for r in facts.references if r.kind == RefKind.CALL] == [("g",)]
    assert [e.qualname for e in facts.entities] == ["m"]  # modules nested deeper than 32 are not read


def test_functions_nested_too_deeply_skip_the_file_with_a_reason():
    assert parse_file("n.rs", ("fn a() {\n" * 3000 + "}\n" * 3000).encode()).skipped == "nesting too deep"
    assert len(parse_file("n.rs", ("fn a() {\n" * 50 + "}\n" * 50).encode()).facts.entities) == 50


def test_deterministic():
    src = b"struct T { u: U }\nimpl T { fn m(&self) { let v = T::new(); v.m(); self.u.n(); } }\n"
    assert extract("a.rs", src) == extract("a.rs", src)
