"""The local Neo4j's port choice and what `spider neo4j status` tells an analyst, without starting a server."""

from __future__ import annotations

import socket

from spider.cli.neo4j import _browser_lines
from spider.indexer.graph import neo4j_local


def test_the_http_port_is_never_the_bolt_port_and_a_busy_port_is_skipped():
    with socket.socket() as busy:
        busy.bind((neo4j_local.HOST, 0))
        busy.listen()
        taken = busy.getsockname()[1]
        free = neo4j_local._choose_port(taken, taken)  # last time's and the default are both busy
        assert free != taken
    bolt = neo4j_local._choose_port(None, free)
    assert bolt == free  # the default, when free
    http = neo4j_local._choose_port(bolt, bolt, avoid=bolt)  # the HTTP port may not take Bolt's
    assert http != bolt
    assert neo4j_local._choose_port(None, bolt, avoid=http, also_avoid=bolt) not in (http, bolt)


def test_status_lines_name_the_browser_and_the_password_file_never_the_password(tmp_path):
    status = {"running": True, "port": 7687, "browser": "http://127.0.0.1:7474/browser/", "reader": "reader",
              "reader_password_file": str(tmp_path / "reader-password")}
    lines = _browser_lines(status)
    assert lines[0] == "Neo4j Browser: http://127.0.0.1:7474/browser/"
    assert f"user reader (read-only), password: cat {tmp_path / 'reader-password'}" in lines[1]
    assert _browser_lines({**status, "running": False}) == []
    assert "spider neo4j stop" in _browser_lines({**status, "browser": None})[0]  # a server from an older spider


def test_the_pom_names_the_browser_version():
    versions = neo4j_local._pom_versions(neo4j_local._launcher_dir(neo4j_local.Settings.from_env().local_neo4j))
    assert versions.browser and versions.neo4j and versions.java_release >= 21
