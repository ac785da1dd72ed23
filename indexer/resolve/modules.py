"""The module maps of one snapshot: for each language, how its imports name the repo's files and directories.

Each language's rules say how (`indexer.languages.<language>.rules`); languages whose rules share a map builder
(JavaScript and TypeScript) share one map, built from the files of all of them.
"""

from __future__ import annotations

from spider.indexer.languages import rules_for
from spider.indexer.languages.rules import Module, ModuleMap
from spider.indexer.parse.facts import FileFacts

__all__ = ["Module", "ModuleIndex"]


class ModuleIndex:
    def __init__(self, files: dict[str, FileFacts]) -> None:
        self.files = files
        self._maps: dict[str, ModuleMap] = {}  # language -> its map

    def of(self, language: str) -> ModuleMap:
        """The module map a file of `language` resolves its imports in."""
        found = self._maps.get(language)
        if found is None:
            build = rules_for(language).modules
            sharing = {f.language for f in self.files.values() if rules_for(f.language).modules is build} | {language}
            found = build({p: f for p, f in self.files.items() if f.language in sharing})
            self._maps.update(dict.fromkeys(sharing, found))
        return found
