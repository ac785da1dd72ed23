"""`open_stores(Settings(...))` decides every store, model and selector that indexing and a query open through the
public API: with every variable of the environment pointing elsewhere (another SPIDER_HOME, a Qdrant and a Neo4j
that do not answer, an embedding model that does not exist, a learned model file that is missing, LLM endpoints
that do not answer), the graph, the vector store, the embedding model, the parse cache, the selector, the LLM
and its answer cache are the ones the Settings object names. tests/unit/test_no_env_below_doors.py is the other
half: nothing below the doors reads the environment."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from spider.core.settings import CacheSettings, LLMSettings, Neo4jSettings, Settings
from spider.indexer import index_repository, open_stores
from spider.indexer.models.embedding import register_model
from spider.indexer.vectors.store import collection_name
from spider.query import localize
from spider.query.select.learned import SHIPPED_MODEL

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.llm_server import FakeLLM, Reply
from tests.fixtures.shop import PYTHON
from tests.fixtures.tiny_model import build_tiny_model

TINY = "settings/tiny"  # registered under the settings' home only: the environment's registry does not know it
NOWHERE = "127.0.0.1:9"  # the discard port: nothing answers there
ISSUE = "Totals are wrong when a discount applies: DiscountedOrder.total forgets the tax."


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, neo4j_settings: Neo4jSettings) -> Path:
    """The environment, every variable pointing somewhere the settings do not (once the test services are found
    from the real one); its SPIDER_HOME."""
    home = tmp_path / "env-home"
    variables = {
        "SPIDER_HOME": str(home),
        "NEO4J_URI": f"bolt://{NOWHERE}", "NEO4J_PASSWORD": "env-neo4j-password",
        "QDRANT_URL": f"http://{NOWHERE}", "QDRANT_API_KEY": "env-qdrant-key",
        "SPIDER_EMBED_MODEL": "env/no-such-model",
        "SPIDER_PARSE_CACHE": str(tmp_path / "env-parse-cache.sqlite3"),
        "SPIDER_LEARNED_MODEL": str(tmp_path / "env-missing-learned.json"),
        "ANTHROPIC_API_KEY": "sk-ant-env-only-key", "ANTHROPIC_BASE_URL": f"http://{NOWHERE}",
        "SPIDER_OPENAI_BASE_URL": f"http://{NOWHERE}/v1", "SPIDER_OPENAI_MODEL": "env-model",
        "SPIDER_LLM_CACHE": str(tmp_path / "env-llm-cache"),
        "SPIDER_LLM_TIMEOUT": "not a number",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return home


@pytest.fixture
def settings(tmp_path: Path, neo4j_settings: Neo4jSettings) -> Settings:
    """Settings given in code: their own home (vectors, models, LLM cache), parse cache, learned model, Neo4j."""
    learned = tmp_path / "learned.json"
    shutil.copy(SHIPPED_MODEL, learned)
    given = Settings(home=tmp_path / "home", neo4j_uri=neo4j_settings.uri, neo4j_user=neo4j_settings.user,
                     neo4j_password=neo4j_settings.password, neo4j_database=neo4j_settings.database,
                     embed_model=TINY, caches=CacheSettings(parse_cache=str(tmp_path / "parse-cache.sqlite3")),
                     learned_model=str(learned))
    register_model(TINY, build_tiny_model(tmp_path / "tiny-model"), dim=32, pooling="mean", settings=given)
    return given


def test_the_settings_decide_what_indexing_and_a_query_open(tmp_path, elsewhere, settings):
    root, sha = make_repo(tmp_path / "repo", PYTHON.files)
    name = f"test/settings-{uuid.uuid4().hex[:8]}"
    with open_stores(settings) as stores:
        report = index_repository(stores, root, repo=name)
        answer = localize(stores, ISSUE, repo=name, method="spisr", k=5)

    assert report.snapshot == sha and report.embedding is not None and report.embedding.model == TINY
    assert (settings.home / "vectors" / collection_name(TINY, 32)).is_dir()  # the Edge shard under its home
    assert stores.graph.snapshot_cache(name, sha).is_dir()  # the digest, BM25 index, members beside the snapshot
    assert TINY in json.loads((settings.home / "models" / "registry.json").read_text())
    assert Path(settings.caches.parse_cache).is_file() and not (tmp_path / "env-parse-cache.sqlite3").exists()
    # No LLM in the settings (the environment's would be chosen first): the learned selector, from their file.
    assert answer.selector.startswith("learned") and answer.results
    assert {r.id for r in answer.results} <= PYTHON.functions | PYTHON.classes
    assert home_entries(elsewhere) == set()  # nothing under the environment's home


def test_the_settings_decide_the_llm_and_its_answer_cache(tmp_path, elsewhere, settings):
    root, _ = make_repo(tmp_path / "repo", PYTHON.files)
    name = f"test/settings-{uuid.uuid4().hex[:8]}"
    with FakeLLM(lambda seen, attempt: Reply('{"selected": []}')) as server:
        llm = LLMSettings(openai_base_url=server.url + "/v1", openai_model="settings-model", timeout_setting="10")
        given = Settings(**{**vars(settings), "llm": llm})
        with open_stores(given) as stores:
            index_repository(stores, root, repo=name, embed=False)
            answer = localize(stores, ISSUE, repo=name, method="spisr", k=5)

    assert answer.selector == "openai (settings-model)" and server.requests
    assert {seen.body["model"] for seen in server.requests} == {"settings-model"}
    assert any((given.home / "llm-cache").iterdir()) and not (tmp_path / "env-llm-cache").exists()
    assert home_entries(elsewhere) == set()  # nothing under the environment's home


def test_the_settings_decide_the_dense_first_stage(tmp_path, elsewhere, settings):
    root, _ = make_repo(tmp_path / "repo", PYTHON.files)
    name = f"test/settings-{uuid.uuid4().hex[:8]}"
    with open_stores(settings) as stores:
        index_repository(stores, root, repo=name)
        answer = localize(stores, ISSUE, repo=name, method="spider", k=5)
    assert answer.model == TINY and answer.results


def home_entries(home: Path) -> set[str]:
    return {entry.name for entry in home.iterdir()} if home.exists() else set()
