"""Every label, relationship type and property key of the code graph, in one place.

Cypher files under cypher/ use the same literal names; tests check they agree.
"""

from enum import StrEnum


class Label(StrEnum):
    DIRECTORY = "Directory"
    FILE = "File"
    CLASS = "Class"
    FUNCTION = "Function"
    SNAPSHOT = "Snapshot"
    REPOSITORY = "Repository"  # a repository's write lock and head snapshot number
    INDEX_JOB = "IndexJob"  # an enqueued index run (`spider index --async`, `spider jobs`)


class Rel(StrEnum):
    CONTAINS = "CONTAINS"
    IMPORTS = "IMPORTS"
    INVOKES = "INVOKES"
    INHERITS = "INHERITS"


class Resolution(StrEnum):
    """How an IMPORTS/INVOKES/INHERITS target was found (property `resolution` on the edge)."""

    EXACT = "exact"  # lexical scope of the same file, or self/this/super
    IMPORT = "import"  # through an import, a re-export chain or a package's implicit scope
    HEURISTIC = "heuristic"  # a guess: receiver type inferred from an assignment, or a repo-unique method name


class Prop(StrEnum):
    REPO = "repo"
    ID = "id"
    SINCE = "since"  # a node or relationship version is part of the snapshots numbered since <= seq < until
    UNTIL = "until"
    NAME = "name"
    PATH = "path"
    START_LINE = "start_line"
    END_LINE = "end_line"
    LANGUAGE = "language"
    CODE = "code"
    CONTENT_HASH = "content_hash"
    KIND = "kind"
    RESOLUTION = "resolution"
    # Snapshot node only
    SNAPSHOT = "snapshot"  # the commit sha
    SEQ = "seq"  # its number in the repository's versioned graph
    WRITER = "writer"  # the token of the write that made its graph
    COMPLETE = "complete"
    REV = "rev"
    INDEXED_AT = "indexed_at"
    STATS = "stats"


NODE_LABELS = (Label.DIRECTORY, Label.FILE, Label.CLASS, Label.FUNCTION)
