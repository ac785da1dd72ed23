"""The local Neo4j server for real: build, start (twice at once), auth, loopback-only, restart, persistence."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError
from spider.core.settings import Settings
from spider.indexer.graph import neo4j_local

REPO = Path(__file__).resolve().parents[4]
START_IN_CHILD = """
import json
from spider.indexer.graph import neo4j_local
settings = neo4j_local.ensure_running()
print(json.dumps({"uri": settings.uri, "pid": neo4j_local.status()["pid"]}))
"""


def launcher_pids(home: Path) -> list[int]:
    """Launcher processes serving this SPIDER_HOME, found from their command lines."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if neo4j_local.MAIN_CLASS.encode() in args and str(home / "neo4j" / "data").encode() in args:
            pids.append(int(cmdline.parent.name))
    return pids


def listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as in /proc/net/tcp*) of sockets listening on port."""
    addresses = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A = LISTEN
                addresses.add(address)
    return addresses


LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    yield tmp_path
    neo4j_local.stop()
    for pid in launcher_pids(tmp_path):  # only if the test failed half-way through a start
        os.kill(pid, signal.SIGKILL)


def test_local_server_lifecycle(home):
    assert neo4j_local.status()["running"] is False

    # Two spider processes starting at once share one server.
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    children = [
        subprocess.Popen([sys.executable, "-c", START_IN_CHILD], cwd=REPO, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs, said = zip(*(child.communicate(timeout=900) for child in children))
    outputs = [json.loads(output) for output in outputs]
    assert all(child.returncode == 0 for child in children)
    assert outputs[0] == outputs[1]
    starting = f"spider: starting the local Neo4j in {home / 'neo4j'} (up to a minute the first time)…"
    assert sorted(starting in stderr.splitlines() for stderr in said) == [False, True], said  # the one that did
    assert launcher_pids(home) == [outputs[0]["pid"]]

    settings = neo4j_local.graph_settings(Settings.from_env())
    state = neo4j_local.status()
    assert settings.uri == outputs[0]["uri"] == state["uri"]
    assert state["running"] and state["pid"] == outputs[0]["pid"]
    assert state["data_dir"] == str(home / "neo4j" / "data")
    assert state["neo4j_version"] and Path(state["java"]).is_file()
    port = state["port"]

    with GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as driver:
        records, _, _ = driver.execute_query("CREATE (p:SpiderProbe {token: $t}) RETURN p.token AS t", t="kept")
        assert records[0]["t"] == "kept"

    with pytest.raises(AuthError):
        with GraphDatabase.driver(settings.uri, auth=(settings.user, "not-the-password")) as driver:
            driver.verify_connectivity()

    addresses = listening_addresses(port)
    assert addresses and addresses <= LOOPBACK, addresses
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # learn a non-loopback address, if any
        probe.connect(("192.0.2.1", 9))
        own_ip = probe.getsockname()[0]
    if not own_ip.startswith("127."):
        with pytest.raises(OSError):
            socket.create_connection((own_ip, port), timeout=2).close()

    password_file = home / "neo4j" / "password"
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
    assert password_file.read_text().strip() == settings.password

    assert neo4j_local.stop() is True
    assert neo4j_local.status()["running"] is False
    assert launcher_pids(home) == []
    assert neo4j_local.stop() is False

    restarted = neo4j_local.ensure_running()
    assert restarted == settings  # same port and password on a restart
    with GraphDatabase.driver(restarted.uri, auth=(restarted.user, restarted.password)) as driver:
        records, _, _ = driver.execute_query("MATCH (p:SpiderProbe) RETURN p.token AS t")
        assert [r["t"] for r in records] == ["kept"]
    assert neo4j_local.stop() is True
