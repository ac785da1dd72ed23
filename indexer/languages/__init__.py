"""Which extractor handles which file, by extension."""

from __future__ import annotations

from importlib import import_module
from typing import Callable

from spider.indexer.parse.facts import FileFacts

Extractor = Callable[[str, bytes], FileFacts]

# extension -> (module under indexer.languages, language of the File node)
_EXTENSIONS: dict[str, tuple[str, str]] = {
    ".py": ("python", "python"),
    ".pyi": ("python", "python"),
    ".java": ("java", "java"),
    ".js": ("javascript", "javascript"),
    ".jsx": ("javascript", "javascript"),
    ".mjs": ("javascript", "javascript"),
    ".cjs": ("javascript", "javascript"),
    ".ts": ("javascript", "typescript"),
    ".tsx": ("javascript", "typescript"),
    ".mts": ("javascript", "typescript"),
    ".cts": ("javascript", "typescript"),
}

SUPPORTED_LANGUAGES = ("python", "java", "javascript", "typescript")


def _suffix(path: str) -> str:
    """`PurePosixPath(path).suffix`, without building a path object (called for every file of every commit)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


def language_of(path: str) -> str | None:
    entry = _EXTENSIONS.get(_suffix(path))
    return entry[1] if entry else None


def extractor_for(path: str) -> Extractor | None:
    entry = _EXTENSIONS.get(_suffix(path))
    if entry is None:
        return None
    return import_module(f"spider.indexer.languages.{entry[0]}.extract").extract
