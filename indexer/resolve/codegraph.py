"""Parsed files of one snapshot -> the LocAgent-style graph: nodes, CONTAINS edges, and resolved references."""

from __future__ import annotations

import posixpath
from typing import Callable

from spider.core.records import ROOT_DIRECTORY, CodeGraph, GraphEdge, GraphNode, content_hash, entity_id
from spider.core.schema import Label, Rel
from spider.indexer.languages import rules_for
from spider.indexer.languages.rules import Exports
from spider.indexer.parse.facts import FileFacts
from spider.indexer.resolve.references import resolve_edges


def keeps_file(facts: FileFacts) -> bool:
    """A file with no class or function is a node only if it imports (or re-exports) something, is a manifest
    that names a module (go.mod: imports of the files under it resolve through it), or is a file of a language
    whose files see what they include (C: a header of prototypes, macros or types alone is what an `#include`
    names, and what keeps it from naming another file of the same name)."""
    linked = rules_for(facts.language).exports is Exports.LINKED
    return bool(facts.entities or facts.imports or any(e.module for e in facts.exports) or facts.module or linked)


def build_graph(
    files: dict[str, FileFacts], repo_name: str, file_code: dict[str, str],
    copied: dict[str, dict[str, str]] | None = None,
    resolve: Callable[[dict[str, FileFacts]], list[GraphEdge]] = resolve_edges,
) -> CodeGraph:
    """The whole snapshot's edges; its nodes, except those of the files in `copied` (incremental indexing: they
    are unchanged since the base snapshot, whose nodes of them are copied; their facts carry no code, `copied`
    maps each to its functions' content hashes). `resolve` turns the kept files' facts into IMPORTS, INVOKES and
    INHERITS edges."""
    copied = copied or {}
    kept = {path: facts for path, facts in files.items() if keeps_file(facts)}
    graph = CodeGraph(copied={path for path in copied if path in kept})
    directories: set[str] = set()
    for path in kept:
        directory = posixpath.dirname(path)
        while directory and directory not in directories:
            directories.add(directory)
            directory = posixpath.dirname(directory)
    if kept:
        graph.nodes.append(GraphNode(Label.DIRECTORY, ROOT_DIRECTORY, repo_name, ""))
        graph.labels[ROOT_DIRECTORY] = Label.DIRECTORY
    for directory in sorted(directories):
        graph.nodes.append(GraphNode(Label.DIRECTORY, directory, posixpath.basename(directory), directory))
        graph.labels[directory] = Label.DIRECTORY
        graph.edges.append(GraphEdge(Rel.CONTAINS, posixpath.dirname(directory) or ROOT_DIRECTORY, directory))
    for path, facts in sorted(kept.items()):
        build_nodes = path not in graph.copied
        if build_nodes:
            code = file_code[path]
            graph.nodes.append(
                GraphNode(
                    Label.FILE, path, posixpath.basename(path), path, facts.language, "file",
                    1, max(1, code.count("\n") + (0 if code.endswith("\n") else 1)), code, content_hash(path, code),
                )
            )
        graph.labels[path] = Label.FILE
        graph.edges.append(GraphEdge(Rel.CONTAINS, posixpath.dirname(path) or ROOT_DIRECTORY, path))
        for entity in facts.entities:
            eid = entity_id(path, entity.qualname)
            graph.labels[eid] = entity.label
            if build_nodes or entity.label == Label.FUNCTION:  # a copied file's functions still need vectors
                entity_code = entity.code if build_nodes else None
                digest = content_hash(eid, entity.code) if build_nodes else copied[path][eid]
                (graph.nodes if build_nodes else graph.copied_functions).append(
                    GraphNode(entity.label, eid, entity.name, path, facts.language, entity.kind,
                              entity.start_line, entity.end_line, entity_code, digest)
                )
            parent = entity_id(path, entity.parent) if entity.parent else path
            graph.edges.append(GraphEdge(Rel.CONTAINS, parent, eid))
    graph.edges.extend(resolve(kept))
    return graph
