"""Where local state lives and which services to use: every environment variable spider reads is read and checked
here, by `Settings.from_env()`.

The environment is read at the doors, once: a CLI command (`spider.cli.error_handler.fail_cleanly`), the MCP
server (started by `spider mcp`, a CLI command), a Celery task (`indexer.distributed.tasks`) and the public API
(`open_stores()` given no settings). Never at import, so a variable set before a call is seen by it. A door passes
the `Settings` it resolved down, and what it opens (the graph, the vector store, the embedding model, the parse
cache, the selectors) follows that object, as a client follows its constructor's arguments: nothing below the
doors reads the environment (tests/unit/test_no_env_below_doors.py). A `Settings(...)` made in code reads no
environment either: what it is not given is the default. The exceptions are named here and listed, with their
callers, in that test: `settings_or_env` and `spider_home_path`, for functions that tests and scripts still call
without settings. A checked value is checked where it is used (a
bad SPIDER_LLM_TIMEOUT fails a query that calls an LLM, not an index run)."""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from spider.core.errors import ConfigurationError


def default_home() -> Path:
    """Where local state lives when SPIDER_HOME (or `Settings.home`) names no place: ~/.spider."""
    return Path.home() / ".spider"


def spider_home_path() -> Path:
    """SPIDER_HOME as set, without making it: the environment's home, for a door and for `settings_or_env`."""
    return Path(os.environ.get("SPIDER_HOME") or default_home()).expanduser()


def private_dir(home: Path) -> Path:
    """`home`, made if need be and readable by its owner only: the caches hold pickles and the code of every
    indexed repository."""
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


def snapshot_cache_dir(repo: str, snapshot: str, home: Path) -> Path:
    """Where this machine keeps what it derives from a snapshot, so that neither indexing nor a query derives it
    again: the digest and resolution state the next incremental run starts from, the BM25 index, the functions as
    vector-search members (`spider snapshots delete` removes it). Under `home`, a `Settings.home`."""
    return private_dir(home) / "snapshots" / path_name(repo) / path_name(snapshot)


@dataclass(frozen=True)
class Neo4jSettings:
    uri: str
    user: str
    password: str
    database: str = "neo4j"


NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
EMBED_MODEL_ENV = "SPIDER_EMBED_MODEL"  # the embedding model when a command names none
BROKER_ENV = "SPIDER_BROKER_URL"  # Celery broker (redis://… or amqp://…); unset: tasks run eagerly in-process
QUEUES = ("parse", "write", "embed")  # Celery queues: tree-sitter batches, resolve + Neo4j write, embeddings
PARSE_CACHE_MB = 1024  # default bound on the parse cache: ~200,000 files' results at the 5.2 KB each of the dev eval
ISSUE_TOKENS = 4_000  # default of SPIDER_LLM_ISSUE_TOKENS
# The settings whose values are secrets, and those that are URLs whose passwords are: `indexer.redact` masks them.
SECRET_VARIABLES = ("NEO4J_PASSWORD", "QDRANT_API_KEY", "ANTHROPIC_API_KEY", "SPIDER_OPENAI_API_KEY",
                    "SPIDER_MCP_TOKEN")
URL_VARIABLES = ("NEO4J_URI", "SPIDER_BROKER_URL", "SPIDER_RESULT_BACKEND", "QDRANT_URL", "SPIDER_OPENAI_BASE_URL")


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


def _positive_int(variable: str, value: str | None, default: int) -> int:
    """The whole number `variable` holds: ASCII digits only (str.isdigit also takes '²', which int() refuses)."""
    value = value or str(default)
    if not re.fullmatch(r"[0-9]+", value) or int(value) == 0:
        raise ConfigurationError(f"{variable} must be a positive whole number, not {value!r}")
    return int(value)


@dataclass(frozen=True)
class QdrantSettings:
    """QDRANT_URL (and QDRANT_API_KEY): a Qdrant server; no URL: the local vector store under SPIDER_HOME."""

    url: str | None = None
    api_key: str | None = None


@dataclass(frozen=True)
class CelerySettings:
    broker_url: str | None = None  # SPIDER_BROKER_URL; None: tasks run eagerly in-process
    result_backend: str | None = None  # SPIDER_RESULT_BACKEND; None: the broker
    visibility_timeout_setting: str | None = None  # SPIDER_VISIBILITY_TIMEOUT as written

    @property
    def visibility_timeout(self) -> int:
        """Seconds before the broker hands an unacknowledged task (its worker died) to another worker."""
        return _positive_int("SPIDER_VISIBILITY_TIMEOUT", self.visibility_timeout_setting, 4 * 3600)

    @property
    def sweep_interval(self) -> int:
        """Seconds between a worker's sweeps for tasks to hand out again: a tenth of the visibility timeout, at
        most 100 (kombu's default sweep, every 100 s whatever the timeout, would dominate a short one)."""
        return min(100, max(1, self.visibility_timeout // 10))


@dataclass(frozen=True)
class CacheSettings:
    parse_cache: str = ""  # SPIDER_PARSE_CACHE: its file; "off": none; empty: SPIDER_HOME/parse-cache.sqlite3
    parse_cache_mb_setting: str | None = None  # SPIDER_PARSE_CACHE_MB as written
    repo_cache: str | None = None  # SPIDER_REPO_CACHE: where `spider index-org` keeps its clones

    @property
    def parse_cache_max_mb(self) -> int:
        """The parse cache's bound on stored results, in MiB."""
        return _positive_int("SPIDER_PARSE_CACHE_MB", self.parse_cache_mb_setting, PARSE_CACHE_MB)

    def repo_cache_dir(self, home: Path) -> Path:
        """Where `spider org index` keeps its mirrors: SPIDER_REPO_CACHE, else `home`/repo-cache."""
        return Path(self.repo_cache or private_dir(home) / "repo-cache").expanduser()

    def parse_cache_file(self, home: Path) -> Path | None:
        """The parse cache's file: SPIDER_PARSE_CACHE, else `home`/parse-cache.sqlite3; None when it is "off"."""
        if self.parse_cache.lower() == "off":
            return None
        return Path(self.parse_cache) if self.parse_cache else private_dir(home) / "parse-cache.sqlite3"


@dataclass(frozen=True)
class LLMSettings:
    """The LLM selectors' settings: which endpoint, which model, how long to wait, how much of the issue to send."""

    anthropic_api_key: str | None = None  # ANTHROPIC_API_KEY
    anthropic_base_url: str | None = None  # ANTHROPIC_BASE_URL; None: the Messages API's own
    anthropic_model: str | None = None  # SPIDER_ANTHROPIC_MODEL
    openai_base_url: str | None = None  # SPIDER_OPENAI_BASE_URL: any OpenAI-compatible chat endpoint
    openai_model: str | None = None  # SPIDER_OPENAI_MODEL
    openai_api_key: str | None = None  # SPIDER_OPENAI_API_KEY
    cache: str | None = None  # SPIDER_LLM_CACHE: the answer cache; None: `Settings.home`/llm-cache
    timeout_setting: str = "60"  # SPIDER_LLM_TIMEOUT as written
    issue_tokens_setting: str | None = None  # SPIDER_LLM_ISSUE_TOKENS as written

    @property
    def timeout(self) -> float:
        """SPIDER_LLM_TIMEOUT: a positive number of seconds."""
        try:
            seconds = float(self.timeout_setting)
        except ValueError:
            seconds = math.nan
        if not 0 < seconds < math.inf:
            raise ConfigurationError(
                f"SPIDER_LLM_TIMEOUT must be a positive number of seconds, not {self.timeout_setting!r}")
        return seconds

    def cache_dir(self, home: Path) -> Path:
        """Where the LLM selectors' answers are cached: SPIDER_LLM_CACHE, else `home`/llm-cache."""
        return Path(self.cache) if self.cache else private_dir(home) / "llm-cache"

    @property
    def issue_tokens(self) -> int:
        """SPIDER_LLM_ISSUE_TOKENS: how much of the issue each selector call may send (unset or empty: ISSUE_TOKENS)."""
        value = self.issue_tokens_setting or str(ISSUE_TOKENS)
        if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:
            raise ConfigurationError(
                f"SPIDER_LLM_ISSUE_TOKENS must be a whole number of tokens (at least 1), got {value!r}")
        return int(value)


@dataclass(frozen=True)
class LocalNeo4jSettings:
    """What starting the local Neo4j needs: a JDK and the launcher project."""

    java_home: str | None = None  # JAVA_HOME: used when it is new enough, else the newest JDK installed
    launcher_dir: str | None = None  # SPIDER_NEO4J_LAUNCHER_DIR; None: deploy/neo4j of this checkout


@dataclass(frozen=True)
class Settings:
    """Every setting spider reads from the environment, read at once (`from_env`) or given (`Settings(...)`: what
    is not given is the default, never the environment's); checked values are checked when used."""

    home: Path = field(default_factory=default_home)  # SPIDER_HOME: all local state
    neo4j_uri: str | None = None  # NEO4J_URI; None: the local server
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str = "neo4j"
    local_neo4j: LocalNeo4jSettings = field(default_factory=LocalNeo4jSettings)
    qdrant: QdrantSettings = field(default_factory=QdrantSettings)
    embed_model: str | None = None  # SPIDER_EMBED_MODEL; None: the built-in default
    celery: CelerySettings = field(default_factory=CelerySettings)
    caches: CacheSettings = field(default_factory=CacheSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    learned_model: str | None = None  # SPIDER_LEARNED_MODEL; None: the shipped model
    cypher_timeout_setting: str | None = None  # SPIDER_CYPHER_TIMEOUT as written
    debug: bool = False  # SPIDER_DEBUG=1: tracebacks with every error
    mcp_token: str | None = field(default=None, repr=False)  # SPIDER_MCP_TOKEN: what `spider mcp --http` requires
    secrets: tuple[str, ...] = ()  # the values of SECRET_VARIABLES
    secret_urls: tuple[str, ...] = ()  # the values of URL_VARIABLES

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        get = environ.get
        return cls(
            home=Path(get("SPIDER_HOME") or default_home()).expanduser(),
            neo4j_uri=get("NEO4J_URI") or None,
            neo4j_user=get("NEO4J_USER", "neo4j"),
            neo4j_password=get("NEO4J_PASSWORD", ""),
            neo4j_database=get("NEO4J_DATABASE", "neo4j"),
            local_neo4j=LocalNeo4jSettings(java_home=get("JAVA_HOME") or None,
                                           launcher_dir=get("SPIDER_NEO4J_LAUNCHER_DIR") or None),
            qdrant=QdrantSettings(url=get("QDRANT_URL") or None, api_key=get("QDRANT_API_KEY")),
            embed_model=get(EMBED_MODEL_ENV) or None,
            celery=CelerySettings(broker_url=get(BROKER_ENV) or None,
                                  result_backend=get("SPIDER_RESULT_BACKEND") or None,
                                  visibility_timeout_setting=get("SPIDER_VISIBILITY_TIMEOUT")),
            caches=CacheSettings(parse_cache=get("SPIDER_PARSE_CACHE", ""),
                                 parse_cache_mb_setting=get("SPIDER_PARSE_CACHE_MB"),
                                 repo_cache=get("SPIDER_REPO_CACHE") or None),
            llm=LLMSettings(anthropic_api_key=get("ANTHROPIC_API_KEY") or None,
                            anthropic_base_url=get("ANTHROPIC_BASE_URL") or None,
                            anthropic_model=get("SPIDER_ANTHROPIC_MODEL") or None,
                            openai_base_url=get("SPIDER_OPENAI_BASE_URL") or None,
                            openai_model=get("SPIDER_OPENAI_MODEL") or None,
                            openai_api_key=get("SPIDER_OPENAI_API_KEY") or None,
                            cache=get("SPIDER_LLM_CACHE") or None,
                            timeout_setting=get("SPIDER_LLM_TIMEOUT", "60"),
                            issue_tokens_setting=get("SPIDER_LLM_ISSUE_TOKENS")),
            learned_model=get("SPIDER_LEARNED_MODEL") or None,
            cypher_timeout_setting=get("SPIDER_CYPHER_TIMEOUT"),
            debug=get("SPIDER_DEBUG") == "1",
            mcp_token=get("SPIDER_MCP_TOKEN") or None,
            secrets=tuple(get(variable, "") for variable in SECRET_VARIABLES),
            secret_urls=tuple(get(variable, "") for variable in URL_VARIABLES),
        )

    def home_dir(self) -> Path:
        """`home`, made if need be, readable by its owner only (`private_dir`)."""
        return private_dir(self.home)

    def secret_values(self) -> tuple[list[str], list[str]]:
        """(secret values, URLs whose passwords are secret) these settings hold: the fields `SECRET_VARIABLES`
        and `URL_VARIABLES` fill, as given or as read, with what `from_env` recorded of those variables."""
        given = [self.neo4j_password, self.qdrant.api_key, self.llm.anthropic_api_key, self.llm.openai_api_key,
                 self.mcp_token]
        urls = [self.neo4j_uri, self.celery.broker_url, self.celery.result_backend, self.qdrant.url,
                self.llm.openai_base_url, self.llm.anthropic_base_url]
        return ([value for value in (*given, *self.secrets) if value],
                [value for value in (*urls, *self.secret_urls) if value])

    @property
    def neo4j(self) -> Neo4jSettings | None:
        """The Neo4j named by NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD, or None to use the local one (which reading
        settings never starts: `neo4j_local.ensure_running` does)."""
        if not self.neo4j_uri:
            return None
        return Neo4jSettings(uri=_neo4j_uri(self.neo4j_uri), user=self.neo4j_user, password=self.neo4j_password,
                             database=self.neo4j_database)

    @property
    def cypher_timeout(self) -> int:
        """Seconds an analyst's Cypher statement may run before the server stops it."""
        return _positive_int("SPIDER_CYPHER_TIMEOUT", self.cypher_timeout_setting, 60)


def settings_or_env(settings: Settings | None) -> Settings:
    """`settings`, or, where a caller gave none, the environment's (`Settings.from_env()`). For the functions that
    tests, bench scripts and modules not yet handed a door's settings call without them; the pipeline under the
    doors always passes its settings (tests/unit/test_no_env_below_doors.py lists the modules that call this)."""
    return settings if settings is not None else Settings.from_env()
