"""Which JavaScript and TypeScript files a tool wrote: a compiler's or bundler's output points at its source map."""

from __future__ import annotations

import pytest
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.languages.javascript.rules import generated

BUNDLE = (b"// Lib v1.1.2 Copyright (c) 2022\n(function (global, factory) {\n  factory();\n}(this, function () {\n"
          b"  function bind(fn, thisArg) { return function wrap() { return fn.apply(thisArg, arguments); }; }\n}));\n")


@pytest.mark.parametrize("path, source, expected", [
    ("dist/lib.js", BUNDLE + b"//# sourceMappingURL=lib.js.map\n", True),
    ("dist/node/lib.cjs", BUNDLE + b"//# sourceMappingURL=lib.cjs.map", True),  # no final newline
    ("out/app.js", BUNDLE + b"//# sourceMappingURL=app.js.map\r\n\r\n", True),
    ("lib/app.js", BUNDLE + b"//@ sourceMappingURL=app.js.map\n", True),  # the old form
    ("lib/app.mjs", BUNDLE + b"//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==\n", True),
    ("lib/app.js", BUNDLE + b"//# sourceMappingURL=app.js.map\n/* trailing banner */\n", True),  # one of the last 2
    ("dist/lib.js", BUNDLE, False),  # a directory name is no evidence: only the file's own mark
    ("src/maps.js", b"// see //# sourceMappingURL=x.map\nfunction f() {}\n" + b"\n" * 3 + b"f();\n", False),
    ("src/maps.js", b"//# sourceMappingURL=early.map\n" + BUNDLE, False),  # not at the end: not the compiler's
    ("src/maps.js", BUNDLE + b"const s = '//# sourceMappingURL=x.map';\n", False),  # in a string, not a comment
])
def test_compiled_output_is_told_by_a_source_map_reference_at_its_end(path, source, expected):
    assert generated(path, source) is expected


def test_bundles_are_skipped_with_a_reason_and_their_sources_kept():
    bundle = parse_file("dist/esm/lib.js", BUNDLE + b"//# sourceMappingURL=lib.js.map\n")
    source = parse_file("lib/helpers/bind.js", BUNDLE)
    assert (bundle.facts, bundle.skipped) == (None, "generated")
    assert source.skipped is None and "bind" in {e.qualname.rsplit(".", 1)[-1] for e in source.facts.entities}
