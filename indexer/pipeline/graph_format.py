"""The graph's format: a fingerprint of the code that decides what a snapshot's graph holds (the extractors, the
graph builder and resolver, the shared records, the tree-sitter grammars' versions). Equal formats, equal
(path, blob) -> equal nodes; a new format never reuses a cached parse, a saved resolution state or a base snapshot
another format wrote."""

from __future__ import annotations

import ast
import functools
import hashlib
from importlib import metadata
from pathlib import Path

from spider.indexer.languages import grammars

_SOURCES = Path(__file__).parents[1]  # indexer/
_FORMAT_MODULES = ("source/walk.py", "parse/facts.py", "parse/treesitter.py", "resolve", "core/records.py",
                   "core/schema.py", "languages")
_QUERY_ONLY = "frames.py"  # a language's stack-trace reader reads issues, not code: no node depends on it
_CASES = "cases"  # a language's annotated test sources (languages/<lang>/cases/): the tests read them, spider does not
_RUNTIME = "tree-sitter"  # the parser every grammar runs in


def code_fingerprint(sources: dict[str, bytes]) -> str:
    """What the modules do, not how they are commented: a digest of their syntax trees without docstrings (so an
    edited comment does not make every cached parse and every base snapshot useless)."""
    digest = hashlib.sha256()
    for name, source in sorted(sources.items()):
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                        and isinstance(first.value.value, str):
                    node.body = node.body[1:] or [ast.Pass()]
        digest.update(name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()


def format_sources() -> dict[str, bytes]:
    """The modules whose code decides what a snapshot's graph holds, by path under indexer/."""
    sources = {}
    for name in _FORMAT_MODULES:
        target = _SOURCES / name
        for source in sorted(target.rglob("*.py")) if target.is_dir() else [target]:
            if source.name != _QUERY_ONLY and _CASES not in source.relative_to(target).parts[:-1]:
                sources[str(source.relative_to(_SOURCES))] = source.read_bytes()
    return sources


def grammar_distributions() -> tuple[str, ...]:
    """tree-sitter and the distributions of the grammars every registered language parses with (a language plugged
    in from elsewhere too), each once."""
    return (_RUNTIME, *sorted(grammars() - {_RUNTIME}))


def graph_format() -> str:
    """The fingerprint of the format code and the grammars' versions: equal formats, equal (path, blob) -> equal
    nodes; stored in each snapshot's stats. Computed when first asked for in a process (parsing the code's syntax
    trees takes ~0.2 s), never on import, and again when the registered grammars change; kept nowhere on disk."""
    return _graph_format(grammar_distributions())


@functools.cache
def _graph_format(distributions: tuple[str, ...]) -> str:
    versions = ",".join(f"{package}={metadata.version(package)}" for package in distributions)
    return hashlib.sha256(f"{code_fingerprint(format_sources())}:{versions}".encode()).hexdigest()[:16]
