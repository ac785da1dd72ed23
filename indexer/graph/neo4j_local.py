"""The Neo4j server spider starts itself on 127.0.0.1 when NEO4J_URI is not set.

It is Neo4j Community run embedded by the small Java launcher in deploy/neo4j, built with Maven on
first use. Bolt and Neo4j Browser (HTTP) listen on 127.0.0.1 only. State lives in HOME/neo4j (HOME: the
`Settings.home` each function is given; given none, the environment's SPIDER_HOME): data/
(the database), password (the `neo4j` user's, 0600, made once), reader-password (the read-only `reader` user's,
for analysts in Neo4j Browser, 0600, made once), server.json (pid, Bolt and HTTP ports, java, versions),
neo4j.log (launcher output) and a lock file that keeps two spider processes from starting two servers.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple, TypeGuard

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, DriverError, Neo4jError
from spider.core.errors import ConfigurationError, ServiceUnavailable
from spider.core.settings import LocalNeo4jSettings, Neo4jSettings, Settings, settings_or_env
from spider.indexer.graph.store import GraphStore

HOST = "127.0.0.1"
DEFAULT_PORT = 7687
DEFAULT_HTTP_PORT = 7474
USER = "neo4j"
# The read-only user analysts log in to Neo4j Browser as: the launcher refuses its every write, schema change and
# administration command (deploy/neo4j/README.md).
READER = "reader"
MAIN_CLASS = "dev.spider.neo4j.Launcher"
READY = "SPIDER-NEO4J READY"
BROWSER = "SPIDER-NEO4J BROWSER"
FAILED = "SPIDER-NEO4J FAILED"
# Sized for a shared 2-core/24 GB machine; Neo4j wants -Xms fixed to -Xmx.
HEAP = "2g"
PAGECACHE = "512m"
# What Neo4j's own start script passes; without them it falls back to slower code paths.
JVM_OPENS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
]
JAR = "spider-neo4j-launcher.jar"
BIND_ATTEMPTS = 3


def graph_settings(settings: Settings) -> Neo4jSettings:
    """The Neo4j to use: the one NEO4J_URI names, else the local server, which this starts if need be (reading
    settings never starts it: a caller that may start a server says so by calling this)."""
    return settings.neo4j or ensure_running(settings)


def open_graph(settings: Settings) -> GraphStore:
    """The graph store on `graph_settings(settings)`: the local server is started if need be."""
    return GraphStore(graph_settings(settings), settings.home)


def ensure_running(settings: Settings | None = None, timeout: float = 120) -> Neo4jSettings:
    """Return settings for the local server under the settings' home, building and starting it first (with their
    JDK and launcher) if it is not running."""
    settings = settings_or_env(settings)
    local = settings.local_neo4j
    state = _state_dir(settings)
    with _locked(state):
        record = _read_record(state)
        password = _password(state)
        pid = record.get("pid")
        if _is_launcher(pid):
            running = _settings(record["port"], password)
            _wait_for_bolt(running, pid, time.monotonic() + timeout, state)
            return running
        return _start(state, record, password, timeout, local)


def stop(timeout: float = 60, settings: Settings | None = None) -> bool:
    """Shut the local server under the settings' home down (SIGTERM, SIGKILL after timeout); False if none was
    running."""
    state = _state_dir(settings_or_env(settings))
    with _locked(state):
        record = _read_record(state)
        pid = record.get("pid")
        if not _is_launcher(pid):
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _is_launcher(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _is_launcher(pid):
            os.kill(pid, signal.SIGKILL)
            while _is_launcher(pid):
                time.sleep(0.1)
        _write_record(state, {**record, "pid": None})
        return True


def status(settings: Settings | None = None) -> dict:
    """What `spider` knows about the local server under the settings' home, without starting it."""
    state = _state_dir(settings_or_env(settings))
    record = _read_record(state)
    running = _is_launcher(record.get("pid"))
    port = record.get("port")
    http_port = record.get("http_port")
    return {
        "running": running,
        "pid": record.get("pid") if running else None,
        "uri": f"bolt://{HOST}:{port}" if running else None,
        "port": port,
        "browser": browser_url(http_port) if running and http_port else None,
        "http_port": http_port,
        "reader": READER,
        "reader_password_file": str(state / "reader-password"),
        "data_dir": str(state / "data"),
        "neo4j_version": record.get("neo4j_version"),
        "browser_version": record.get("browser_version"),
        "java": record.get("java"),
    }


def browser_url(http_port: int) -> str:
    return f"http://{HOST}:{http_port}/browser/"


def reader_settings(settings: Settings | None = None) -> Neo4jSettings:
    """The read-only user's settings for the running local server (what an analyst logs in with)."""
    state = _state_dir(settings_or_env(settings))
    record = _read_record(state)
    if not _is_launcher(record.get("pid")):
        raise ServiceUnavailable("the local Neo4j is not running; start it with `spider neo4j start`")
    return Neo4jSettings(uri=f"bolt://{HOST}:{record['port']}", user=READER, password=_password(state, "reader-password"))


def _start(state: Path, record: dict, password: str, timeout: float, local: LocalNeo4jSettings) -> Neo4jSettings:
    """Launch the server; if another program takes the chosen port between choosing and binding, use another."""
    launcher_dir = _launcher_dir(local)
    versions = _pom_versions(launcher_dir)
    java, java_major = _find_java(versions.java_release, local.java_home)
    _build(launcher_dir, java)
    # Said, so that a first command that waits a minute for it is not silent (nor its "indexed in N s" a puzzle).
    print(f"spider: starting the local Neo4j in {state} (up to a minute the first time)…", file=sys.stderr)
    _password(state, "reader-password")
    port = _choose_port(record.get("port"), DEFAULT_PORT)
    http_port = _choose_port(record.get("http_port"), DEFAULT_HTTP_PORT, avoid=port)
    for _ in range(BIND_ATTEMPTS - 1):
        try:
            return _launch(state, java, java_major, versions, launcher_dir, port, http_port, password, timeout)
        except _PortTaken:
            port = _choose_port(None, DEFAULT_PORT, avoid=port)
            http_port = _choose_port(None, DEFAULT_HTTP_PORT, avoid=http_port, also_avoid=port)
    return _launch(state, java, java_major, versions, launcher_dir, port, http_port, password, timeout)


def _launch(
    state: Path, java: Path, java_major: int, versions: _Versions, launcher_dir: Path, port: int, http_port: int,
    password: str, timeout: float,
) -> Neo4jSettings:
    target = launcher_dir / "target"
    command = [
        str(java),
        f"-Xms{HEAP}",
        f"-Xmx{HEAP}",
        "-XX:+ExitOnOutOfMemoryError",
        # ExpressionGuard: Neo4j stops an expression (reduce, list comprehension) at its transaction's timeout or
        # cancel, refuses one that would walk a list of more than 10 million elements, and a statement whose
        # expressions built more than 256 MiB of strings and lists (deploy/neo4j/README.md).
        f"-javaagent:{target / JAR}",
        *JVM_OPENS,
        # Java 23+ warns on every sun.misc.Unsafe use unless told this is expected.
        *(["--sun-misc-unsafe-memory-access=allow"] if java_major >= 23 else []),
        "-cp",
        f"{target / JAR}{os.pathsep}{target / 'lib' / '*'}",
        MAIN_CLASS,
        "--home", str(state / "data"),
        "--port", str(port),
        "--password-file", str(state / "password"),
        "--http-port", str(http_port),
        "--reader-password-file", str(state / "reader-password"),
        "--pagecache", PAGECACHE,
    ]  # fmt: skip
    log_path = state / "neo4j.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=state,
            start_new_session=True,  # outlives this spider process and its Ctrl-C
        )
    _write_record(
        state,
        {"pid": process.pid, "port": port, "http_port": http_port, "java": str(java),
         "neo4j_version": versions.neo4j, "browser_version": versions.browser},
    )
    deadline = time.monotonic() + timeout
    # The launcher prints READY only after setting the password; trying it earlier would fail and
    # count towards Neo4j's lock-out of the user after repeated bad logins.
    while READY not in log_path.read_text(errors="replace"):
        if process.poll() is not None:
            if "Address already in use" in log_path.read_text(errors="replace"):
                raise _PortTaken(port)
            raise ServiceUnavailable(f"the local Neo4j failed to start: {_last_error(log_path)} (log: {log_path})")
        if time.monotonic() > deadline:
            raise ServiceUnavailable(
                f"the local Neo4j did not start within {timeout:.0f}s; see {log_path} and try again"
            )
        time.sleep(0.2)
    settings = _settings(port, password)
    _wait_for_bolt(settings, process.pid, deadline, state)
    return settings


def _wait_for_bolt(settings: Neo4jSettings, pid: int, deadline: float, state: Path) -> None:
    """Return once Bolt accepts our password; the server may still be busy with a large write."""
    while True:
        if not _is_launcher(pid):
            log_path = state / "neo4j.log"
            raise ServiceUnavailable(f"the local Neo4j exited: {_last_error(log_path)} (log: {log_path})")
        try:
            with GraphDatabase.driver(
                settings.uri, auth=(settings.user, settings.password), connection_timeout=5
            ) as driver:
                driver.verify_connectivity()
            return
        except AuthError:
            raise ServiceUnavailable(
                f"the local Neo4j (pid {pid}) rejects the password in {state / 'password'}; stop it and start it again to apply that file"
            ) from None
        except (DriverError, Neo4jError, OSError):
            if time.monotonic() > deadline:
                raise ServiceUnavailable(
                    f"the local Neo4j (pid {pid}) does not answer on {settings.uri}; see {state / 'neo4j.log'}, or stop it and start again"
                ) from None
            time.sleep(0.25)


def _build(launcher_dir: Path, java: Path) -> None:
    """Package the launcher unless target/ is newer than its sources (a version bump rebuilds it)."""
    jar = launcher_dir / "target" / JAR
    sources = [launcher_dir / "pom.xml", *(p for p in (launcher_dir / "src").rglob("*") if p.is_file())]
    if jar.exists() and (launcher_dir / "target" / "lib").is_dir():
        if jar.stat().st_mtime >= max(p.stat().st_mtime for p in sources):
            return
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ConfigurationError(
            "Maven (mvn) is needed once to build the local Neo4j launcher; install Maven 3.8+ or set NEO4J_URI to use an existing Neo4j"
        )
    print("spider: building the Neo4j launcher (first run, downloads from Maven Central)…", file=sys.stderr)
    # mvn compiles with JAVA_HOME, and Neo4j's jars need the same JDK version the server runs on.
    env = {**os.environ, "JAVA_HOME": str(java.parent.parent)}
    # clean: jars of a previous Neo4j version must not stay on the classpath.
    result = subprocess.run(
        [mvn, "-q", "-B", "clean", "package"],
        cwd=launcher_dir,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise ConfigurationError(f"building the Neo4j launcher failed: {_maven_error(result.stdout + result.stderr)}")


def _maven_error(output: str) -> str:
    """Maven's most telling error line: the 'Failed to execute goal' summary, else the last [ERROR]."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in output.splitlines()]
    boilerplate = ("-> [Help", "To see the full stack trace", "Re-run Maven", "For more information", "[Help")
    errors = [
        re.sub(r"\s*-> \[Help \d+\]$", "", line.removeprefix("[ERROR]").strip())
        for line in lines
        if line.startswith("[ERROR]")
    ]
    errors = [e for e in errors if e and not e.startswith(boilerplate)]
    goal = [e for e in errors if e.startswith("Failed to execute goal")]
    candidates = goal or errors or [line for line in lines if line]
    return candidates[-1][:400] if candidates else "mvn exited with an error and no output"


def _last_error(log_path: Path) -> str:
    lines = [line.strip() for line in log_path.read_text(errors="replace").splitlines() if line.strip()]
    failed = [line.removeprefix(FAILED).strip() for line in lines if line.startswith(FAILED)]
    candidates = failed or lines
    return candidates[-1][:400] if candidates else "no output"


def _find_java(minimum: int, java_home: str | None) -> tuple[Path, int]:
    """JAVA_HOME if new enough, else the newest installed JDK of at least `minimum`."""
    if java_home:
        java = Path(java_home) / "bin" / "java"
        major = _java_major(java)
        if major is not None and major >= minimum:
            return java, major
    candidates = {p.resolve() for p in Path("/usr/lib/jvm").glob("*/bin/java")}
    candidates |= {p.resolve() for p in Path("/Library/Java/JavaVirtualMachines").glob("*/Contents/Home/bin/java")}
    on_path = shutil.which("java")
    if on_path:
        candidates.add(Path(on_path).resolve())
    found = [(major, java) for java in candidates if (major := _java_major(java)) is not None and major >= minimum]
    if not found:
        raise ConfigurationError(
            f"the local Neo4j needs Java {minimum} or newer and none was found (JAVA_HOME, /usr/lib/jvm, PATH); install a JDK >= {minimum} or set NEO4J_URI"
        )
    major, java = max(found)
    return java, major


def _java_major(java: Path) -> int | None:
    try:
        result = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', result.stderr)
    if result.returncode != 0 or not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


class _Versions(NamedTuple):
    neo4j: str
    java_release: int
    browser: str | None


def _pom_versions(launcher_dir: Path) -> _Versions:
    """The Neo4j and Neo4j Browser versions and minimum Java release, kept in the launcher's pom.xml only."""
    pom = launcher_dir / "pom.xml"
    try:
        maven = "{http://maven.apache.org/POM/4.0.0}"
        # A missing element raises AttributeError, a missing release TypeError: caught below.
        properties = ET.parse(pom).getroot().find(f"{maven}properties")
        neo4j_version = properties.findtext(f"{maven}neo4j.version")  # type: ignore[union-attr]
        java_release = int(properties.findtext(f"{maven}maven.compiler.release"))  # type: ignore[union-attr,arg-type]
        browser_version = properties.findtext(f"{maven}neo4j-browser.version")  # type: ignore[union-attr]
    except (OSError, ET.ParseError, AttributeError, TypeError, ValueError) as error:
        raise ConfigurationError(
            f"cannot read the Neo4j launcher project at {pom} ({error}); set SPIDER_NEO4J_LAUNCHER_DIR to deploy/neo4j of a spider checkout"
        ) from None
    return _Versions(neo4j_version, java_release, browser_version)  # type: ignore[arg-type]  # None: no version


def _launcher_dir(local: LocalNeo4jSettings) -> Path:
    override = local.launcher_dir
    return Path(override).expanduser() if override else Path(__file__).resolve().parents[2] / "deploy" / "neo4j"


class _PortTaken(Exception):
    """The launcher could not bind its port: someone took it after _choose_port saw it free."""


def _choose_port(previous: int | None, default: int, avoid: int | None = None, also_avoid: int | None = None) -> int:
    """The port used last time, else the default (7687 Bolt, 7474 HTTP), else any free one; Neo4j binds it moments
    later."""
    for port in (previous, default):
        if port and port not in (avoid, also_avoid) and _port_free(port):
            return port
    while True:
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            port = probe.getsockname()[1]
        if port not in (avoid, also_avoid):
            return port


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        # As Neo4j does, so a just-stopped server's TIME_WAIT connections do not count as busy.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
        return True


def _is_launcher(pid: int | None) -> TypeGuard[int]:
    """Whether pid is a live launcher, not a zombie of ours nor an unrelated process reusing the pid."""
    if not pid:
        return False
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our own child that has exited
    if Path("/proc/self").is_dir():
        try:
            return MAIN_CLASS.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _settings(port: int, password: str) -> Neo4jSettings:
    return Neo4jSettings(uri=f"bolt://{HOST}:{port}", user=USER, password=password)


def _state_dir(settings: Settings) -> Path:
    state = settings.home_dir() / "neo4j"
    state.mkdir(mode=0o700, exist_ok=True)
    return state


def _password(state: Path, name: str = "password") -> str:
    """A user's password (`password`: neo4j's, `reader-password`: the reader's), generated on first use and
    readable by this user only."""
    path = state / name
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as file:
        file.write(secrets.token_urlsafe(24))
    return path.read_text().strip()


def _read_record(state: Path) -> dict:
    try:
        return json.loads((state / "server.json").read_text())
    except (OSError, ValueError):
        return {}


def _write_record(state: Path, record: dict) -> None:
    tmp = state / "server.json.tmp"
    tmp.write_text(json.dumps(record, indent=2) + "\n")
    os.replace(tmp, state / "server.json")


@contextlib.contextmanager
def _locked(state: Path) -> Iterator[None]:
    with open(state / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
