"""Where local state lives and which services to use, read from the environment once per call."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from spider.indexer.errors import ConfigurationError


def spider_home_path() -> Path:
    """SPIDER_HOME as set, without making it."""
    return Path(os.environ.get("SPIDER_HOME") or Path.home() / ".spider").expanduser()


def spider_home() -> Path:
    """All local state (Neo4j data, password, caches) lives under SPIDER_HOME (default ~/.spider), readable by
    its owner only: the caches hold pickles and the code of every indexed repository."""
    home = spider_home_path()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = home.stat()
    if status.st_uid == os.getuid() and status.st_mode & 0o077:
        home.chmod(0o700)
    return home


def path_name(name: str) -> str:
    """A file or folder name for `name` (a repository, a snapshot) that no other name gets: its letters, digits
    and `._-` (the rest as `_`, at most 40), then a hash of the exact name, so `team/x` and `team x` differ."""
    readable = re.sub(r"[^\w.-]", "_", name, flags=re.ASCII)[:40].lstrip(".")
    return f"{readable}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def snapshot_cache_dir(repo: str, snapshot: str) -> Path:
    """Where spider-query keeps what it derives from a complete snapshot, so a query does not derive it again:
    the BM25 index, the functions as vector-search members (`spider snapshots delete` removes it)."""
    return spider_home() / "snapshots" / path_name(repo) / path_name(snapshot)


@dataclass(frozen=True)
class Neo4jSettings:
    uri: str
    user: str
    password: str
    database: str = "neo4j"


NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def external_neo4j() -> Neo4jSettings | None:
    """The Neo4j named by NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD, or None to use the local one."""
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        return None
    return Neo4jSettings(
        uri=_neo4j_uri(uri),
        user=os.environ.get("NEO4J_USER", "neo4j"),
        password=os.environ.get("NEO4J_PASSWORD", ""),
        database=os.environ.get("NEO4J_DATABASE", "neo4j"),
    )


def _neo4j_uri(uri: str) -> str:
    """NEO4J_URI, checked here so that a bad one is a line that names it, not a driver traceback."""
    try:
        parts = urlsplit(uri)
        host, _port = parts.hostname, parts.port  # reading the port checks it
    except ValueError:  # a port that is no number in 0-65535, a broken IPv6 address
        host = None
    if not host or parts.scheme not in NEO4J_SCHEMES:
        raise ConfigurationError(f"NEO4J_URI {uri!r} is not a Neo4j URI: SCHEME://HOST[:PORT] with SCHEME one of "
                                 f"{', '.join(NEO4J_SCHEMES)}")
    if "@" in parts.netloc:
        raise ConfigurationError(f"NEO4J_URI {uri!r} holds credentials: put them in NEO4J_USER and NEO4J_PASSWORD")
    return uri


BROKER_ENV = "SPIDER_BROKER_URL"  # Celery broker (redis://… or amqp://…); unset: tasks run eagerly in-process
QUEUES = ("parse", "write", "embed")  # Celery queues: tree-sitter batches, resolve + Neo4j write, embeddings


def broker_url() -> str | None:
    return os.environ.get(BROKER_ENV) or None


def _positive_int(variable: str, default: int) -> int:
    """The whole number `variable` holds: ASCII digits only (str.isdigit also takes '²', which int() refuses)."""
    value = os.environ.get(variable) or str(default)
    if not re.fullmatch(r"[0-9]+", value) or int(value) == 0:
        raise ConfigurationError(f"{variable} must be a positive whole number, not {value!r}")
    return int(value)


def visibility_timeout() -> int:
    """Seconds before the broker hands an unacknowledged task (its worker died) to another worker."""
    return _positive_int("SPIDER_VISIBILITY_TIMEOUT", 4 * 3600)


PARSE_CACHE_MB = 1024  # default bound on the parse cache: ~200,000 files' results at the 5.2 KB each of the dev eval


def parse_cache_max_mb() -> int:
    """The parse cache's bound on stored results, in MiB."""
    return _positive_int("SPIDER_PARSE_CACHE_MB", PARSE_CACHE_MB)


def cypher_timeout() -> int:
    """Seconds an analyst's Cypher statement may run before the server stops it."""
    return _positive_int("SPIDER_CYPHER_TIMEOUT", 60)
