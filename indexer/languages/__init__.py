"""Which extractor handles which file, by extension."""

from __future__ import annotations

from importlib import import_module
from pathlib import PurePosixPath
from typing import Callable

from indexer.model import FileFacts

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


def language_of(path: str) -> str | None:
    entry = _EXTENSIONS.get(PurePosixPath(path).suffix.lower())
    return entry[1] if entry else None


def extractor_for(path: str) -> Extractor | None:
    entry = _EXTENSIONS.get(PurePosixPath(path).suffix.lower())
    if entry is None:
        return None
    return import_module(f"indexer.languages.{entry[0]}").extract
