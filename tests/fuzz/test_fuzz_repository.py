"""Hostile repositories: arbitrary file names (any bytes but `/` and NUL) through the walker, and arbitrary file
contents through the parsers. Nothing may raise: every file is parsed (maybe with warnings) or skipped with a
reason, and every path and text that reaches the graph is valid UTF-8 with one id per name."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.parse.cache import function_hashes
from spider.indexer.parse.facts import ParseOutcome, outcome_to_dict
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.pipeline.stages import graph_of
from spider.indexer.resolve.codegraph import keeps_file
from spider.indexer.resolve.references import Resolver
from spider.indexer.source.walk import open_commit, read_blobs, select_files

from tests.fixtures.bounded import run_bounded

EXTENSIONS = (".py", ".pyi", ".java", ".js", ".jsx", ".mjs", ".ts", ".tsx")
SNIPPETS = {  # pieces of each language, so that generated text reaches the extractors' deeper paths
    ".py": ["def f(x):\n", "class C(B):\n", "    return f(1)\n", "import os\n", "from . import a\n", "@d\n",
            "lambda: 0\n", "async def g():\n", "    pass\n", '"""', "\t", "\\\n"],
    ".java": ["package a.b;\n", "import a.B;\n", "class C extends B {", "void m() {", "f();", "}", "interface I {",
              "enum E { A, B }", "@Override", "new C() {", "/*", "*/", "<T>"],
    ".js": ["function f(a) {", "}", "class C extends B {", "m() {", "import x from './y';", "export default ",
            "const g = () => {", "require('z');", "`${", "/re/g", "=>", "async ", "yield"],
}
SNIPPETS[".ts"] = SNIPPETS[".js"] + ["interface I {", ": number", "type T = ", "enum E {", "namespace N {"]
BOMS = (b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE)
TEXT_ENCODINGS = {codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be", codecs.BOM_UTF32_LE: "utf-32-le"}


def _snippets_for(extension: str) -> list[str]:
    return SNIPPETS.get(extension) or SNIPPETS[".ts" if "t" in extension else ".js"]


@st.composite
def source_files(draw: st.DrawFn) -> tuple[str, bytes, str | None]:
    """(path, bytes, text): arbitrary bytes (text None), or text of the path's language in UTF-8, UTF-16 or
    UTF-32, maybe with a byte-order mark."""
    extension = draw(st.sampled_from(EXTENSIONS))
    path = f"src/file{extension}"
    if draw(st.booleans()):
        return path, draw(st.binary(max_size=2_000)), None
    pieces = st.one_of(st.sampled_from(_snippets_for(extension)), st.text(max_size=8))
    text = "".join(draw(st.lists(pieces, max_size=40)))
    bom = draw(st.sampled_from(BOMS))
    return path, bom + text.encode(TEXT_ENCODINGS.get(bom, "utf-8"), "surrogatepass"), text


def assert_well_formed(outcome: ParseOutcome) -> None:
    """A parse outcome that can be cached, hashed, shown and written: skipped with a reason or parsed, texts in
    valid UTF-8, entities within the file's lines."""
    assert (outcome.facts is None) == (outcome.skipped is not None)
    assert all(isinstance(w, str) and w for w in outcome.warnings)
    json.dumps(outcome_to_dict(outcome), ensure_ascii=False).encode("utf-8")  # no lone surrogates anywhere
    function_hashes(outcome)
    if outcome.facts is not None:
        lines = outcome.code.count("\n") + 1
        for entity in outcome.facts.entities:
            assert 1 <= entity.start_line <= entity.end_line <= lines, (entity, lines)


@given(source_files())
def test_any_file_contents_are_parsed_or_skipped_with_a_reason(file):
    path, data, text = file

    outcome = parse_file(path, data)

    assert_well_formed(outcome)
    if text is not None and "\0" not in text:  # whatever its encoding, text is never taken for binary
        assert outcome.skipped != "binary"


# file names -------------------------------------------------------------------------------------------------
_UNTRACKABLE = {b"", b".", b"..", b".git"}  # components git itself refuses to track
name_components = st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"/", b"_").replace(b"\0", b"_")).filter(
    lambda b: b.lower() not in _UNTRACKABLE)
raw_paths = st.lists(name_components, min_size=1, max_size=3).map(b"/".join).flatmap(
    lambda stem: st.sampled_from(EXTENSIONS + (".txt", "")).map(lambda ext: stem + ext.encode()))


@pytest.fixture(scope="module")
def scratch_repo() -> Path:
    """One repository for every example: each commits its own tree with git's plumbing (no work tree)."""
    with tempfile.TemporaryDirectory(prefix="fuzz-names-") as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", "--bare", str(root)], check=True)
        yield root


def commit_tree(root: Path, files: dict[bytes, bytes]) -> str:
    """A commit of `files` (raw byte paths) in the bare repository at `root`."""
    def git(*args: str, stdin: bytes | None = None) -> bytes:
        env = {**os.environ, **_IDENTITY, "GIT_INDEX_FILE": str(root / "fuzz-index")}
        return subprocess.run(["git", "--git-dir", str(root), "-c", "core.protectNTFS=false", *args], input=stdin,
                              check=True, capture_output=True, env=env).stdout.strip()

    git("read-tree", "--empty")
    blobs = {content: git("hash-object", "-w", "--stdin", stdin=content).decode() for content in set(files.values())}
    git("update-index", "--add", "-z", "--index-info",
        stdin=b"".join(b"100644 " + blobs[content].encode() + b"\t" + path + b"\0" for path, content in files.items()))
    return git("commit-tree", git("write-tree").decode(), "-m", "fuzz").decode()


_IDENTITY = {"GIT_AUTHOR_NAME": "fuzz", "GIT_AUTHOR_EMAIL": "fuzz@spider.invalid",
             "GIT_COMMITTER_NAME": "fuzz", "GIT_COMMITTER_EMAIL": "fuzz@spider.invalid"}
CONTENTS = (b"def f():\n    return 1\n", b"class C {\n  void m() {}\n}\n", b"function g() { return 1; }\n", b"\0\1")


def _without_prefix_clashes(paths: list[bytes]) -> list[bytes]:
    """Drop paths that would make a file and a directory of one name (git cannot track both)."""
    kept: list[bytes] = []
    for path in sorted(set(paths), key=len):
        if not any(path.startswith(other + b"/") or other.startswith(path + b"/") for other in kept):
            kept.append(path)
    return kept


@settings(max_examples=settings.default.max_examples * 2 // 5)  # a commit per example: ci 60 in about 5 s
@given(st.lists(st.tuples(raw_paths, st.sampled_from(CONTENTS)), min_size=1, max_size=6))
def test_any_file_names_are_indexed_or_skipped_with_one_id_each(scratch_repo, entries):
    trackable = set(_without_prefix_clashes([path for path, _ in entries]))
    files = {path: content for path, content in entries if path in trackable}
    commit = open_commit(scratch_repo, commit_tree(scratch_repo, files))

    selection = select_files(commit)
    blobs = dict(read_blobs(commit.git_dir, {f.blob for f in selection.files}))
    outcomes = [parse_file(f.path, blobs[f.blob]) for f in selection.files]
    for outcome in outcomes:
        assert_well_formed(outcome)
    report = IndexReport(repo="fuzz/names", snapshot=commit.sha, rev=commit.sha)
    graph, _ = graph_of(report, selection, outcomes)

    paths = [f.path for f in selection.files]
    assert len(set(paths)) == len(paths)
    assert len(paths) + sum(selection.skipped.values()) + selection.other == len(files)
    json.dumps(report.skipped_files, ensure_ascii=False).encode("utf-8")
    kept = [o.path for o in outcomes if o.facts is not None and keeps_file(o.facts)]
    file_nodes = [n.id for n in graph.nodes if n.label == "File"]
    assert sorted(file_nodes) == sorted(kept)
    node_ids = [n.id for n in graph.nodes]
    assert len(set(node_ids)) == len(node_ids)
    for node_id in node_ids:
        node_id.encode("utf-8")


# layouts whose resolution climbs paths ------------------------------------------------------------------------
# Module files at any depth, the root included (`__init__.py`, `lib.rs`, `index.js`), importing upwards past the
# root: every walk up a path must end at the root, whose parent is itself.
LAYOUT_DIRS = ("", "a", "a/b", "a/b/c", "src", "src/a")
LAYOUT_FILES = {
    "__init__.py": "from {dots} import f\nfrom {dots}m import f\nimport a.b\n",
    "m.py": "from {dots} import m\n\ndef f():\n    g()\n",
    "lib.rs": "mod m;\nuse {supers}m::f;\n", "mod.rs": "pub mod m;\n", "m.rs": "use {supers}m;\npub fn f() {{ g(); }}\n",
    "index.js": "import {{ f }} from '{ups}';\nexport function g() {{ f(); }}\n",
    "x.h": '#include "{ups}x.h"\nint f(void);\n', "x.c": '#include "{ups}x.h"\nint g(void) {{ return f(); }}\n',
    "go.mod": "module a\n", "m.go": 'package m\nimport "a/{ups}m"\nfunc F() {{ m.F() }}\n',
}


@st.composite
def climbing_layouts(draw: st.DrawFn) -> dict[str, str]:
    chosen = draw(st.lists(st.tuples(st.sampled_from(LAYOUT_DIRS), st.sampled_from(sorted(LAYOUT_FILES))),
                           min_size=1, max_size=12, unique=True))
    files: dict[str, str] = {}
    for directory, name in chosen:
        climb = draw(st.integers(0, 6))
        text = LAYOUT_FILES[name].format(dots="." * (climb + 1), supers="super::" * climb, ups="../" * climb)
        files[f"{directory}/{name}" if directory else name] = text
    return files


@given(climbing_layouts())
def test_resolution_of_any_layout_ends_with_edges_between_its_files(files):
    outcomes = {path: parse_file(path, text.encode()) for path, text in files.items()}
    facts = {path: o.facts for path, o in outcomes.items() if o.facts is not None}

    found = run_bounded(lambda: list(Resolver(facts).edges()), seconds=30)

    nodes = set(facts) | {f"{path}:{e.qualname}" for path, f in facts.items() for e in f.entities}
    for edge in found:
        assert edge.src in nodes and edge.dst in nodes, edge
