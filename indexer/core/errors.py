"""The failures spider foresees, one class each, so that a caller handles the one it means and lets the rest through.
Public, as `neo4j.exceptions` is: `spider.indexer` re-exports them all.

Every message is one line that says what is wrong and, where possible, what to do; the CLI prints it and exits
non-zero (which exit code a class gets is the CLI's business, not the exception's).

    SpiderError
     +-- ConfigurationError      a setting (environment variable, registered model, installed tool) is unusable
     +-- InvalidInput            what a command was given is malformed (an option, a manifest, a parameter)
     |    +-- RefusedQuery       an analyst's Cypher that is not a side-effect-free read of the graph
     +-- ServiceUnavailable      Neo4j, Qdrant or the Celery broker cannot be reached, refuses us, or fails
     +-- NotFound                what was named does not exist
     |    +-- RepositoryNotFound     a git repository, or a repository in the graph
     |    +-- RevisionNotFound       a commit, in a git repository
     |    +-- SnapshotNotFound       an indexed snapshot, in the graph
     +-- CorruptRepository       git cannot read an object the commit needs
     +-- SnapshotConflict        another run deleted or rewrote the snapshot this one is writing
     +-- StoreBusy               a local shard, or a repository's writer lease, is held by another process
     +-- CorruptStore            the local vector store's files are damaged: delete and rebuild it
     +-- LimitExceeded           a query needed more than a service allows it (Neo4j's memory per transaction)
     +-- OutOfSpace              a disk spider writes to lacks the room an operation needs
     +-- SelectorFailed          Stage 2 could not decide (caught per seed: the seed admits nothing)
          +-- LLMFailure         the model gave no answer
          +-- MalformedAnswer    the model's answer is not the JSON asked for
"""


class SpiderError(Exception):
    """A user-facing failure: bad input, an unreachable service, a missing tool."""


class ConfigurationError(SpiderError):
    """A setting is unusable: a malformed environment variable, a model or tool that is missing or wrong."""


class InvalidInput(SpiderError):
    """What a command was given (an option, a manifest, a query parameter, a benchmark file) is malformed."""


class RefusedQuery(InvalidInput):
    """An analyst statement that is not a side-effect-free read of the code graph."""


class ServiceUnavailable(SpiderError):
    """A service spider uses (Neo4j, Qdrant, the Celery broker) cannot be reached, refuses us, or fails."""


class NotFound(SpiderError):
    """What was named does not exist."""


class RepositoryNotFound(NotFound):
    """No git repository at the path, or no repository of that name in the graph."""


class RevisionNotFound(NotFound):
    """A git repository does not have the commit named."""


class SnapshotNotFound(NotFound):
    """No complete indexed snapshot matches what was named."""


class CorruptRepository(SpiderError):
    """git cannot read an object (a commit, a tree, a blob) that indexing needs."""


class SnapshotConflict(SpiderError):
    """Another run deleted or rewrote the snapshot this run is writing or building on."""


class StoreBusy(SpiderError):
    """A shard of the local (embedded) vector store, or a repository's writer lease, is held by another process:
    waiting and trying again will work."""


class OutOfSpace(SpiderError):
    """A disk lacks the room an operation needs: checked before it starts, since a store of memory-mapped files
    that runs out of room mid-write is killed (SIGBUS) instead of told."""


class CorruptStore(SpiderError):
    """The local vector store's files are damaged (truncated, overwritten): only rebuilding it helps."""


class LimitExceeded(SpiderError):
    """A query needed more than a service lets one query have (Neo4j's memory per transaction)."""


class SelectorFailed(SpiderError):
    """A Stage 2 selector could not decide for a seed; the selector catches it and the seed admits nothing."""


class LLMFailure(SelectorFailed):
    """A call that produced no answer; `status` is what the query output reports for the seed."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status


class MalformedAnswer(SelectorFailed, ValueError):
    """The model's answer holds no JSON object with a list of ids under "selected"."""


__all__ = [
    "ConfigurationError",
    "CorruptRepository",
    "CorruptStore",
    "InvalidInput",
    "LLMFailure",
    "LimitExceeded",
    "MalformedAnswer",
    "NotFound",
    "OutOfSpace",
    "RefusedQuery",
    "RepositoryNotFound",
    "RevisionNotFound",
    "SelectorFailed",
    "ServiceUnavailable",
    "SnapshotConflict",
    "SnapshotNotFound",
    "SpiderError",
    "StoreBusy",
]
