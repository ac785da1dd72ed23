"""The Java extractor: entities, spans, imports, calls (with declared receiver types) and base types, exactly."""

from __future__ import annotations

import textwrap

from spider.indexer.languages.java.extract import extract
from spider.indexer.parse.facts import SELF, SUPER, Import, RefKind
from spider.indexer.schema import Label


def run(src: str):
    return extract("src/A.java", textwrap.dedent(src).lstrip("\n").encode())


def entities(facts):
    return [(e.label, e.qualname, e.name, e.kind, e.start_line, e.end_line, e.parent) for e in facts.entities]


def calls(facts, scope=None):
    """(scope, target, line, arity, inferred) of every CALL, optionally of one scope only."""
    return [
        (r.scope, r.target, r.line, r.arity, r.inferred)
        for r in facts.references
        if r.kind == RefKind.CALL and (scope is None or r.scope == scope)
    ]


def targets(facts, scope):
    return [r.target for r in facts.references if r.kind == RefKind.CALL and r.scope == scope]


def inherits(facts):
    return [(r.scope, r.target, r.line) for r in facts.references if r.kind == RefKind.INHERIT]


C, F = Label.CLASS, Label.FUNCTION


# ---------------------------------------------------------------------------------------------- package/imports
def test_package_and_the_four_import_forms():
    facts = run(
        """
        package com.acme.util;

        import a.b.C;
        import a.b.*;
        import static a.b.C.m;
        import static a.b.C.*;
        import  java . util . List ;
        """
    )
    assert facts.package == "com.acme.util"
    assert facts.language == "java"
    assert facts.path == "src/A.java"
    assert facts.imports == [
        Import(None, "a.b", "C", "C", 3),
        Import(None, "a.b", "*", "", 4),
        Import(None, "a.b.C", "m", "m", 5),
        Import(None, "a.b.C", "*", "", 6),
        Import(None, "java.util", "List", "List", 7),
    ]
    assert facts.entities == [] and facts.references == [] and facts.exports == []
    assert facts.syntax_errors == 0


def test_no_package():
    facts = run("class A {}")
    assert facts.package is None
    assert entities(facts) == [(C, "A", "A", "class", 1, 1, None)]


# ---------------------------------------------------------------------------------------------- entities
def test_class_methods_constructors_overloads_and_spans():
    facts = run(
        """
        package p;

        /**
         * Javadoc is not part of the span.
         */
        @Deprecated
        @SuppressWarnings("x")
        public class XmlFactory extends Base {
            /** ctor doc */
            public XmlFactory() {
                this(1);
            }

            XmlFactory(int a) { super(a); }

            @Override
            public void m() {}

            void m(int a) {}

            void m(int a, int b) {}

            abstract int n();
        }
        """
    )
    assert entities(facts) == [
        (C, "XmlFactory", "XmlFactory", "class", 6, 24, None),
        (F, "XmlFactory.XmlFactory", "XmlFactory", "constructor", 10, 12, "XmlFactory"),
        (F, "XmlFactory.XmlFactory#2", "XmlFactory", "constructor", 14, 14, "XmlFactory"),
        (F, "XmlFactory.m", "m", "method", 16, 17, "XmlFactory"),
        (F, "XmlFactory.m#2", "m", "method", 19, 19, "XmlFactory"),
        (F, "XmlFactory.m#3", "m", "method", 21, 21, "XmlFactory"),
        (F, "XmlFactory.n", "n", "method", 23, 23, "XmlFactory"),
    ]
    cls = facts.entity("XmlFactory")
    assert cls.code.startswith("@Deprecated\n@SuppressWarnings")
    assert cls.code.endswith("}\n")
    assert facts.entity("XmlFactory.m").code == "    @Override\n    public void m() {}\n"
    assert facts.entity("XmlFactory.XmlFactory").code == (
        "    public XmlFactory() {\n        this(1);\n    }\n"
    )
    assert calls(facts) == [
        ("XmlFactory.XmlFactory", (SELF, "XmlFactory"), 11, 1, False),
        ("XmlFactory.XmlFactory#2", (SUPER, "Base"), 14, 1, False),
    ]


def test_nested_inner_local_and_anonymous_classes():
    facts = run(
        """
        class Outer {
            static class Nested {
                class Inner { void f() {} }
            }
            void m() {
                class Local {}
                Runnable r = new Runnable() {
                    public void run() { go(); }
                };
                Object o = new java.util.ArrayList<String>(3) {};
                Object p = new Runnable() { public void run() {} };
            }
        }
        """
    )
    assert entities(facts) == [
        (C, "Outer", "Outer", "class", 1, 13, None),
        (C, "Outer.Nested", "Nested", "class", 2, 4, "Outer"),
        (C, "Outer.Nested.Inner", "Inner", "class", 3, 3, "Outer.Nested"),
        (F, "Outer.Nested.Inner.f", "f", "method", 3, 3, "Outer.Nested.Inner"),
        (F, "Outer.m", "m", "method", 5, 12, "Outer"),
        (C, "Outer.m.Local", "Local", "class", 6, 6, "Outer.m"),
        (C, "Outer.m.<new Runnable>", "<new Runnable>", "class", 7, 9, "Outer.m"),
        (F, "Outer.m.<new Runnable>.run", "run", "method", 8, 8, "Outer.m.<new Runnable>"),
        (C, "Outer.m.<new ArrayList>", "<new ArrayList>", "class", 10, 10, "Outer.m"),
        (C, "Outer.m.<new Runnable>#2", "<new Runnable>", "class", 11, 11, "Outer.m"),
        (F, "Outer.m.<new Runnable>#2.run", "run", "method", 11, 11, "Outer.m.<new Runnable>#2"),
    ]
    assert calls(facts) == [
        ("Outer.m", ("Runnable",), 7, 0, False),
        ("Outer.m.<new Runnable>.run", ("go",), 8, 0, False),
        ("Outer.m", ("java", "util", "ArrayList"), 10, 1, False),
        ("Outer.m", ("Runnable",), 11, 0, False),
    ]
    assert inherits(facts) == [
        ("Outer.m.<new Runnable>", ("Runnable",), 7),
        ("Outer.m.<new ArrayList>", ("java", "util", "ArrayList"), 10),
        ("Outer.m.<new Runnable>#2", ("Runnable",), 11),
    ]


def test_anonymous_class_in_field_initialiser_belongs_to_the_class():
    facts = run("class A {\n  Runnable r = new Runnable() { public void run() {} };\n}\n")
    assert entities(facts) == [
        (C, "A", "A", "class", 1, 3, None),
        (C, "A.<new Runnable>", "<new Runnable>", "class", 2, 2, "A"),
        (F, "A.<new Runnable>.run", "run", "method", 2, 2, "A.<new Runnable>"),
    ]
    assert calls(facts) == [("A", ("Runnable",), 2, 0, False)]


def test_enum_with_constant_bodies_constructor_and_arguments():
    facts = run(
        """
        enum Op implements IntOp {
            PLUS(1) {
                int apply(int a) { return a; }
            },
            MINUS(2, make()),
            TIMES;
            private final int code;
            Op(int code) { this.code = code; }
            Op() { this(0); }
            abstract int apply(int a);
        }
        """
    )
    assert entities(facts) == [
        (C, "Op", "Op", "enum", 1, 11, None),
        (C, "Op.PLUS", "PLUS", "class", 2, 4, "Op"),
        (F, "Op.PLUS.apply", "apply", "method", 3, 3, "Op.PLUS"),
        (F, "Op.Op", "Op", "constructor", 8, 8, "Op"),
        (F, "Op.Op#2", "Op", "constructor", 9, 9, "Op"),
        (F, "Op.apply", "apply", "method", 10, 10, "Op"),
    ]
    assert calls(facts) == [("Op", ("make",), 5, 0, False), ("Op.Op#2", (SELF, "Op"), 9, 1, False)]
    assert inherits(facts) == [("Op", ("IntOp",), 1), ("Op.PLUS", ("Op",), 2)]


def test_interface_annotation_type_and_record():
    facts = run(
        """
        public interface Shape<T> extends Comparable<Shape<T>>, java.io.Serializable {
            double area();
            default String name() { return describe(this); }
            static Shape<?> unit() { return null; }
        }
        @Retention(RUNTIME)
        @interface Marker {
            int value() default 1;
            String[] tags();
        }
        record Point(int x, int y) implements Shape<Point> {
            Point {
                check(x);
            }
            Point(int v) { this(v, v); }
            public double area() { return 0; }
        }
        """
    )
    assert entities(facts) == [
        (C, "Shape", "Shape", "interface", 1, 5, None),
        (F, "Shape.area", "area", "method", 2, 2, "Shape"),
        (F, "Shape.name", "name", "method", 3, 3, "Shape"),
        (F, "Shape.unit", "unit", "method", 4, 4, "Shape"),
        (C, "Marker", "Marker", "annotation", 6, 10, None),
        (F, "Marker.value", "value", "method", 8, 8, "Marker"),
        (F, "Marker.tags", "tags", "method", 9, 9, "Marker"),
        (C, "Point", "Point", "record", 11, 17, None),
        (F, "Point.Point", "Point", "constructor", 12, 14, "Point"),
        (F, "Point.Point#2", "Point", "constructor", 15, 15, "Point"),
        (F, "Point.area", "area", "method", 16, 16, "Point"),
    ]
    assert inherits(facts) == [
        ("Shape", ("Comparable",), 1),
        ("Shape", ("java", "io", "Serializable"), 1),
        ("Point", ("Shape",), 11),
    ]
    assert calls(facts) == [
        ("Shape.name", ("describe",), 3, 1, False),
        ("Point.Point", ("check",), 13, 1, False),
        ("Point.Point#2", (SELF, "Point"), 15, 2, False),
    ]


def test_class_and_method_with_the_same_name_get_distinct_qualnames():
    facts = run("class A {\n  void B() {}\n  class B {}\n}\n")
    assert [e.qualname for e in facts.entities] == ["A", "A.B", "A.B#2"]
    assert [e.kind for e in facts.entities] == ["class", "method", "class"]


# ---------------------------------------------------------------------------------------------- inheritance
def test_inheritance_references_strip_generics_and_keep_qualification():
    facts = run(
        """
        class A<T> extends com.acme.Base<T, String> implements I<T>, Map.Entry<K, V> {}
        class B {}
        interface J extends K<String>, L {}
        enum E implements X {}
        """
    )
    assert inherits(facts) == [
        ("A", ("com", "acme", "Base"), 1),
        ("A", ("I",), 1),
        ("A", ("Map", "Entry"), 1),
        ("J", ("K",), 3),
        ("J", ("L",), 3),
        ("E", ("X",), 4),
    ]


def test_super_constructor_call_without_extends_is_not_emitted():
    facts = run("class A {\n  A() { super(); }\n  A(int x) { this(); }\n}\n")
    assert calls(facts) == [("A.A#2", (SELF, "A"), 3, 0, False)]


# ---------------------------------------------------------------------------------------------- calls
def test_call_forms():
    facts = run(
        """
        class A extends B {
            void m(int x) {
                foo(x);
                this.foo();
                super.foo(1, 2);
                Foo.bar();
                a.b.C.bar();
                Collections.<String>emptyList();
                getX().bar();
                arr[0].bar();
                new Foo(a, b);
                new a.b.Foo<T>();
                Outer.this.foo();
                Iface.super.foo();
                undeclared.bar(x);
                System.out.println("hi");
                foo(
                    bar(),
                    baz(qux()));
                items.forEach(item -> handle(item));
            }
        }
        """
    )
    assert calls(facts, "A.m") == [
        ("A.m", ("foo",), 3, 1, False),
        ("A.m", (SELF, "foo"), 4, 0, False),
        ("A.m", (SUPER, "foo"), 5, 2, False),
        ("A.m", ("Foo", "bar"), 6, 0, False),
        ("A.m", ("a", "b", "C", "bar"), 7, 0, False),
        ("A.m", ("Collections", "emptyList"), 8, 0, False),
        ("A.m", ("getX",), 9, 0, False),  # `.bar()` on a call's result: skipped
        ("A.m", ("Foo",), 11, 2, False),  # `arr[0].bar()`: skipped
        ("A.m", ("a", "b", "Foo"), 12, 0, False),
        ("A.m", ("Outer", "foo"), 13, 0, False),
        ("A.m", ("Iface", "foo"), 14, 0, False),
        ("A.m", ("undeclared", "bar"), 15, 1, False),
        ("A.m", ("System", "out", "println"), 16, 1, False),
        ("A.m", ("foo",), 17, 2, False),
        ("A.m", ("bar",), 18, 0, False),
        ("A.m", ("baz",), 19, 1, False),
        ("A.m", ("qux",), 19, 0, False),
        ("A.m", ("items", "forEach"), 20, 1, False),
        ("A.m", ("handle",), 20, 1, False),  # lambdas are not entities: their calls belong to the method
    ]
    assert [e.qualname for e in facts.entities] == ["A", "A.m"]


def test_method_references():
    facts = run(
        """
        class A {
            Runnable f;
            void m(Helper h) {
                use(Foo::bar);
                use(this::bar);
                use(super::bar);
                use(java.util.List::of);
                use(Foo::new);
                use(List<String>::size);
                use(int[]::new);
                use(h::help);
                use(getX()::y);
            }
        }
        """
    )
    assert [t for t in targets(facts, "A.m") if t != ("use",)] == [
        ("Foo", "bar"),
        (SELF, "bar"),
        (SUPER, "bar"),
        ("java", "util", "List", "of"),
        ("Foo",),
        ("List", "size"),
        ("Helper", "help"),
        ("getX",),
    ]
    assert {r.arity for r in facts.references if r.target[0] != "use" and r.target != ("getX",)} == {None}


def test_calls_in_field_initialisers_and_initialiser_blocks_belong_to_the_class():
    facts = run(
        """
        class A {
            static final Logger LOG = Logger.get(A.class);
            private final List<String> xs = new ArrayList<>();
            static { init(); }
            { setup(); }
            void m() { run(); }
        }
        """
    )
    assert calls(facts) == [
        ("A", ("Logger", "get"), 2, 1, False),
        ("A", ("ArrayList",), 3, 0, False),
        ("A", ("init",), 4, 0, False),
        ("A", ("setup",), 5, 0, False),
        ("A.m", ("run",), 6, 0, False),
    ]


# ---------------------------------------------------------------------------------------------- receiver types
def test_declared_receiver_types():
    facts = run(
        """
        class A {
            private final Map<String, List<Integer>> cache;
            Service service;
            Helper shadowed;
            void m(final Parser p, Writer[] ws, String... rest) {
                Reader r = open();
                var w = new java.io.StringWriter();
                var unknown = make();
                var cast = (Config) lookup();
                p.parse();
                r.read();
                w.flush();
                unknown.go();
                cast.load();
                cache.get("k");
                service.call();
                this.service.call();
                this.missing.call();
                ws.clone();
                rest.length();
                Other shadowed = null;
                shadowed.run();
                new Builder().build();
                ((Config) o).load();
            }
        }
        """
    )
    assert [(t, line) for _, t, line, _, _ in calls(facts, "A.m")] == [
        (("open",), 6),
        (("java", "io", "StringWriter"), 7),
        (("make",), 8),
        (("lookup",), 9),
        (("Parser", "parse"), 10),
        (("Reader", "read"), 11),
        (("java", "io", "StringWriter", "flush"), 12),
        (("unknown", "go"), 13),
        (("Config", "load"), 14),
        (("Map", "get"), 15),
        (("Service", "call"), 16),
        (("Service", "call"), 17),
        ((SELF, "missing", "call"), 18),  # no declared field: as written, for the resolver to guess
        (("Writer", "clone"), 19),
        (("String", "length"), 20),
        (("Other", "run"), 22),  # the local shadows the field
        (("Builder", "build"), 23),
        (("Builder",), 23),
        (("Config", "load"), 24),
    ]
    assert all(not inferred for *_, inferred in calls(facts))


def test_receiver_scoping_blocks_lambdas_loops_catch_resources_patterns():
    facts = run(
        """
        class A {
            Field x;
            void m(Object o) {
                {
                    Local x = null;
                    x.a();
                }
                x.b();
                for (Item x : items) { x.c(); }
                for (Counter x = null; ; ) { x.d(); }
                x.e();
                list.forEach(x -> x.f());
                list.forEach((Typed x) -> x.g());
                try (Res x = open()) { x.h(); } catch (IOException | Other x) { x.i(); } catch (Boom x) { x.j(); }
                if (o instanceof Shape s) { s.k(); }
                switch (o) { case Circle c -> c.l(); default -> {} }
                x.z();
            }
        }
        """
    )
    assert [t for t in targets(facts, "A.m") if t[-1] not in ("forEach", "open")] == [
        ("Local", "a"),
        ("Field", "b"),
        ("Item", "c"),
        ("Counter", "d"),
        ("Field", "e"),
        ("x", "f"),  # an untyped lambda parameter shadows the field: unknown receiver, as written
        ("Typed", "g"),
        ("Res", "h"),
        ("x", "i"),  # a multi-catch parameter has no single type
        ("Boom", "j"),
        ("Shape", "k"),
        ("Circle", "l"),
        ("Field", "z"),
    ]


def test_fields_of_enclosing_classes_reach_inner_and_anonymous_classes():
    facts = run(
        """
        class Outer {
            Engine engine;
            class Inner {
                Wheel wheel;
                void f() { engine.start(); wheel.spin(); }
            }
            void m(Driver d) {
                new Runnable() {
                    public void run() { d.drive(); engine.stop(); }
                };
            }
        }
        """
    )
    assert targets(facts, "Outer.Inner.f") == [("Engine", "start"), ("Wheel", "spin")]
    assert targets(facts, "Outer.m.<new Runnable>.run") == [("Driver", "drive"), ("Engine", "stop")]


def test_record_components_interface_constants_and_enum_constants_are_typed():
    facts = run(
        """
        record R(Name name) { String s() { return name.text(); } }
        interface I { Registry REG = Registry.create(); default void d() { REG.add(); } }
        enum E { ONE; void f() { ONE.g(); } void g() {} }
        """
    )
    assert targets(facts, "R.s") == [("Name", "text")]
    assert targets(facts, "I") == [("Registry", "create")]
    assert targets(facts, "I.d") == [("Registry", "add")]
    assert targets(facts, "E.f") == [("E", "g")]


# ---------------------------------------------------------------------------------------------- robustness
def test_syntax_error_still_yields_the_good_parts():
    facts = run(
        """
        class Bad {
            void ok() { a(); }
            void broken( { b(); }
            void after() { c(); }
        }
        """
    )
    assert facts.syntax_errors > 0
    assert [e.qualname for e in facts.entities] == ["Bad", "Bad.ok", "Bad.broken", "Bad.after"]
    assert ("Bad.ok", ("a",), 2, 0, False) in calls(facts)
    assert ("Bad.after", ("c",), 4, 0, False) in calls(facts)


def test_weird_inputs_do_not_raise():
    assert extract("e.java", b"").entities == []
    only_comments = extract("c.java", b"// hi\n/* there */\n")
    assert (only_comments.entities, only_comments.references, only_comments.syntax_errors) == ([], [], 0)
    bad_bytes = extract("b.java", b"class \xff\xfeA { void m() { f(\"\xc3\"); } }")
    assert [e.kind for e in bad_bytes.entities] == ["class", "method"]
    assert [r.target for r in bad_bytes.references] == [("f",)]


def test_deep_nesting_does_not_exhaust_the_stack():
    concat = " + ".join(f"f{i}()" for i in range(5000))
    blocks = "{" * 2000 + "g();" + "}" * 2000
    facts = extract("d.java", f"class A {{ void m() {{ String s = {concat}; {blocks} }} }}".encode())
    assert len(targets(facts, "A.m")) == 5001
    assert targets(facts, "A.m")[-1] == ("g",)


def test_deterministic():
    src = b"class A { void m() { new B() { void x() { y(); } }; z(); } }"
    assert extract("a.java", src) == extract("a.java", src)
