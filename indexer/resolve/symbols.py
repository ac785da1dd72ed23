"""The symbol tables references are resolved in (`references`), built once per snapshot from the files' facts:
entities by id, the names each scope binds, each scope's imports, the repo's methods by name, the bases of classes
found so far and C's declarations. Also the frames that record what a file's resolution reads outside the file.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Union

from spider.core.records import entity_id
from spider.core.schema import Label, Resolution
from spider.indexer.languages import rules_for, split_entity_id
from spider.indexer.languages.rules import Exports
from spider.indexer.parse.facts import Entity, FileFacts, Import, binds_name
from spider.indexer.resolve.modules import Module, ModuleIndex

Target = Union[str, Module]  # an entity id, or a module (file / directory / Java package)
EXTERNAL = Module("<external>", is_dir=True)  # known to live outside the repo: never guessed at
Found = tuple[list[Target], Resolution]
OUTSIDE: Found = ([], Resolution.IMPORT)  # lookup result for a name imported from outside the repo
MAX_DEPTH = 12  # re-export chains and inheritance deeper than this are given up on (and cycles end)
Read = Union[str, tuple[str, ...]]  # a file path, ("method", language, name) or ("bases", path)


class SymbolTables:
    """What the snapshot defines, indexed for lookups, and the record of what is read (the base of `Resolver`)."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        self.files = files
        self.modules = ModuleIndex(files)
        self.entities: dict[str, tuple[str, Entity]] = {}
        self.children: dict[str, dict[str, list[Target]]] = defaultdict(lambda: defaultdict(list))  # entity ids
        self.imports: dict[tuple[str, str | None], dict[str, Import]] = defaultdict(dict)
        self.star_imports: dict[tuple[str, str | None], list[Import]] = defaultdict(list)
        self.methods_by_name: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.bases: dict[str, list[str]] = {}
        self.declared: dict[str, set[str]] = defaultdict(set)  # LINKED files -> the names they declare
        self.linked: dict[tuple[str, str], list[str]] = defaultdict(list)  # (language, name) -> external definitions
        for path, facts in files.items():
            bound = []
            for entity in facts.entities:
                eid = entity_id(path, entity.qualname)
                self.entities[eid] = (path, entity)
                bound.append(binds_name(entity))
                if bound[-1]:
                    owner = entity_id(path, entity.parent) if entity.parent else path
                    self.children[owner][entity.name].append(eid)
            for entity, binds in zip(facts.entities, bound):
                if entity.label == Label.FUNCTION and self._is_member(path, entity, binds):
                    self.methods_by_name[(facts.language, entity.name)].append(entity_id(path, entity.qualname))
            if rules_for(facts.language).exports is Exports.LINKED:
                for export in facts.exports:
                    self.declared[path].add(export.name)
                    if export.local is not None:
                        self.linked[(facts.language, export.name)].append(entity_id(path, export.local))
            for imp in facts.imports:
                if imp.name == "*":
                    self.star_imports[(path, imp.scope)].append(imp)
                elif imp.alias:
                    self.imports[(path, imp.scope)][imp.alias] = imp
        self._reads: list[set[Read]] = []  # one frame per file and per import being resolved

    def _is_member(self, path: str, entity: Entity, binds: bool) -> bool:
        """A method of a class, or (JS) a function stored as a member (`proto.m = function`, `{ m() {} }`: its
        definition does not bind its name)."""
        parent = self.entities.get(entity_id(path, entity.parent)) if entity.parent else None
        return (parent is not None and parent[1].label == Label.CLASS) or not binds

    def _is_class(self, eid: str) -> bool:
        return eid in self.entities and self.entities[eid][1].label == Label.CLASS

    # what a file's resolution reads ---------------------------------------------
    def _read(self, key: Read) -> None:
        """Record a read of something outside the file being resolved (a changed file is always resolved again,
        so its own facts need no record)."""
        if self._reads:
            self._reads[-1].add(key)

    def _file_of(self, eid: str) -> str:
        return self.entities[eid][0] if eid in self.entities else split_entity_id(eid)[0]

    def _bases_of(self, eid: str) -> list[str]:
        """The bases of class `eid`, which its file's inheritance pass found."""
        path = self._file_of(eid)
        self._read(path)
        self._read(("bases", path))
        return self.bases.get(eid, [])

