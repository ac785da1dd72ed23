"""The one exception type the CLI turns into a one-line message and a non-zero exit."""


class SpiderError(Exception):
    """A user-facing failure: bad input, an unreachable service, a missing tool.

    The message is one line, says what is wrong and, where possible, what to do.
    """

    exit_code = 2


class StoreBusy(SpiderError):
    """The local (embedded) vector store is held by another process: waiting and trying again will work."""
