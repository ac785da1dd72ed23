"""The graph format fingerprints what the code does, not how it is commented, and only what decides nodes."""

from __future__ import annotations

import spider.indexer.pipeline.graph_format as graph_format


def test_the_graph_format_fingerprints_code_not_comments_or_docstrings():
    module = b'"""Module."""\nimport re\n\n\ndef f(x):\n    """Why."""\n    return re.escape(x)  # a comment\n'
    reworded = b'"""Another text."""\nimport re\n\n\ndef f(x):\n    # more words\n    return re.escape(x)\n'
    docstring_only = b'def g():\n    """Only a docstring."""\n'
    fingerprint = graph_format.code_fingerprint

    assert fingerprint({"a.py": module}) == fingerprint({"a.py": reworded})
    assert fingerprint({"a.py": module}) != fingerprint({"a.py": module.replace(b"escape", b"compile")})
    assert fingerprint({"a.py": module}) != fingerprint({"b.py": module})
    assert fingerprint({"a.py": docstring_only}) == fingerprint({"a.py": b"def g():\n    pass\n"})


def test_the_graph_format_leaves_out_what_only_queries_read():
    """A language's stack-trace reader (`frames.py`) decides no node: changing it must not re-resolve every graph."""
    sources = graph_format.format_sources()
    assert "languages/rust/rules.py" in sources and "resolve/references.py" in sources
    assert not [path for path in sources if path.endswith("/frames.py")]
