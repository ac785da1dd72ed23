"""Python extractor on small snippets: ids, spans, kinds, parents, imports, references."""

from __future__ import annotations

from spider.indexer.languages.python.extract import extract
from spider.indexer.parse.facts import SELF, SUPER, Import, RefKind
from spider.indexer.schema import Label

SOURCE = b'''import os.path, a.b as ab
from .x import y as z, w
from .. import *


@dec
@dec2(arg)
def f(a=g()):
    def inner():
        return h()
    return inner()


class C(Base, mod.Other, metaclass=M):
    def __init__(self):
        self.repo = Repo()
        super().__init__()

    @property
    def x(self):
        return self.repo.load()

    @x.setter
    def x(self, v):
        r = Foo(1)
        r.go(v)
        Bar(v).run()
        self.save()
'''


def entities():
    return {(e.qualname, e.label, e.kind, e.start_line, e.end_line, e.parent) for e in extract("p/m.py", SOURCE).entities}


def test_entities_with_decorators_in_their_span_nested_functions_and_duplicate_names():
    assert entities() == {
        ("f", Label.FUNCTION, "function", 6, 11, None),
        ("f.inner", Label.FUNCTION, "function", 9, 10, "f"),
        ("C", Label.CLASS, "class", 14, 28, None),
        ("C.__init__", Label.FUNCTION, "method", 15, 17, "C"),
        ("C.x", Label.FUNCTION, "method", 19, 21, "C"),
        ("C.x#2", Label.FUNCTION, "method", 23, 28, "C"),
    }


def test_code_is_the_exact_lines_of_the_span():
    facts = extract("p/m.py", SOURCE)
    lines = SOURCE.decode().splitlines(keepends=True)
    for entity in facts.entities:
        assert entity.code == "".join(lines[entity.start_line - 1 : entity.end_line])
    assert facts.entity("f").code.startswith("@dec\n@dec2(arg)\ndef f(")


def test_imports_bind_names_and_record_the_module_imported():
    assert extract("p/m.py", SOURCE).imports == [
        Import(None, "os.path", None, "", 1),
        Import(None, "os", None, "os", 1),
        Import(None, "a.b", None, "ab", 1),
        Import(None, ".x", "y", "z", 2),
        Import(None, ".x", "w", "w", 2),
        Import(None, "..", "*", "", 3),
    ]


def test_calls_self_super_inferred_receivers_decorators_and_bases():
    refs = {(r.scope, r.kind, r.target, r.inferred) for r in extract("p/m.py", SOURCE).references}
    call, inherit = RefKind.CALL, RefKind.INHERIT
    assert refs == {
        ("f", call, ("dec",), False),
        ("f", call, ("dec2",), False),
        ("f.inner", call, ("h",), False),
        ("f", call, ("inner",), False),
        ("C", inherit, ("Base",), False),
        ("C", inherit, ("mod", "Other"), False),
        ("C.__init__", call, ("Repo",), False),
        ("C.__init__", call, (SUPER, "__init__"), False),
        ("C.__init__", call, ("super",), False),
        ("C.x", call, ("property",), False),
        ("C.x", call, ("Repo", "load"), True),  # self.repo = Repo() in __init__
        ("C.x#2", call, ("x", "setter"), False),
        ("C.x#2", call, ("Foo",), False),
        ("C.x#2", call, ("Foo", "go"), True),  # r = Foo(1)
        ("C.x#2", call, ("Bar",), False),
        ("C.x#2", call, ("Bar", "run"), True),  # Bar(v).run()
        ("C.x#2", call, (SELF, "save"), False),
    }


def test_module_level_calls_have_no_source_entity_and_are_not_recorded():
    facts = extract("m.py", b"setup()\nx = build(1)\n")
    assert facts.references == [] and facts.entities == []


def test_syntax_errors_are_counted_and_the_rest_still_extracted():
    facts = extract("m.py", b"def broken(:\n    pass\n\ndef fine():\n    return 1\n")
    assert facts.syntax_errors > 0
    assert "fine" in {e.qualname for e in facts.entities}


def test_class_scope_nested_class_and_method_of_a_class_inside_a_function():
    facts = extract("m.py", b"def outer():\n    class Local:\n        def m(self):\n            self.n()\n    return Local\n")
    assert {(e.qualname, e.kind, e.parent) for e in facts.entities} == {
        ("outer", "function", None), ("outer.Local", "class", "outer"), ("outer.Local.m", "method", "outer.Local"),
    }
    assert [(r.scope, r.target) for r in facts.references] == [("outer.Local.m", (SELF, "n"))]
