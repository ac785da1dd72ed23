"""Test services: the real Neo4j (NEO4J_URI if set, else the local server under a throwaway SPIDER_HOME)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from spider.core.settings import Neo4jSettings, Settings
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import register_model

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import PYTHON
from tests.fixtures.tiny_model import build_tiny_model
from tests.integration.helpers import invoke_index_json, unique_name

TEST_MODEL = "test/tiny"  # a 32-d ONNX model the tests build: every index run embeds in milliseconds
INTEGRATION = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/integration/ `integration`, so the marker and the folder say the same."""
    for item in items:
        if item.path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def spider_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = Path(os.environ.get("SPIDER_TEST_HOME") or tmp_path_factory.mktemp("spider-home"))
    os.environ["SPIDER_HOME"] = str(home)  # the CLI run by tests (in-process or as a subprocess) uses it too
    return home


@pytest.fixture(scope="session", autouse=True)
def test_embedding_model(spider_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Register the tiny model in the test SPIDER_HOME and make it the default for index runs."""
    register_model(TEST_MODEL, build_tiny_model(tmp_path_factory.mktemp("tiny-model")), dim=32, pooling="mean")
    os.environ["SPIDER_EMBED_MODEL"] = TEST_MODEL
    return TEST_MODEL


@pytest.fixture(scope="session")
def neo4j_settings(spider_home: Path) -> Neo4jSettings:
    external = Settings.from_env().neo4j
    if external is not None:
        yield external
        return
    settings = neo4j_local.ensure_running()
    yield settings
    if not os.environ.get("SPIDER_TEST_HOME"):
        neo4j_local.stop()


@pytest.fixture
def store(neo4j_settings: Neo4jSettings) -> GraphStore:
    with GraphStore(neo4j_settings) as graph_store:
        yield graph_store


@pytest.fixture
def repo_name() -> str:
    """Each test writes under its own repository name, so tests never see each other's graphs."""
    return f"test/{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory, neo4j_settings) -> str:
    """The Python shop fixture, indexed once per module by `spider index` (in this process) under a unique name."""
    root, _ = make_repo(tmp_path_factory.mktemp("shop") / "repo", PYTHON.files)
    name = unique_name()
    invoke_index_json(root, name)
    return name
