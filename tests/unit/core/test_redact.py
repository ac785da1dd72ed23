"""`redact`: what leaves spider (messages, logs, output, job errors) has its URI passwords and secret settings
masked."""

from __future__ import annotations

import time

import pytest
import spider.core.redact as redact_module
from spider.core.redact import MASK, mask_secrets_of, public_url, redact
from spider.core.settings import SECRET_VARIABLES, URL_VARIABLES, CelerySettings, QdrantSettings, Settings


@pytest.fixture
def no_secrets(monkeypatch, tmp_path):
    for variable in (*SECRET_VARIABLES, *URL_VARIABLES):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("uri, masked", [
    ("bolt://user:SECRET@db.example:7687", f"bolt://user:{MASK}@db.example:7687"),
    ("neo4j+s://neo4j:p@ss:w0rd@host", f"neo4j+s://neo4j:{MASK}@host"),
    ("redis://:broker-pw@localhost:6379/0", f"redis://:{MASK}@localhost:6379/0"),
    ("amqp://guest:gu%40st@rabbit//", f"amqp://guest:{MASK}@rabbit//"),
])
def test_redact_masks_the_password_of_any_uri(no_secrets, uri, masked):
    assert redact(f"cannot reach Neo4j at {uri}: refused") == f"cannot reach Neo4j at {masked}: refused"
    assert redact(repr(uri)) == repr(masked)


def test_redact_keeps_uris_without_a_password(no_secrets):
    text = "bolt://127.0.0.1:7687 ssh://git@github.com/org/repo https://example.com/a?b=c"
    assert redact(text) == text


@pytest.mark.parametrize("uri, masked", [
    ("https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/org/repo.git",
     f"https://{MASK}@github.com/org/repo.git"),
    ("http://glpat-abcdefgh12345678@gitlab.example/group/repo", f"http://{MASK}@gitlab.example/group/repo"),
])
def test_redact_masks_a_token_given_as_an_http_user(no_secrets, uri, masked):
    """A clone URL in a manifest may carry its access token as the user name, with no password."""
    assert redact(f"cannot clone {uri}: denied") == f"cannot clone {masked}: denied"


def test_redact_masks_the_secret_settings_wherever_they_appear(no_secrets, monkeypatch, tmp_path):
    monkeypatch.setenv("NEO4J_PASSWORD", "hunter2-neo4j")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-XYZ123")
    monkeypatch.setenv("SPIDER_BROKER_URL", "redis://:broker/secret@localhost:6379/0")  # '/' in the password
    (tmp_path / "home" / "neo4j").mkdir(parents=True)
    (tmp_path / "home" / "neo4j" / "password").write_text("local-server-pw\n")
    (tmp_path / "home" / "neo4j" / "reader-password").write_text("local-reader-pw\n")
    text = ('auth failed for hunter2-neo4j, key "sk-ant-XYZ123", broker broker/secret, '
            'server local-server-pw, reader local-reader-pw, json "hunter2-neo4j"')
    assert redact(text) == (f'auth failed for {MASK}, key "{MASK}", broker {MASK}, server {MASK}, reader {MASK}, '
                            f'json "{MASK}"')


def test_redact_leaves_values_too_short_to_be_secrets(no_secrets, monkeypatch):
    monkeypatch.setenv("NEO4J_PASSWORD", "test123")
    assert redact("test123 bolt://neo4j:test123@db") == f"test123 bolt://neo4j:{MASK}@db"


def test_redact_takes_linear_time_on_long_runs(no_secrets):
    started = time.perf_counter()
    redact("a" * 200_000 + " " + "a://b:" * 20_000 + " " + "ab-1+." * 40_000)
    assert time.perf_counter() - started < 1  # 0.05 s; quadratic was minutes


def test_redact_masks_uris_glued_to_other_text(no_secrets):
    assert redact("x=-bolt://u:pw12@h,1neo4j://u:pw34@h") == f"x=-bolt://u:{MASK}@h,1neo4j://u:{MASK}@h"


@pytest.fixture
def fresh_registry(monkeypatch):
    """What a door registers lasts as long as the process: this test's registrations end with it."""
    for name in ("_registered_values", "_registered_urls", "_registered_homes"):
        monkeypatch.setattr(redact_module, name, set())


def test_redact_masks_the_secrets_of_settings_a_door_registered(no_secrets, fresh_registry, tmp_path):
    """Settings given in code (`open_stores(Settings(...))`), which no environment variable holds, are masked once
    a door registers them: their secret values, their URLs' passwords, the local server's password under their home."""
    home = tmp_path / "given-home"
    (home / "neo4j").mkdir(parents=True)
    (home / "neo4j" / "password").write_text("given-home-server-pw\n")
    given = Settings(home=home, neo4j_password="given-neo4j-pw", qdrant=QdrantSettings(api_key="given-qdrant-key"),
                     celery=CelerySettings(broker_url="redis://:given/broker-pw@localhost:6379/0"))
    text = "given-neo4j-pw given-qdrant-key given/broker-pw given-home-server-pw"
    assert redact(text) == text  # nothing in the environment says these are secrets
    mask_secrets_of(given)
    assert redact(text) == f"{MASK} {MASK} {MASK} {MASK}"


@pytest.mark.parametrize("url, shown", [
    ("http://qdrant:6333", "http://qdrant:6333"),
    ("https://user:SECRET@qdrant.example:6333/prefix?api-key=SECRET#x", "https://qdrant.example:6333/prefix"),
    ("http://[::1]:6333", "http://[::1]:6333"),
    ("http://[::1", "QDRANT_URL"),  # urlsplit refuses it: nothing of it is shown
])
def test_a_server_store_shows_and_records_its_url_without_secrets(url, shown):
    assert public_url(url) == shown
