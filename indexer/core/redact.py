"""Secrets never leave spider: every message, log line and output a command writes passes through `redact`,
which masks the password of any URI and the values of the secret-bearing settings in use.

Which settings are in use is said by the doors, not read here: each door (a CLI command, a Celery task, the public
API's `open_stores`) hands the `Settings` it resolved to `mask_secrets_of` once, and from then on every output of
the process masks their secret values, the passwords of their URLs and the local Neo4j server's passwords kept
under their home, whether the settings came from the environment or were given (`Settings(neo4j_password=...)`,
which no environment variable holds). `redact` is called from printing and logging everywhere, so it cannot be
handed settings by its caller; a registry the doors fill is how it learns them.

Masking is defence, not configuration: on top of what the doors registered, `secrets` also masks the secret
variables the environment holds when it is called (`Settings.from_env()`), so a secret the process can see is
masked even where no door has resolved it yet (a log line of a library, a test that sets a variable and prints).
That read decides nothing spider does, only what it hides, and masking more than a door registered is never
weaker than before.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from spider.core.settings import Settings

MASK = "***"
# Shorter values are not masked where they appear as plain text (a URI's password always is): Neo4j refuses
# passwords under 8 characters, API keys are far longer, and masking a short word ("test") garbles every message.
SHORTEST_SECRET = 8
# scheme://user:PASSWORD@: the password runs to the last '@' before the path, so an unescaped '@' in it is masked
# too. A scheme is only looked for where a run of scheme characters starts: linear time on any text (from every
# position in the run, a long run of letters cost quadratic time: 6 s for 20,000 letters).
_URI_PASSWORD = re.compile(r"((?<![A-Za-z0-9+.-])[A-Za-z0-9+.-]+://[^\s/?#@:]*:)[^\s/?#]*@")
# https://TOKEN@host: git hosts take an access token as the user name with no password; a user name of a web URL
# that long is one (ssh://git@host keeps its login name).
_HTTP_TOKEN_USER = re.compile(r"((?<![A-Za-z0-9+.-])https?://)[^\s/?#@:]{%d,}@" % SHORTEST_SECRET)


def _uri_password(uri: str) -> str:
    """The password of a URI given as a setting, found even where it holds a '/' that a URI parser would stop at."""
    userinfo, at, _ = uri.partition("://")[2].rpartition("@")
    return userinfo.partition(":")[2] if at else ""


# What the doors said is in use (`mask_secrets_of`): secret values, URLs whose passwords are secret, homes whose
# local Neo4j passwords are. Only ever added to, under a lock: a process resolves a few settings in its life.
_registered_values: set[str] = set()
_registered_urls: set[str] = set()
_registered_homes: set[Path] = set()
_registering = threading.Lock()


def mask_secrets_of(settings: Settings) -> None:
    """Mask the secrets `settings` hold in every output of this process from now on: their secret values, the
    passwords of their URLs, and the passwords of the local Neo4j server under their home. A door calls this with
    the settings it resolved (more than once is harmless)."""
    values, urls = settings.secret_values()
    with _registering:
        _registered_values.update(values)
        _registered_urls.update(urls)
        _registered_homes.add(settings.home)


def secrets() -> set[str]:
    """The secret values in use now, each as written and as it appears quoted, escaped or percent-encoded: those of
    the settings the doors registered and those the environment holds."""
    held = Settings.from_env()  # defence, not configuration: see the module's docstring
    held_values, held_urls = held.secret_values()
    with _registering:
        values = [*_registered_values, *held_values]
        urls = [*_registered_urls, *held_urls]
        homes = {*_registered_homes, held.home}
    values += [_uri_password(url) for url in urls]
    for home in homes:
        for name in ("password", "reader-password"):  # the local server's users: neo4j and the read-only reader
            with contextlib.suppress(OSError, UnicodeDecodeError):
                values.append((home / "neo4j" / name).read_text().strip())
    values += [unquote(value) for value in values]
    forms = {form for value in values for form in (value, json.dumps(value)[1:-1], repr(value)[1:-1], quote(value))}
    return {form for form in forms if len(form) >= SHORTEST_SECRET}


def redact(text: str) -> str:
    """`text` with every URI password, access token in a web URL and secret value in use replaced by ***."""
    text = _URI_PASSWORD.sub(lambda match: f"{match[1]}{MASK}@", text)
    text = _HTTP_TOKEN_USER.sub(lambda match: f"{match[1]}{MASK}@", text)
    known = sorted(secrets(), key=len, reverse=True)  # longest first: a secret that holds another is masked whole
    return re.sub("|".join(map(re.escape, known)), MASK, text) if known else text


class RedactingStream:
    """A text stream that redacts what is written through it; everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def redacted_output() -> Iterator[None]:
    """While a command runs, what it prints (messages, tables, JSON, progress) and what it logs is redacted."""
    _redact_log_records()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(stdout), RedactingStream(stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _redact_log_records() -> None:
    """Make every log record carry its message and traceback already redacted, whichever handler (Celery's, the
    driver's, one configured later) formats it: a filter on the root logger would miss its children's records."""
    make_record = logging.getLogRecordFactory()
    if getattr(make_record, "redacts", False):
        return

    def redacted_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments that do not fit the message: show both, as logging would
            message = f"{record.msg} {record.args!r}"
        record.msg, record.args = redact(message), None
        if record.exc_info:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return record

    redacted_record.redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(redacted_record)


def public_url(url: str, unreadable: str = "QDRANT_URL") -> str:
    """`url` without user, password, query and fragment: what may be shown and recorded of it (`unreadable`, the
    setting's name, where it does not parse)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return unreadable
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


__all__ = ["MASK", "RedactingStream", "mask_secrets_of", "public_url", "redact", "redacted_output", "secrets"]
