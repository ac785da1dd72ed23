"""The JavaScript/TypeScript extractor on inline snippets: exact entities, imports, exports and references."""

from __future__ import annotations

import textwrap
import time

import pytest
from spider.indexer.languages.javascript.extract import extract
from spider.indexer.parse.facts import EXPR, SELF, SUPER, Export, FileFacts, RefKind
from spider.indexer.schema import Label

C, F = Label.CLASS, Label.FUNCTION


def run(source: str, path: str = "src/m.js") -> FileFacts:
    return extract(path, textwrap.dedent(source).lstrip("\n").encode())


def entities(facts: FileFacts) -> list[tuple]:
    return [(e.label, e.qualname, e.name, e.kind, e.start_line, e.end_line, e.parent) for e in facts.entities]


def qualnames(facts: FileFacts) -> list[str]:
    return [e.qualname for e in facts.entities]


def calls(facts: FileFacts) -> list[tuple]:
    return [(r.scope, r.target, r.line, r.arity, r.inferred) for r in facts.references if r.kind == RefKind.CALL]


def bases(facts: FileFacts) -> list[tuple]:
    return [(r.scope, r.target, r.line) for r in facts.references if r.kind == RefKind.INHERIT]


def imports(facts: FileFacts) -> list[tuple]:
    return [(i.scope, i.module, i.name, i.alias, i.line) for i in facts.imports]


# ------------------------------------------------------------------------------------------------ functions


def test_declarations_and_variables():
    facts = run("""
        function plain(a) {}
        function* gen() {}
        async function later() {}
        export const arrow = async (x) => {
          return x;
        };
        var expr = function named() {}, other = x => x * 2;
        let notAFunction = 1;
        const { a, b } = obj;
    """)
    assert entities(facts) == [
        (F, "plain", "plain", "function", 1, 1, None),
        (F, "gen", "gen", "function", 2, 2, None),
        (F, "later", "later", "function", 3, 3, None),
        (F, "arrow", "arrow", "function", 4, 6, None),
        (F, "expr", "expr", "function", 7, 7, None),
        (F, "other", "other", "function", 7, 7, None),
    ]
    assert facts.entity("arrow").code == "export const arrow = async (x) => {\n  return x;\n};\n"
    assert facts.language == "javascript" and facts.syntax_errors == 0


def test_nested_functions_have_their_parent_as_prefix():
    facts = run("""
        function outer() {
          function inner() {
            const deepest = () => {};
          }
          const cb = function () {};
        }
    """)
    assert entities(facts) == [
        (F, "outer", "outer", "function", 1, 6, None),
        (F, "outer.inner", "inner", "function", 2, 4, "outer"),
        (F, "outer.inner.deepest", "deepest", "function", 3, 3, "outer.inner"),
        (F, "outer.cb", "cb", "function", 5, 5, "outer"),
    ]


def test_object_literal_members_are_prefixed_by_the_object_variable():
    facts = run("""
        const expressions = {
          MMM: function (a) {},
          short() {},
          get size() { return 1; },
          arrow: () => 1,
          "quoted key": function () {},
          nested: { deep: { fn() {} } },
          value: 42,
        };
        register({ handler() {} });
        Foo.prototype = { bar: function () {} };
    """)
    assert entities(facts) == [
        (F, "expressions.MMM", "MMM", "function", 2, 2, None),
        (F, "expressions.short", "short", "method", 3, 3, None),
        (F, "expressions.size", "size", "method", 4, 4, None),
        (F, "expressions.arrow", "arrow", "function", 5, 5, None),
        (F, "expressions.quoted key", "quoted key", "function", 6, 6, None),
        (F, "expressions.nested.deep.fn", "fn", "method", 7, 7, None),
        (F, "handler", "handler", "method", 10, 10, None),
        (F, "Foo.prototype.bar", "bar", "function", 11, 11, None),
    ]


def test_a_handler_table_names_the_one_function_of_each_entry_after_its_key():
    # dayjs customParseFormat: `MMM: [matchWord, function (input) {...}]` (a benchmark target, iamkun__dayjs-918)
    facts = run("""
        const expressions = {
          MMM: [matchWord, function (input) {
            this.month = 1
          }],
          both: [function () {}, () => 2],
          plain: [1, 2],
        };
    """)
    assert entities(facts) == [(F, "expressions.MMM", "MMM", "function", 2, 4, None)]


def test_functions_assigned_to_members_are_named_by_the_target():
    facts = run("""
        proto.format = function (fmt) {
          return fmt;
        };
        X.prototype.m = function () {};
        plainName = () => {};
        export default (o, c) => {
          const proto = c.prototype;
          proto.tz = function (tz) {};
        };
    """)
    assert entities(facts) == [
        (F, "proto.format", "format", "function", 1, 3, None),
        (F, "X.prototype.m", "m", "function", 4, 4, None),
        (F, "plainName", "plainName", "function", 5, 5, None),
        (F, "default", "default", "function", 6, 9, None),
        (F, "default.proto.tz", "tz", "function", 8, 8, "default"),
    ]


def test_default_exports_and_iifes():
    facts = run("""
        (function () { a(); })();
        (() => { b(); })();
        !function () { c(); }();
        (function () { d(); }).call(this);
        (function () { e(); }());
        export default function () {}
    """)
    assert entities(facts) == [
        (F, "<anonymous>", "<anonymous>", "function", 1, 1, None),
        (F, "<anonymous>#2", "<anonymous>", "function", 2, 2, None),
        (F, "<anonymous>#3", "<anonymous>", "function", 3, 3, None),
        (F, "<anonymous>#4", "<anonymous>", "function", 4, 4, None),
        (F, "<anonymous>#5", "<anonymous>", "function", 5, 5, None),
        (F, "default", "default", "function", 6, 6, None),
    ]
    assert [(scope, target) for scope, target, *_ in calls(facts)] == [
        ("<anonymous>", ("a",)),
        ("<anonymous>#2", ("b",)),
        ("<anonymous>#3", ("c",)),
        ("<anonymous>#4", ("d",)),
        ("<anonymous>#5", ("e",)),
    ]


def test_block_bodied_callbacks_are_named_after_the_callee():
    facts = run("""
        utils.forEach(list, function (item) {
          item.run();
        });
        describe("suite", () => {
          it("one", () => { check(1); });
          it("two", async () => {});
          list.map(x => helper(x));
        });
        $(document).ready(function () {});
        fetch(url).then(function (r) { return r.json(); }).then(function (d) { show(d); });
        new Promise(function (resolve) { resolve(); });
    """)
    assert entities(facts) == [
        (F, "utils.forEach()", "utils.forEach()", "function", 1, 3, None),
        (F, "describe()", "describe()", "function", 4, 8, None),
        (F, "describe().it()", "it()", "function", 5, 5, "describe()"),
        (F, "describe().it()#2", "it()", "function", 6, 6, "describe()"),
        (F, "$(document).ready()", "$(document).ready()", "function", 9, 9, None),
        (F, "fetch(url).then()", "fetch(url).then()", "function", 10, 10, None),
        (F, "fetch().then().then()", "fetch().then().then()", "function", 10, 10, None),
        (F, "Promise()", "Promise()", "function", 11, 11, None),
    ]
    # the expression-bodied arrow is no entity: its call belongs to the enclosing callback
    assert ("describe()", ("helper",), 7, 1, False) in calls(facts)
    assert ("describe()", ("list", "map"), 7, 1, False) in calls(facts)


# ------------------------------------------------------------------------------------------------ classes


def test_classes_methods_accessors_and_fields():
    facts = run("""
        class Duration extends Base {
          static ZERO = () => new Duration(0);
          #secret() {}
          constructor(ms) {
            super(ms);
            super.init();
            this.#secret();
            this.helper.run();
          }
          get ms() { return this._ms; }
          set ms(v) { this._ms = v; }
          static of(x) { return new Duration(x); }
        }
        const Anon = class extends ns.Base {
          m() {}
        };
    """)
    assert entities(facts) == [
        (C, "Duration", "Duration", "class", 1, 13, None),
        (F, "Duration.ZERO", "ZERO", "method", 2, 2, "Duration"),
        (F, "Duration.#secret", "#secret", "method", 3, 3, "Duration"),
        (F, "Duration.constructor", "constructor", "constructor", 4, 9, "Duration"),
        (F, "Duration.ms", "ms", "method", 10, 10, "Duration"),
        (F, "Duration.ms#2", "ms", "method", 11, 11, "Duration"),
        (F, "Duration.of", "of", "method", 12, 12, "Duration"),
        (C, "Anon", "Anon", "class", 14, 16, None),
        (F, "Anon.m", "m", "method", 15, 15, "Anon"),
    ]
    assert bases(facts) == [("Duration", ("Base",), 1), ("Anon", ("ns", "Base"), 14)]
    assert calls(facts) == [
        ("Duration.ZERO", ("Duration",), 2, 1, False),
        ("Duration.constructor", (SUPER, "constructor"), 5, 1, False),
        ("Duration.constructor", (SUPER, "init"), 6, 0, False),
        ("Duration.constructor", (SELF, "#secret"), 7, 0, False),
        ("Duration.constructor", (SELF, "helper", "run"), 8, 0, False),
        ("Duration.of", ("Duration",), 12, 1, False),
    ]


def test_computed_member_names():
    facts = run("""
        class A {
          [Symbol.iterator]() { step(); }
        }
        const table = { [key()]: function () {} };
    """)
    assert qualnames(facts) == ["A", "A.[Symbol.iterator]", "table.[key()]"]
    assert calls(facts) == [("A.[Symbol.iterator]", ("step",), 2, 0, False), (None, ("key",), 4, 0, False)]


def test_js_decorators_are_in_the_span():
    facts = run("""
        @register
        class Widget {
          @observable
          count = () => {};
          @action
          bump() {}
        }
    """)
    assert entities(facts) == [
        (C, "Widget", "Widget", "class", 1, 7, None),
        (F, "Widget.count", "count", "method", 3, 4, "Widget"),
        (F, "Widget.bump", "bump", "method", 5, 6, "Widget"),
    ]


# ------------------------------------------------------------------------------------------------ imports


def test_esm_imports():
    facts = run("""
        import d from "./m";
        import { a as b, c } from "./named";
        import * as ns from "pkg";
        import "./side-effect";
        import e, { default as f } from "./both";
        function later() { return import("./lazy"); }
    """)
    assert imports(facts) == [
        (None, "./m", "default", "d", 1),
        (None, "./named", "a", "b", 2),
        (None, "./named", "c", "c", 2),
        (None, "pkg", None, "ns", 3),
        (None, "./side-effect", None, "", 4),
        (None, "./both", "default", "e", 5),
        (None, "./both", "default", "f", 5),
        ("later", "./lazy", None, "", 6),
    ]
    assert calls(facts) == []  # import() is no call


def test_commonjs_imports():
    facts = run("""
        const x = require("./m");
        const { a, b: c, d = 1 } = require("./destructured");
        const member = require("./lib").helper;
        require("./bare");
        function inside() {
          var y = require("y");
          y.go();
        }
    """)
    assert imports(facts) == [
        (None, "./m", None, "x", 1),
        (None, "./destructured", "a", "a", 2),
        (None, "./destructured", "b", "c", 2),
        (None, "./destructured", "d", "d", 2),
        (None, "./lib", "helper", "member", 3),
        (None, "./bare", None, "", 4),
        ("inside", "y", None, "y", 6),
    ]
    assert calls(facts) == [("inside", ("y", "go"), 7, 0, False)]


# ------------------------------------------------------------------------------------------------ exports


def test_esm_exports():
    facts = run("""
        export function f() {}
        export class K {}
        export const g = () => {}, n = 1;
        export { a as b, c };
        export { x as y } from "./m";
        export * from "./all";
        export * as ns from "./ns";
        export default f;
    """)
    assert facts.exports == [
        Export("f", local="f"),
        Export("K", local="K"),
        Export("g", local="g"),
        Export("n", local="n"),
        Export("b", local="a"),
        Export("c", local="c"),
        Export("y", module="./m", imported="x"),
        Export("*", module="./all", imported="*"),
        Export("ns", module="./ns", imported=None),
        Export("default", local="f"),
    ]


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


def test_commonjs_exports():
    facts = run("""
        function foo() {}
        exports.one = function () {};
        module.exports.two = () => {};
        exports.three = foo;
        exports.four = 4;
        module.exports = { foo, bar: baz, qux() {} };
    """)
    assert qualnames(facts) == ["foo", "exports.one", "module.exports.two", "module.exports.qux"]
    assert facts.entity("exports.one").name == "one"
    assert facts.exports == [
        Export("one", local="exports.one"),
        Export("two", local="module.exports.two"),
        Export("three", local="foo"),
        Export("four"),
        Export("foo", local="foo"),
        Export("bar", local="baz"),
        Export("qux", local="module.exports.qux"),
    ]


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


def test_export_local_points_at_the_claimed_qualname():
    facts = run("""
        function f() {}
        if (x) { function f() {} }
        export { f };
        export default function () {}
    """)
    assert qualnames(facts) == ["f", "f#2", "default"]
    assert facts.exports == [Export("f", local="f"), Export("default", local="default")]


# ------------------------------------------------------------------------------------------------ calls


def test_call_references():
    facts = run("""
        top(1);
        function caller(p) {
          f(x);
          a.b.c(1, 2, ...rest);
          a?.b(c);
          new X(a);
          new ns.Y;
          g()(h);
          make().then(z);
          arr[0].go();
          (cond ? one : two)();
          const made = new Foo();
          made.bar();
          made.baz.qux();
          fresh.bar();
        }
        function other() { made.bar(); }
    """)
    assert calls(facts) == [
        (None, ("top",), 1, 1, False),
        ("caller", ("f",), 3, 1, False),
        ("caller", ("a", "b", "c"), 4, 3, False),
        ("caller", ("a", "b"), 5, 1, False),
        ("caller", ("X",), 6, 1, False),
        ("caller", ("ns", "Y"), 7, 0, False),
        ("caller", ("g",), 8, 0, False),
        ("caller", (EXPR, "then"), 9, 1, False),
        ("caller", ("make",), 9, 0, False),
        ("caller", (EXPR, "go"), 10, 0, False),
        ("caller", ("Foo",), 12, 0, False),
        ("caller", ("Foo", "bar"), 13, 0, True),
        ("caller", ("Foo", "baz", "qux"), 14, 0, True),
        ("caller", ("fresh", "bar"), 15, 0, False),
        ("other", ("made", "bar"), 17, 0, False),
    ]


def test_reassignment_forgets_the_inferred_type():
    facts = run("""
        function f() {
          let x = new A();
          x.one();
          x = build();
          x.two();
          x = new B();
          x.three();
        }
    """)
    assert [(t, inferred) for _, t, _, _, inferred in calls(facts)] == [
        (("A",), False),
        (("A", "one"), True),
        (("build",), False),
        (("x", "two"), False),
        (("B",), False),
        (("B", "three"), True),
    ]


# ------------------------------------------------------------------------------------------------ TypeScript


def test_typescript_classes_interfaces_enums_and_bodiless_declarations():
    facts = run(
        """
        export abstract class Shape<T> extends ns.Base<T> implements Drawable<T>, Sized {
          abstract area(): number;
          over(a: string): void;
          over(a: any): void {}
          describe() { return this.area(); }
        }
        export interface Drawable<T> extends Paintable<T>, ns.Visible {
          draw(): void;
        }
        enum Color { Red, Green }
        declare function ambient(): void;
        function overloaded(a: string): void;
        function overloaded(a: any) {}
        type Alias = { m(): void };
        """,
        path="src/shape.ts",
    )
    assert entities(facts) == [
        (C, "Shape", "Shape", "class", 1, 6, None),
        (F, "Shape.over", "over", "method", 4, 4, "Shape"),
        (F, "Shape.describe", "describe", "method", 5, 5, "Shape"),
        (C, "Drawable", "Drawable", "interface", 7, 9, None),
        (C, "Color", "Color", "enum", 10, 10, None),
        (F, "overloaded", "overloaded", "function", 13, 13, None),
    ]
    assert bases(facts) == [
        ("Shape", ("ns", "Base"), 1),
        ("Shape", ("Drawable",), 1),
        ("Shape", ("Sized",), 1),
        ("Drawable", ("Paintable",), 7),
        ("Drawable", ("ns", "Visible"), 7),
    ]
    assert facts.language == "typescript" and facts.syntax_errors == 0


def test_typescript_namespaces_prefix_qualnames():
    facts = run(
        """
        namespace NS {
          export function f() {}
          export namespace Inner.Deep {
            export class K { m() {} }
          }
        }
        declare module "augmented" {
          interface Request { user: string }
        }
        module Legacy { function g() {} }
        """,
        path="src/ns.ts",
    )
    assert entities(facts) == [
        (F, "NS.f", "f", "function", 2, 2, None),
        (C, "NS.Inner.Deep.K", "K", "class", 4, 4, None),
        (F, "NS.Inner.Deep.K.m", "m", "method", 4, 4, "NS.Inner.Deep.K"),
        (C, "Request", "Request", "interface", 8, 8, None),
        (F, "Legacy.g", "g", "function", 10, 10, None),
    ]
    assert facts.exports == []  # exports inside a namespace are not the module's


def test_typescript_imports_and_exports():
    facts = run(
        """
        import type { Base } from "./base";
        import { type Other, value } from "./mixed";
        import fs = require("fs");
        import Default from "./d";
        export type { Base };
        class Impl extends Base {}
        export = Impl;
        """,
        path="src/m.mts",
    )
    assert imports(facts) == [
        (None, "./base", "Base", "Base", 1),
        (None, "./mixed", "Other", "Other", 2),
        (None, "./mixed", "value", "value", 2),
        (None, "fs", None, "fs", 3),
        (None, "./d", "default", "Default", 4),
    ]
    assert facts.exports == [Export("Base", local="Base"), Export("default", local="Impl")]
    assert bases(facts) == [("Impl", ("Base",), 6)]


def test_typescript_declared_types_resolve_receivers():
    facts = run(
        """
        class Service {
          private repo: Repo;
          constructor(private readonly http: Http, plain: Plain) {}
          load(id: string, cache?: ns.Cache<Item>) {
            this.repo.find(id);
            this.http.get(id);
            this.plain.x();
            cache.get(id);
            const parser: Parser = pick();
            parser.parse();
            const guess = new Guess();
            guess.run();
            id.trim();
          }
        }
        """,
        path="src/service.ts",
    )
    assert calls(facts) == [
        ("Service.load", ("Repo", "find"), 5, 1, False),
        ("Service.load", ("Http", "get"), 6, 1, False),
        ("Service.load", (SELF, "plain", "x"), 7, 0, False),
        ("Service.load", ("ns", "Cache", "get"), 8, 1, False),
        ("Service.load", ("pick",), 9, 0, False),
        ("Service.load", ("Parser", "parse"), 10, 0, False),
        ("Service.load", ("Guess",), 11, 0, False),
        ("Service.load", ("Guess", "run"), 12, 0, True),
        ("Service.load", ("id", "trim"), 13, 0, False),
    ]


def test_typescript_decorators_extend_spans():
    facts = run(
        """
        @Component({ selector: "x" })
        export class Widget {
          @Input()
          name: string;

          @HostListener("click")
          @Log
          onClick(): void {}

          @Output()
          handler = () => {};
        }
        """,
        path="src/widget.ts",
    )
    assert entities(facts) == [
        (C, "Widget", "Widget", "class", 1, 12, None),
        (F, "Widget.onClick", "onClick", "method", 6, 8, "Widget"),
        (F, "Widget.handler", "handler", "method", 10, 11, "Widget"),
    ]
    assert calls(facts) == [
        ("Widget", ("Component",), 1, 1, False),
        ("Widget", ("Input",), 3, 0, False),
        ("Widget.onClick", ("HostListener",), 6, 1, False),
        ("Widget.onClick", ("Log",), 7, 1, False),
        ("Widget.handler", ("Output",), 10, 0, False),
    ]


def test_tsx_uses_the_tsx_grammar():
    source = """
        import React from "react";
        export function App<T,>({ items }: Props<T>) {
          const onClick = useCallback(() => { setOpen(true); }, []);
          return <ul onClick={() => track("x")}>{items.map(i => <Item key={i} />)}</ul>;
        }
        export default () => <App items={[]} />;
    """
    facts = run(source, path="src/App.tsx")
    assert facts.syntax_errors == 0 and facts.language == "typescript"
    assert entities(facts) == [
        (F, "App", "App", "function", 2, 5, None),
        (F, "App.useCallback()", "useCallback()", "function", 3, 3, "App"),  # a block-bodied callback
        (F, "default", "default", "function", 6, 6, None),
    ]
    assert calls(facts) == [
        ("App", ("useCallback",), 3, 2, False),
        ("App.useCallback()", ("setOpen",), 3, 1, False),
        ("App", ("track",), 4, 1, False),
        ("App", ("items", "map"), 4, 1, False),
    ]
    assert facts.exports == [Export("App", local="App"), Export("default", local="default")]
    assert run(source, path="src/App.ts").syntax_errors > 0  # JSX is not TypeScript: the grammar matters


def test_declaration_files_have_no_functions():
    facts = run(
        """
        export declare function f(a: string): void;
        export declare class C extends B {
          m(): void;
        }
        export interface I { x(): void }
        declare namespace N { function g(): void; }
        """,
        path="types/index.d.ts",
    )
    assert entities(facts) == [
        (C, "C", "C", "class", 2, 4, None),
        (C, "I", "I", "interface", 5, 5, None),
    ]
    assert facts.exports == [Export("f", local="f"), Export("C", local="C"), Export("I", local="I")]
    assert bases(facts) == [("C", ("B",), 2)]


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


def test_jsx_in_js_files():
    facts = run("export const View = () => { return <div onClick={go}>{render()}</div>; };", path="v.jsx")
    assert facts.syntax_errors == 0
    assert qualnames(facts) == ["View"]
    assert calls(facts) == [("View", ("render",), 1, 0, False)]


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
