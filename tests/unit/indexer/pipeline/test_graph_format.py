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


def test_the_graph_format_leaves_out_the_languages_annotated_cases():
    """A language's cases (languages/<lang>/cases/) are test sources, some deliberately broken: no graph depends on
    them, and reading them as format code would fail on the broken ones."""
    sources = graph_format.format_sources()
    assert (graph_format._SOURCES / "languages/python/cases").is_dir()
    assert not [path for path in sources if "/cases/" in path]
    assert "languages/python/extract.py" in sources


def test_the_graph_format_lists_the_grammars_the_languages_registered():
    """No hand-kept list: tree-sitter itself, then every registered language's grammar distribution, each once."""
    distributions = graph_format.grammar_distributions()
    assert distributions[0] == "tree-sitter" and len(set(distributions)) == len(distributions)
    assert {"tree-sitter-python", "tree-sitter-java", "tree-sitter-javascript", "tree-sitter-typescript",
            "tree-sitter-go", "tree-sitter-c", "tree-sitter-cpp", "tree-sitter-rust"} <= set(distributions)
