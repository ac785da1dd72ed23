"""What an issue names outright: stack-trace frames, dotted names, identifiers, file paths and error messages,
matched against a snapshot's functions. An issue that pastes `File "xarray/core/merge.py", line 90, in
merge_core` names its function; a dense model reading the prose may not rank it at all. Frames are read as each
language's rules say its stack traces print them (`LanguageRules.stack_frames`); a path is one of a file any
language spider reads.

Matching reads function ids (`path:Class.method#2`) and, for error messages only, the code of the functions
whose words could hold them (the BM25 index narrows, one Cypher query reads). Each match says what named it, so
an answer can say why the function is there.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Iterable

from spider import cypher
from spider.indexer.graph.store import GraphStore
from spider.indexer.languages import source_extensions, split_entity_id, stack_frames
from spider.query.retrieve.bm25 import Bm25Index
from spider.query.retrieve.tokenize import code_tokens

MIN_NAME = 4  # a shorter name ("get", "run") is named by too many issues to mean anything
MAX_NAME_MATCHES = 5  # an identifier that names more functions than this names none of them in particular
MAX_FILE_FUNCTIONS = 40  # a mentioned file with more functions than this says little about which one
MAX_MESSAGES = 8
MIN_MESSAGE_WORDS = 4
FILE_FUSION_WEIGHT = 0.5  # chosen leave-one-repository-out from 0, 1/4, 1/2, 3/4, 1 (bench/results/fusion.md)
SCANNED = 100_000  # characters of the issue read: the rest of a pasted log adds no names, only time

_DOTTED = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]{0,100}(?:(?:\.|::|#)[A-Za-z_$][\w$]{0,100}){1,10}")
_WORD = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]{0,100}")
_CODE_LIKE = re.compile(r"_|[a-z][A-Z]|[A-Z]{2,}[a-z]")  # snake_case or camelCase: an identifier, not a word
_ERROR_LINE = re.compile(r"^[ \t]*(?:[\w.]{0,200}(?:Error|Exception|Warning)):\s*(.{10,400})$", re.MULTILINE)
_QUOTED = re.compile(r"\"([^\"\n]{12,300})\"|'([^'\n]{12,300})'|`([^`\n]{12,300})`")
_LITERAL_RUN = re.compile(r"[A-Za-z][A-Za-z ,;-]{0,300}[A-Za-z]")  # words between interpolated values


class Named(IntEnum):
    """How an issue names a function, strongest first (the order a mention ranking takes)."""

    FRAME = 1  # a stack-trace frame: its file and its function
    QUALIFIED = 2  # a dotted name ending in the function's qualified name: `Dataset.merge`
    MESSAGE = 3  # an error message the issue quotes is written in its code
    NAME = 4  # a code-like identifier (snake_case, camelCase) that few functions are called
    FILE = 5  # its file's path

    @property
    def phrase(self) -> str:
        return _PHRASES[self]

    @property
    def fusion_weight(self) -> float:
        """How much its place in the mention ranking counts in the hybrid's fusion: a named file names up to
        MAX_FILE_FUNCTIONS functions, most of them not the one meant, so its place counts half."""
        return FILE_FUSION_WEIGHT if self is Named.FILE else 1.0


_PHRASES = {Named.FRAME: "a stack-trace frame", Named.QUALIFIED: "its qualified name", Named.MESSAGE:
            "an error message in its code", Named.NAME: "its name", Named.FILE: "its file's path"}


@dataclass(frozen=True)
class Mentions:
    """The entities of one issue's text."""

    frames: frozenset[tuple[str, str]]  # (path as written, possibly absolute or just a file name; function name)
    qualified: frozenset[str]  # dotted names with 2+ parts, `::` and `#` read as dots
    names: frozenset[str]  # code-like single identifiers, and the last part of every dotted name
    paths: frozenset[str]
    messages: tuple[str, ...]  # literal runs of quoted or raised error messages, longest first

    def __bool__(self) -> bool:
        return bool(self.frames or self.qualified or self.names or self.paths or self.messages)


def issue_mentions(issue: str) -> Mentions:
    """The entities an issue names, by pattern: stack-trace frames (as each language prints them), dotted names,
    code-like identifiers, file paths and error messages."""
    text = issue[:SCANNED]
    path_pattern = _path_pattern(source_extensions())
    frames = stack_frames(text)
    qualified: set[str] = set()
    for dotted in _DOTTED.findall(text):
        parts = re.split(r"\.|::|#", dotted)
        if path_pattern.fullmatch(dotted):
            continue  # a file name (`models.py`), not a member
        qualified.update(".".join(parts[i:]) for i in range(len(parts) - 1))
    names = {w for w in _WORD.findall(text) if len(w) >= MIN_NAME and _CODE_LIKE.search(w)}
    names.update(q.rsplit(".", 1)[-1] for q in qualified if len(q.rsplit(".", 1)[-1]) >= MIN_NAME)
    paths = {p.lstrip("./") for p in path_pattern.findall(text) if "/" in p or _CODE_LIKE.search(p.rsplit(".", 1)[0])}
    paths -= {path.lstrip("./") for path, _ in frames}  # a frame names its function, not every function beside it
    return Mentions(frozenset(frames), frozenset(qualified), frozenset(names), frozenset(p for p in paths if p),
                    error_messages(text))


@lru_cache(maxsize=4)
def _path_pattern(extensions: frozenset[str]) -> re.Pattern:
    """A path as an issue writes it, of a file with one of these extensions (the longest that fits)."""
    suffixes = "|".join(sorted((re.escape(e.lstrip(".")) for e in extensions), key=lambda e: (-len(e), e)))
    return re.compile(rf"(?<![\w.@/-])[\w.@-]{{0,100}}(?:/[\w.@-]{{1,100}}){{0,30}}\.(?:{suffixes})(?![\w+])")


def error_messages(text: str) -> tuple[str, ...]:
    """The longest literal run (words a format string would hold, between interpolated values) of each raised or
    quoted message with at least MIN_MESSAGE_WORDS words."""
    raw = [m for m in _ERROR_LINE.findall(text)] + [next(g for g in groups if g) for groups in _QUOTED.findall(text)]
    runs = set()
    for message in raw:
        run = max(_LITERAL_RUN.findall(message), key=len, default="").strip(" ,;-")
        if len(run.split()) >= MIN_MESSAGE_WORDS:
            runs.add(run)
    return tuple(sorted(runs, key=lambda r: (-len(r), r))[:MAX_MESSAGES])


def _path_matches(written: str, path: str) -> bool:
    """Whether a path as an issue writes it (absolute, relative to some other root, or a file name) is `path`."""
    return written == path or written.endswith("/" + path) or path.endswith("/" + written)


@dataclass(frozen=True)
class FunctionNames:
    """A snapshot's functions by their short names and by their files: what mentions are matched against, built
    once per snapshot, not per issue."""

    ids: frozenset[str]
    by_name: dict[str, list[str]]
    by_path: dict[str, list[str]]

    @classmethod
    def of(cls, node_ids: Iterable[str]) -> "FunctionNames":
        ids = frozenset(node_ids)
        by_name: dict[str, list[str]] = defaultdict(list)
        by_path: dict[str, list[str]] = defaultdict(list)
        for node_id in sorted(ids):
            path, qualname = split_entity_id(node_id)
            by_name[qualname.split("#")[0].rpartition(".")[2]].append(node_id)
            by_path[path].append(node_id)
        return cls(ids, dict(by_name), dict(by_path))


def match_mentions(mentions: Mentions, names: FunctionNames, store: GraphStore | None = None, repo: str = "",
                   snapshot: str = "", lexical: Bm25Index | None = None) -> dict[str, Named]:
    """The functions of a snapshot (`names`) the issue names, each with its strongest reason. Error messages are
    looked up in the code of those functions (`store`, `repo`, `snapshot`) whose words could hold them (the
    snapshot's BM25 index, `lexical`) when both are given."""
    by_name, by_path = names.by_name, names.by_path
    found: dict[str, Named] = {}

    def note(node_id: str, why: Named) -> None:
        found[node_id] = min(found.get(node_id, why), why)

    for end in {q.rsplit(".", 1)[-1] for q in mentions.qualified}:  # a qualified mention ends in the function's name
        for node_id in by_name.get(end, ()):  # `merge.merge_core` names xarray/core/merge.py:merge_core
            path, qualname = split_entity_id(node_id)
            dotted = path.rsplit(".", 1)[0].split("/") + qualname.split("#")[0].split(".")
            if any(".".join(dotted[i:]) in mentions.qualified for i in range(len(dotted) - 1)):
                note(node_id, Named.QUALIFIED)
    for written, name in mentions.frames:
        for node_id in by_name.get(name, ()):
            if _path_matches(written, split_entity_id(node_id)[0]):
                note(node_id, Named.FRAME)
    for name in mentions.names:
        named = by_name.get(name, ())
        if 0 < len(named) <= MAX_NAME_MATCHES:
            for node_id in named:
                note(node_id, Named.NAME)
    for written in mentions.paths:
        in_file = [i for path, ids in by_path.items() if _path_matches(written, path) for i in ids]
        if len(in_file) <= MAX_FILE_FUNCTIONS:
            for node_id in in_file:
                note(node_id, Named.FILE)
    if mentions.messages and store is not None and lexical is not None:
        for named in _message_holders(mentions.messages, names, store, repo, snapshot, lexical).values():
            if len(named) <= MAX_NAME_MATCHES:
                for node_id in named:
                    note(node_id, Named.MESSAGE)
    return found


def _message_holders(messages: tuple[str, ...], names: FunctionNames, store: GraphStore, repo: str, snapshot: str,
                     lexical: Bm25Index) -> dict[str, list[str]]:
    """Each message's functions among `names` whose code has it. Only functions with every word inside the message
    (its first and last words may be cut from longer words in the code) are read: a few, not the whole snapshot. A
    message whose inner words are all glue words ("is not") is looked for by all its words, one of only glue words
    not at all."""
    could: set[str] = set()
    for message in messages:
        inner = " ".join(message.split()[1:-1])
        words = inner if code_tokens(inner) else message
        if code_tokens(words):
            could.update(i for i in lexical.holding(words) if i in names.ids)
    if not could:
        return {}
    _, rows = store.read(cypher.load("functions_saying"), {"repo": repo, "snapshot": snapshot,
                                                           "ids": sorted(could), "messages": list(messages)})
    holders: dict[str, list[str]] = defaultdict(list)
    for node_id, said in rows:
        for message in said:
            holders[message].append(node_id)
    return holders


def mention_ranking(found: dict[str, Named], order: dict[str, int]) -> list[str]:
    """The named functions, strongest reason first, then by `order` (their place in another ranking)."""
    last = len(order)
    return sorted(found, key=lambda i: (found[i], order.get(i, last), i))
