"""Neo4j Browser on the local Neo4j, for real: served on 127.0.0.1 by Neo4j's own HTTP connector, the read-only
user `reader` reads the graph and is refused every change, and headless Chromium (Debian's chromium and
chromium-driver, which .ci/run installs) logs in as that user and runs cypher/neighbourhood.cypher unchanged."""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver, GraphDatabase
from neo4j.exceptions import ClientError, Neo4jError
from spider import cypher
from spider.core.settings import Settings
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import GraphStore

from tests.integration.helpers import (
    EXPRESSION_COSTS,
    MEMORY_BOMBS,
    SLACK,
    assert_the_server_let_go,
    invoke_spider,
    succeeded,
    thread_cpu,
)
from tests.integration.indexer.graph.test_neo4j_local import LOOPBACK, listening_addresses

pytestmark = pytest.mark.skipif(Settings.from_env().neo4j is not None,
                                reason="NEO4J_URI is set: Neo4j Browser and the reader are the local launcher's")

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# What this machine's Chromium needs headless and offline (no sandbox as root; no calls home, which the closed
# network refuses many at a time).
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,900")
# Where the test keeps its screenshot of the Browser's neighbourhood result (docs/images/ holds a committed one).
SCREENSHOT = "SPIDER_BROWSER_SCREENSHOT"
REQUIRE = "SPIDER_REQUIRE_CHROMIUM"  # set by .ci/run
SEED = "shop/service.py:checkout"
NEIGHBOURS = {"shop/payments.py:charge", "shop/payments.py:receipt", "shop/models.py:Order.add", "scripts/run.py:main"}
TYPES = ["CONTAINS", "IMPORTS", "INVOKES", "INHERITS"]
# (statement, database): every kind of change a native Community user could make, as the reader.
REFUSED = [
    ("CREATE (:SpiderProbe {by: 'reader'})", None),
    ("MATCH (f:Function) SET f.touched = true", None),
    ("MATCH (f:Function) DETACH DELETE f", None),
    ("CREATE INDEX spider_probe FOR (n:SpiderProbe) ON (n.by)", None),
    ("CREATE CONSTRAINT spider_probe FOR (n:SpiderProbe) REQUIRE n.by IS UNIQUE", None),
    ("CALL db.createLabel('SpiderProbeLabel')", None),
    ("CALL db.clearQueryCaches()", None),
    ("CALL db.resampleOutdatedIndexes()", None),
    ("ALTER USER neo4j SET PASSWORD 'taken-over-1234'", "system"),
    ("CREATE USER intruder SET PASSWORD 'intruder-1234'", "system"),
    ("DROP USER neo4j", "system"),
    ("ALTER CURRENT USER SET PASSWORD FROM $old TO 'changed-by-reader-1234'", "system"),
    ("STOP DATABASE neo4j", "system"),
]


@pytest.fixture(scope="module")
def status(neo4j_settings) -> dict:
    state = neo4j_local.status()
    assert state["running"] and state["browser"], state
    return state


@pytest.fixture(scope="module")
def reader(status) -> Iterator[Driver]:
    settings = neo4j_local.reader_settings()
    assert settings.user == "reader" and settings.uri == status["uri"]
    with GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as driver:
        yield driver


def test_the_browser_is_served_on_loopback_and_status_says_how_to_log_in(status):
    with urllib.request.urlopen(status["browser"], timeout=30) as response:
        assert response.status == 200 and b"<title>Neo4j Browser</title>" in response.read()
    with urllib.request.urlopen(status["browser"].removesuffix("browser/"), timeout=30) as response:
        assert json.load(response)["bolt_direct"] == status["uri"]  # what the Browser prefills as Connect URL
    # Only the Browser module: Cypher over HTTP (the transactional and Query API endpoints) is off.
    for path in ("db/neo4j/tx/commit", "db/neo4j/query/v2"):
        request = urllib.request.Request(status["browser"].removesuffix("browser/") + path, method="POST",
                                         data=b'{"statements": []}', headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 404, path
    addresses = listening_addresses(status["http_port"])
    assert addresses and addresses <= LOOPBACK, addresses

    password_file = Path(status["reader_password_file"])
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
    printed = succeeded(invoke_spider("neo4j", "status"))
    assert f"Neo4j Browser: {status['browser']}" in printed
    assert f"user reader (read-only), password: cat {password_file}" in printed
    state = password_file.parent  # the launcher's output and Neo4j's own logs (debug, security, http, query)
    logs = [(state / "neo4j.log").read_text(errors="replace"),
            *(log.read_text(errors="replace") for log in (state / "data" / "logs").glob("*.log"))]
    for secret in (password_file.read_text().strip(), (state / "password").read_text().strip()):
        assert secret not in printed and not any(secret in log for log in logs)


def _neighbourhood(driver: Driver, repo: str, snapshot: str) -> set[str]:
    records, _, _ = driver.execute_query(cypher.load("neighbourhood"), repo=repo, snapshot=snapshot, id=SEED,
                                         d=1, types=TYPES)
    return {r["id"] for r in records}


def test_the_reader_reads_the_graph_and_is_refused_every_change(reader, shop, store: GraphStore):
    snapshot = store.resolve_snapshot(shop)
    assert _neighbourhood(reader, shop, snapshot) == NEIGHBOURS
    records, _, _ = reader.execute_query(cypher.load("hotspots"), repo=shop, snapshot=snapshot, limit=1)
    assert [r["id"] for r in records] == ["shop/models.py:DiscountedOrder"]  # ties by id; every fan-in is 1

    old = neo4j_local.reader_settings().password
    for statement, database in REFUSED:
        with pytest.raises(Neo4jError) as refused:
            reader.execute_query(statement, old=old, database_=database)
        assert refused.value.code in ("Neo.ClientError.Security.Forbidden",
                                      "Neo.ClientError.Statement.UnsupportedAdministrationCommand"), statement

    # Another user's transaction: the reader sees it (SHOW TRANSACTIONS) but cannot end it.
    with store.driver.session() as session, session.begin_transaction() as tx:
        tx.run("RETURN 1").consume()
        with reader.session() as own:
            theirs = [r["transactionId"] for r in own.run("SHOW TRANSACTIONS YIELD transactionId, username "
                                                           "WHERE username = 'neo4j' RETURN transactionId")]
            assert theirs
            for row in own.run(f"TERMINATE TRANSACTIONS {', '.join(map(repr, theirs))}"):
                assert row["message"] != "Transaction terminated.", row
        assert tx.run("RETURN 2 AS alive").single()["alive"] == 2

    # Nothing changed, and spider's own user still writes.
    assert _neighbourhood(reader, shop, snapshot) == NEIGHBOURS
    users, _, _ = store.driver.execute_query("SHOW USERS YIELD user RETURN collect(user) AS users", database_="system")
    assert sorted(users[0]["users"]) == ["neo4j", "reader"]
    assert neo4j_local.reader_settings().password == old
    with GraphDatabase.driver(neo4j_local.reader_settings().uri, auth=("reader", old)) as again:
        again.verify_connectivity()
    records, _, _ = store.driver.execute_query("CREATE (p:SpiderProbe {by: 'neo4j'}) WITH p DELETE p RETURN 1 AS ok")
    assert records[0]["ok"] == 1


def test_the_reader_learns_nothing_of_the_host(reader, store: GraphStore):
    """dbms.queryJmx would show the JVM's command line (home and password-file paths), system properties, the user
    and the class path; SHOW SETTINGS every folder, port and limit. What the reader still sees is in
    docs/security.md with why it is safe."""
    with pytest.raises(Neo4jError) as refused:
        reader.execute_query("CALL dbms.queryJmx('*:*') YIELD name RETURN name")
    settings = "SHOW SETTINGS YIELD name RETURN count(*) AS n"

    assert refused.value.code == "Neo.ClientError.Security.Forbidden"
    assert reader.execute_query(settings)[0][0]["n"] == 0
    assert store.driver.execute_query(settings)[0][0]["n"] > 100  # spider's own user still reads them
    components = reader.execute_query("CALL dbms.components() YIELD name, versions RETURN name, versions")[0]
    assert {r["name"] for r in components} == {"Neo4j Kernel", "Cypher"}  # as the HTTP discovery document says
    connections = reader.execute_query("CALL dbms.listConnections() YIELD username RETURN username")[0]
    assert {r["username"] for r in connections} == {"reader"}  # its own connections only


def test_the_reader_s_expression_is_stopped_on_the_server_at_its_timeout(reader, store: GraphStore):
    """The Browser's statements end at db.transaction.timeout (15 minutes), as this one does at its 2 s: expressions
    check their transaction's termination too (the launcher's ExpressionGuard)."""
    marker = f"reader_{time.monotonic_ns()}"
    before = thread_cpu()
    started = time.monotonic()
    with pytest.raises(ClientError) as stopped, reader.session() as session, \
            session.begin_transaction(timeout=2) as tx:
        tx.run(EXPRESSION_COSTS["reduce_over_strings"].format(name=marker)).consume()

    assert time.monotonic() - started < 2 + SLACK
    assert stopped.value.code.startswith("Neo.ClientError.Transaction.TransactionTimedOut"), stopped.value.code
    assert_the_server_let_go(store, marker, before)


def test_the_reader_s_expression_that_builds_more_than_the_heap_is_refused_and_the_server_lives_on(reader, store):
    """The Browser sets no timeout; this statement filled the 2 GB heap in seconds and ended the server."""
    pid = neo4j_local.status()["pid"]
    with pytest.raises(ClientError) as refused:
        reader.execute_query(MEMORY_BOMBS["many_kept_lists"])

    assert refused.value.code == "Neo.ClientError.Statement.ArgumentError"
    assert "The expressions of this statement built more than 256 MiB" in refused.value.message
    assert neo4j_local.status()["pid"] == pid
    assert reader.execute_query("RETURN 1 AS n")[0][0]["n"] == 1


def _chromium_missing() -> str | None:
    for program in (CHROMIUM, CHROMEDRIVER):
        if not program.is_file():
            return f"{program} is absent: install Debian's chromium and chromium-driver (.ci/run does)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install -e '.[test]'"
    return None


@pytest.fixture
def chromium(tmp_path) -> Iterator[object]:
    if reason := _chromium_missing():
        if os.environ.get(REQUIRE):  # CI installs both: there a missing one is a failure
            pytest.fail(reason)
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(dir=tmp_path)}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _run_in_editor(browser, text: str) -> None:
    """Paste `text` into the Browser's editor (typing would let the editor close brackets itself) and run it."""
    from selenium.webdriver.common.by import By

    editor = browser.find_element(By.CSS_SELECTOR, "[data-testid=activeEditor] textarea")
    editor.click()
    browser.execute_script(
        "const data = new DataTransfer(); data.setData('text/plain', arguments[1]);"
        "arguments[0].dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true,"
        " cancelable: true}));", editor, text)
    browser.find_element(By.CSS_SELECTOR, "[data-testid=editor-Run]").click()


def _newest_frame_text(browser, until: str, timeout: float = 60) -> str:
    """The text of the newest result frame once it contains `until`."""
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout
    while True:
        frames = browser.find_elements(By.CSS_SELECTOR, "[data-testid=frame]")
        text = frames[0].text if frames else ""
        if until in text:
            return text
        assert time.monotonic() < deadline, f"the Browser never showed {until!r}; its newest frame: {text[:500]!r}"
        time.sleep(0.25)


def test_chromium_logs_in_as_the_reader_and_runs_the_neighbourhood_query(status, shop, store: GraphStore, chromium,
                                                                          tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser = chromium
    browser.get(status["browser"])
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "[data-testid=username]"))
    assert browser.find_element(By.CSS_SELECTOR, "[data-testid=boltaddress]").get_attribute("value") == \
        status["uri"].removeprefix("bolt://")
    browser.find_element(By.CSS_SELECTOR, "[data-testid=username]").send_keys(status["reader"])
    browser.find_element(By.CSS_SELECTOR, "[data-testid=password]").send_keys(
        Path(status["reader_password_file"]).read_text().strip())
    browser.find_element(By.CSS_SELECTOR, "[data-testid=connect]").click()
    WebDriverWait(browser, 180).until(  # the connect frame says so (a loaded machine took over 60 s once)
        lambda b: re.search(rf"You are connected as user\s+{status['reader']}\b", b.find_element(By.TAG_NAME, "body").text))

    # As docs/browser.md says: set the parameters, then run the file's text as it is.
    snapshot = store.resolve_snapshot(shop)
    params = {"repo": shop, "snapshot": snapshot, "id": SEED, "d": 1, "types": TYPES}
    _run_in_editor(browser, ":params {" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in params.items()) + "}")
    _newest_frame_text(browser, snapshot)
    _run_in_editor(browser, cypher.load("neighbourhood"))
    table = _newest_frame_text(browser, "Started streaming")
    assert {f'"{neighbour}"' for neighbour in NEIGHBOURS} <= set(table.split()), table
    screenshot = Path(os.environ.get(SCREENSHOT) or tmp_path / "browser-neighbourhood.png")
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(screenshot))

    # A write typed in the Browser: the server refuses it, nothing is created.
    _run_in_editor(browser, "CREATE (p:SpiderProbe {by: 'browser'}) RETURN p")
    refusal = _newest_frame_text(browser, "is not allowed for user 'reader'")
    assert "Forbidden" in refusal or "not allowed" in refusal
    records, _, _ = store.driver.execute_query("MATCH (p:SpiderProbe {by: 'browser'}) RETURN count(p) AS n")
    assert records[0]["n"] == 0

