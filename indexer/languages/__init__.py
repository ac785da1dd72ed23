"""The languages spider reads. Each is a plug-in: a package here that registers, when imported, its name (the
`language` of its File, Class and Function nodes), the file extensions (and whole file names: a build manifest such
as Go's `go.mod`) it reads, the extensions it contests with another language (`.h`: C or C++, whichever has more
files in the snapshot), its extractor (source -> FileFacts), its resolution rules (`rules.LanguageRules`) and the
grammar distributions it parses with (their versions are part of the graph's format). Nothing else lists the
languages: `languages()` and `grammars()` are what is registered. Every package here is imported with this one; a
language from elsewhere (a test's) registers itself the same way."""

from __future__ import annotations

import pkgutil
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import Callable, Iterable, Mapping

from spider.indexer.languages.rules import LanguageRules, TestCode
from spider.indexer.parse.facts import FileFacts

Extractor = Callable[[str, bytes], FileFacts]


@dataclass(frozen=True)
class _Registered:
    language: str  # of the File node
    extract: Extractor


_BY_EXTENSION: dict[str, _Registered] = {}
_BY_NAME: dict[str, _Registered] = {}  # whole file names ("go.mod"), before extensions
_RULES: dict[str, LanguageRules] = {}
_BY_LANGUAGE: dict[str, _Registered] = {}
_CONTESTED: dict[str, list[str]] = {}  # extension -> the languages that read it where they have more files
_GRAMMARS: dict[str, tuple[str, ...]] = {}  # language -> the distributions of the grammars it parses with


def register_language(
    language: str, extensions: Iterable[str], extract: Extractor, rules: LanguageRules,
    file_names: Iterable[str] = (), contested: Iterable[str] = (), grammars: Iterable[str] = (),
) -> Callable[[], None]:
    """Read files with these extensions (".py", lower case) or these exact names ("go.mod") with `extract` as
    files of `language`, resolved by `rules`; files with a `contested` extension another language registered too,
    in a snapshot where the files of `language`'s own extensions outnumber those of that language's
    (`contested_languages`). `grammars`: the installed distributions whose grammars `extract` parses with
    ("tree-sitter-java"; none for a language read without one), fingerprinted with the graph's format. Returns
    what undoes the registration."""
    extensions, file_names, contested = tuple(extensions), tuple(file_names), tuple(contested)

    taken = [e for e in extensions if e in _BY_EXTENSION] + [n for n in file_names if n in _BY_NAME]
    taken += [language] if language in _RULES else []
    if taken:
        raise ValueError(f"already registered: {', '.join(taken)}")
    _BY_EXTENSION.update(dict.fromkeys(extensions, _Registered(language, extract)))
    _BY_NAME.update(dict.fromkeys(file_names, _Registered(language, extract)))
    _RULES[language] = rules
    _BY_LANGUAGE[language] = _Registered(language, extract)
    _GRAMMARS[language] = tuple(grammars)
    for extension in contested:
        _CONTESTED.setdefault(extension, []).append(language)
    _test_file.cache_clear()

    def unregister() -> None:
        for extension in extensions:
            del _BY_EXTENSION[extension]
        for name in file_names:
            del _BY_NAME[name]
        del _RULES[language]
        del _BY_LANGUAGE[language]
        del _GRAMMARS[language]
        for extension in contested:
            _CONTESTED[extension].remove(language)
        _test_file.cache_clear()

    return unregister


def languages() -> frozenset[str]:
    """The names of the registered languages: the values a node's `language` takes."""
    return frozenset(_RULES)


def grammars() -> frozenset[str]:
    """The distributions of the grammars the registered languages parse with ("tree-sitter-java")."""
    return frozenset(grammar for declared in _GRAMMARS.values() for grammar in declared)


def imported_extractor(module: str) -> Extractor:
    """The `extract` function of `module`, imported when first called: tree-sitter grammars are loaded only by
    processes that parse."""
    def extract(path: str, source: bytes) -> FileFacts:
        extract_file: Extractor = import_module(module).extract  # a plug-in's, found by name
        return extract_file(path, source)

    return extract


def _suffix(path: str) -> str:
    """`PurePosixPath(path).suffix`, without building a path object (called for every file of every commit)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


def _registered(path: str) -> _Registered | None:
    return _BY_NAME.get(path.rpartition("/")[2]) or _BY_EXTENSION.get(_suffix(path))


def contested_languages(paths: Iterable[str]) -> dict[str, str]:
    """Which language reads each contested extension in a snapshot of these files, where it is not the one that
    registered the extension: the contender whose own files outnumber the owner's (a tie keeps the owner)."""
    counts = Counter(entry.language for path in paths
                     if _suffix(path) not in _CONTESTED and (entry := _registered(path)) is not None)
    chosen = {}
    for extension, contenders in _CONTESTED.items():
        owner = _BY_EXTENSION.get(extension)
        best = max(contenders, key=lambda language: counts[language], default=None)
        if owner is not None and best is not None and counts[best] > counts[owner.language]:
            chosen[extension] = best
    return chosen


def language_of(path: str, contested: Mapping[str, str] = {}) -> str | None:
    """The language of a file; `contested`: the snapshot's choices for contested extensions."""
    chosen = contested.get(_suffix(path)) if contested else None
    if chosen is not None:
        return chosen
    entry = _registered(path)
    return entry.language if entry else None


def extractor_for(path: str, language: str | None = None) -> Extractor | None:
    """The extractor of a file, read as `language` where the snapshot chose it (a contested extension)."""
    entry = _BY_LANGUAGE.get(language) if language is not None else _registered(path)
    return entry.extract if entry else None


def source_extensions() -> frozenset[str]:
    """The file extensions some language reads (".py", ".rs", lower case)."""
    return frozenset(_BY_EXTENSION)


def rules_for(language: str) -> LanguageRules:
    return _RULES[language]


def is_generated(path: str, source: bytes) -> bool:
    """Whether the file is marked as written by a tool the way its language marks such files."""
    entry = _registered(path)
    generated = _RULES[entry.language].generated if entry else None
    return generated is not None and generated(path, source)


def vendored_directories(path: str) -> frozenset[str]:
    """The directory names its language's ecosystem keeps others' code in (none for a file of no language)."""
    entry = _registered(path)
    return _RULES[entry.language].vendored if entry else frozenset()


def stack_frames(text: str) -> set[tuple[str, str]]:
    """(path as written, function name) of each stack-trace frame in `text` as some language prints them, of a file
    some language reads."""
    readers = {rules.stack_frames for rules in _RULES.values() if rules.stack_frames is not None}
    return {(path, name) for read in readers for path, name in read(text) if name and _registered(path) is not None}


def split_entity_id(node_id: str) -> tuple[str, str]:
    """`path:Class.method#2` -> (path, qualified name): the inverse of `core.records.entity_id`. Either part may
    hold a colon (C++'s `operator std::string_view`, a Rust impl of `core::mem::MaybeUninit<u8>`, a directory
    `a:b/`), so the path is the shortest prefix before a colon that is a file some language reads (every entity
    is defined in one). An id with no such prefix is all name: ("", id), as a qualified name typed without its
    file."""
    colon = node_id.find(":")
    while colon != -1:
        if _registered(node_id[:colon]) is not None:
            return node_id[:colon], node_id[colon + 1:]
        colon = node_id.find(":", colon + 1)
    return "", node_id


def is_test_code(node_id: str) -> bool:
    """Whether a function (`path:Class.method#2`) is test code by its language's definition; a file of no
    language spider reads is not."""
    path, qualname = split_entity_id(node_id)
    in_test_file, rules = _test_file(path)
    return in_test_file or (rules is not None and rules.holds("", qualname.split("#")[0]))


@lru_cache(maxsize=1 << 16)
def _test_file(path: str) -> tuple[bool, TestCode | None]:
    """Whether the file is test code, and its language's rule for test code inside a file (None: the language
    has none). Asked for every function of a snapshot at every query, and a file holds many functions."""
    entry = _registered(path)
    if entry is None:
        return False, None
    rule = _RULES[entry.language].test_code
    return rule.holds(path), rule if rule.qualname is not None else None


for _package in pkgutil.iter_modules(__path__):
    if _package.ispkg:
        import_module(f"{__name__}.{_package.name}")
