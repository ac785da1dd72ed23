"""The JavaScript/TypeScript extractor: the annotated cases in indexer/languages/javascript/cases/ (exact entities,
imports, exports and references), one-line forms as tables, and the robustness checks a case file cannot hold."""

from __future__ import annotations

import textwrap
import time

import pytest
from spider.indexer.languages.javascript.extract import extract
from spider.indexer.parse.facts import Export, FileFacts, RefKind

from tests.unit.indexer.languages.annotated import case_files, cases_folder, check, read_case

CASES = cases_folder(__file__)


def run(source: str, path: str = "src/m.js") -> FileFacts:
    return extract(path, textwrap.dedent(source).lstrip("\n").encode())


def qualnames(facts: FileFacts) -> list[str]:
    return [e.qualname for e in facts.entities]


def calls(facts: FileFacts) -> list[tuple]:
    return [(r.scope, r.target, r.line, r.arity, r.inferred) for r in facts.references if r.kind == RefKind.CALL]


@pytest.mark.parametrize("path", case_files(__file__), ids=lambda path: path.name)
def test_annotated_case(path):
    check(read_case(path), extract)


def test_tsx_source_is_no_typescript():
    """JSX is not TypeScript: the grammar matters."""
    assert extract("src/App.ts", read_case(CASES / "tsx_grammar.tsx").source).syntax_errors > 0


# ------------------------------------------------------------------------------------------------ one-line forms


@pytest.mark.parametrize(
    ("source", "qualnames_", "exports"),
    [
        ("export default function () {}", ["default"], [Export("default", local="default")]),
        ("export default () => {};", ["default"], [Export("default", local="default")]),
        ("export default class {}", ["default"], [Export("default", local="default")]),
        ("export default function named() {}", ["named"], [Export("default", local="named")]),
        ("export default { m() {} };", ["default.m"], [Export("default"), Export("m", local="default.m")]),
        (
            "function f() {}\nconst g = 1;\nexport default { f, h: g, k: () => {} };",
            ["f", "default.k"],
            [Export("default"), Export("f", local="f"), Export("h", local="g"), Export("k", local="default.k")],
        ),
    ],
)
def test_default_export_forms(source, qualnames_, exports):
    facts = run(source)
    assert qualnames(facts) == qualnames_
    assert facts.exports == exports


@pytest.mark.parametrize(
    ("source", "qualnames_", "exports"),
    [
        ("module.exports = Thing;", [], [Export("default", local="Thing")]),
        ("module.exports = function () {};", ["module.exports"], [Export("default", local="module.exports")]),
        ("module.exports = class {};", ["module.exports"], [Export("default", local="module.exports")]),
        ("module.exports = require('./impl');", [], [Export("*", module="./impl", imported="*")]),
        (
            "(function () { function f() {} module.exports = f; })();",
            ["<anonymous>", "<anonymous>.f"],
            [Export("default", local="<anonymous>.f")],
        ),
    ],
)
def test_module_exports_forms(source, qualnames_, exports):
    facts = run(source)
    assert qualnames(facts) == qualnames_
    assert facts.exports == exports


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a.js", "javascript"),
        ("a.jsx", "javascript"),
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("a.ts", "typescript"),
        ("a.tsx", "typescript"),
        ("a.mts", "typescript"),
        ("a.cts", "typescript"),
        ("a.d.ts", "typescript"),
    ],
)
def test_language_by_extension(path, language):
    assert extract(path, b"const x = 1;").language == language


# ------------------------------------------------------------------------------------------------ robustness


def test_syntax_errors_are_counted_and_the_rest_is_extracted():
    facts = run("""
        function ok() { a(); }
        function broken( { b(;
        class K { m() { c(); } }
    """)
    assert facts.syntax_errors == 2
    assert qualnames(facts) == ["ok", "K", "K.m"]
    assert calls(facts) == [("ok", ("a",), 1, 0, False), ("K.m", ("c",), 3, 0, False)]


@pytest.mark.parametrize(
    "source", [b"", b"\xff\xfe\x00 function \xc3( q() {", b"}}}{{{", b"class", b"export default", b"=>" * 1000]
)
def test_weird_input_never_raises(source):
    facts = extract("weird.ts", source)
    assert len(set(qualnames(facts))) == len(facts.entities)


def test_every_prefix_of_a_file_extracts():
    source = textwrap.dedent("""
        import a from "./a"; const b = require("b");
        export default class K extends a.B { constructor() { super(); } m() { this.n(x => { go(); }); } }
        module.exports = { f: function () {}, g() {} }; exports.h = () => {};
        namespace N { export function f() {} } (function () {})();
    """).encode()
    for end in range(0, len(source), 7):
        facts = extract("p.ts", source[:end])
        assert len(set(qualnames(facts))) == len(facts.entities)
        assert all(1 <= e.start_line <= e.end_line for e in facts.entities)


def test_deep_nesting_does_not_recurse():
    source = ("x = " + "+".join(["a"] * 50_000) + "; y = " + "[" * 3000 + "]" * 3000 + ";").encode()
    facts = extract("deep.js", source)
    assert facts.entities == [] and facts.syntax_errors == 0


def test_minified_one_line_file_stays_linear():
    chunk = (
        "function f{i}(a,b){{var c=new C(a);c.m(b);return a.x.y(b,function(q){{return q}})}}"
        "var o{i}={{a:function(){{return this.b(1)}},b(c){{return g(c)}}}};"
        "u.forEach(l,function(e,t){{r[t]=e}});"
    )
    source = "".join(chunk.format(i=i) for i in range(2000)).encode()  # ~330 KB, one line
    started = time.perf_counter()
    facts = extract("min.js", source)
    elapsed = time.perf_counter() - started
    assert len(facts.entities) == 2000 * 5
    assert {e.start_line for e in facts.entities} == {1}
    assert elapsed < 10
