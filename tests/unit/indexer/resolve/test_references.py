"""Repo-wide resolution on tiny multi-file snippets: what each language's import and scope rules must give."""

from __future__ import annotations

from spider.core.schema import Rel, Resolution
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.resolve.modules import Module, ModuleIndex
from spider.indexer.resolve.references import Resolver

from tests.fixtures.bounded import run_bounded


def parsed(files: dict[str, str]):
    return {path: parse_file(path, code.encode()).facts for path, code in files.items()}


def edges(files: dict[str, str], rel: Rel = Rel.INVOKES) -> set[tuple[str, str, str]]:
    return {(e.src, e.dst, e.resolution.value) for e in Resolver(parsed(files)).edges() if e.type == rel}


# module paths -------------------------------------------------------------------
def test_python_modules_by_package_root_src_layout_relative_imports_and_namespace_dirs():
    modules = ModuleIndex(parsed({
        "src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/sub/mod.py": "",
        "tools/ns/helper.py": "", "tests/conftest.py": "", "lib/tests/conftest.py": "",
    })).of("python")
    assert modules.module("x.py", "pkg.sub.mod") == Module("src/pkg/sub/mod.py")
    assert modules.module("x.py", "src.pkg.sub") == Module("src/pkg/sub/__init__.py")
    assert modules.module("src/pkg/sub/mod.py", "..") == Module("src/pkg/__init__.py")
    assert modules.module("src/pkg/sub/mod.py", ".mod") == Module("src/pkg/sub/mod.py")
    assert modules.module("x.py", "tools.ns") == Module("tools/ns", is_dir=True)
    assert modules.module("lib/tests/test_a.py", "conftest") == Module("lib/tests/conftest.py")  # nearest
    assert modules.module("x.py", "numpy") is None
    assert modules.submodule(Module("src/pkg/__init__.py"), "sub") == Module("src/pkg/sub/__init__.py")
    assert modules.submodule(Module("src/pkg/sub/mod.py"), "x") is None  # a module has no submodules


def test_a_package_at_the_repository_root_resolves_and_ends():
    """A non-empty `__init__.py` at the root (Odoo/Ansible modules, plugins): the walk up from a package
    directory stopped only below the root, whose parent is itself, and never ended."""
    files = {"__init__.py": "from .a import f\n", "a.py": "def f():\n    return 1\n",
             "sub/__init__.py": "", "sub/b.py": "from ..a import f\n\ndef g():\n    f()\n"}
    modules = run_bounded(lambda: ModuleIndex(parsed(files)).of("python"))
    assert modules.module("x.py", "a") == Module("a.py")
    assert modules.module("x.py", "sub.b") == Module("sub/b.py")
    assert modules.module("__init__.py", ".a") == Module("a.py")
    assert run_bounded(lambda: edges(files)) == {("sub/b.py:g", "a.py:f", "import")}


def test_js_specifiers_probe_extensions_index_files_and_ts_esm_js_suffix():
    modules = ModuleIndex(parsed({
        "src/a.ts": "export const a = 1;", "src/lib/index.js": "export function f() {}",
        "src/util.mjs": "export function g() {}", "src/types.d.ts": "export interface T {}",
    })).of("javascript")
    assert modules.module("src/main.ts", "./a") == Module("src/a.ts")
    assert modules.module("src/main.ts", "./a.js") == Module("src/a.ts")
    assert modules.module("src/x/y.js", "../lib") == Module("src/lib/index.js")
    assert modules.module("src/main.js", "./util") == Module("src/util.mjs")
    assert modules.module("src/main.ts", "./types") == Module("src/types.d.ts")
    assert modules.module("src/main.js", "lodash") is None
    assert modules.module("src/main.js", "./missing") is None


# Python -------------------------------------------------------------------------------
def test_python_reexport_chain_through_packages_resolves_to_the_definition():
    files = {
        "pkg/__init__.py": "from .api import run\n",
        "pkg/api.py": "from ._impl import run\n",
        "pkg/_impl.py": "def run():\n    return 1\n",
        "app.py": "import pkg\nfrom pkg import run as go\n\ndef main():\n    pkg.run()\n    go()\n",
    }
    assert edges(files) == {("app.py:main", "pkg/_impl.py:run", "import")}
    assert ("app.py", "pkg/_impl.py:run", "import") in edges(files, Rel.IMPORTS)


def test_python_import_cycles_and_star_imports_terminate_and_resolve():
    files = {
        "a.py": "from b import x\n\ndef x_user():\n    return x()\n",
        "b.py": "from a import x\n",  # a cycle with no definition: nothing to link
        "c.py": "from d import *\n\ndef uses():\n    return helper()\n",
        "d.py": "def helper():\n    return 2\n",
    }
    assert edges(files) == {("c.py:uses", "d.py:helper", "import")}


def test_python_methods_do_not_see_class_scope_but_self_does_and_bases_are_searched():
    files = {
        "m.py": (
            "def helper():\n    return 0\n\n"
            "class Base:\n    def helper(self):\n        return 1\n\n"
            "class Child(Base):\n    def run(self):\n        return helper() + self.helper()\n"
        )
    }
    assert edges(files) == {("m.py:Child.run", "m.py:helper", "exact"), ("m.py:Child.run", "m.py:Base.helper", "exact")}


def test_unknown_receiver_links_only_to_a_repo_unique_method_and_marks_it_heuristic():
    files = {
        "a.py": "class A:\n    def unique_name(self):\n        pass\n    def save(self):\n        pass\n",
        "b.py": "class B:\n    def save(self):\n        pass\n",
        "c.py": "def f(obj):\n    obj.unique_name()\n    obj.save()\n    Unknown.unique_name()\n    print(obj)\n",
    }
    assert edges(files) == {("c.py:f", "a.py:A.unique_name", "heuristic")}


def test_names_imported_from_outside_the_repo_are_never_guessed():
    files = {
        "a.py": "class A:\n    def get(self):\n        pass\n",
        "b.py": "import requests\nfrom os import path\n\ndef f():\n    requests.get('x')\n    path.get()\n",
    }
    assert edges(files) == set()


# JavaScript / TypeScript ----------------------------------------------------------------
def test_commonjs_default_export_called_through_require_and_esm_barrel_reexports():
    files = {
        "lib/format.js": "function format(d) { return d; }\nmodule.exports = format;\n",
        "lib/parse.js": "export function parse(s) { return s; }\n",
        "lib/index.js": "export * from './parse';\nexport { default as fmt } from './fmtesm';\n",
        "lib/fmtesm.js": "export default function () { return 1; }\n",
        "app.js": (
            "const format = require('./lib/format');\nimport { parse, fmt } from './lib';\n"
            "function main() { format(1); parse('x'); fmt(); }\n"
        ),
    }
    assert edges(files) == {
        ("app.js:main", "lib/format.js:format", "import"),
        ("app.js:main", "lib/parse.js:parse", "import"),
        ("app.js:main", "lib/fmtesm.js:default", "import"),
    }


def test_typescript_declared_parameter_type_and_implements():
    files = {
        "svc.ts": "export interface Repo { load(): void }\nexport class Service implements Repo {\n  load(): void {}\n}\n",
        "use.ts": "import { Service } from './svc';\nexport function run(s: Service) {\n  s.load();\n}\n",
    }
    assert edges(files) == {("use.ts:run", "svc.ts:Service.load", "import")}
    assert edges(files, Rel.INHERITS) == {("svc.ts:Service", "svc.ts:Repo", "exact")}


# Java ---------------------------------------------------------------------------------------
def test_java_same_package_static_import_qualified_name_and_inherited_method():
    files = {
        "src/com/a/Util.java": "package com.a;\npublic class Util {\n  public static int twice(int x) { return x * 2; }\n}\n",
        "src/com/a/Base.java": "package com.a;\npublic class Base {\n  protected void hook() {}\n}\n",
        "src/com/a/Child.java": (
            "package com.a;\npublic class Child extends Base {\n"
            "  void run() { Util.twice(1); hook(); }\n}\n"
        ),
        "src/com/b/Main.java": (
            "package com.b;\nimport static com.a.Util.twice;\n"
            "public class Main {\n  void go() { twice(2); com.a.Util.twice(3); }\n}\n"
        ),
    }
    assert edges(files) == {
        ("src/com/a/Child.java:Child.run", "src/com/a/Util.java:Util.twice", "import"),
        ("src/com/a/Child.java:Child.run", "src/com/a/Base.java:Base.hook", "exact"),
        ("src/com/b/Main.java:Main.go", "src/com/a/Util.java:Util.twice", "import"),
    }
    assert {(s, d) for s, d, _ in edges(files, Rel.INHERITS)} == {
        ("src/com/a/Child.java:Child", "src/com/a/Base.java:Base")
    }


def test_edges_are_deduplicated_keeping_the_strongest_resolution():
    files = {"m.py": "def g():\n    pass\n\ndef f():\n    g()\n    g()\n"}
    assert edges(files) == {("m.py:f", "m.py:g", Resolution.EXACT.value)}
