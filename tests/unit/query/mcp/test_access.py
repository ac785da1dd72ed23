"""Who `spider mcp --http` answers: binds beyond loopback refused without a token unless opted out, the token
required and compared in constant time, browsers refused beyond loopback, and nothing but POST (no endless GET
stream), all before a request reaches the SDK."""

from __future__ import annotations

import pytest
from spider.core.errors import ConfigurationError, InvalidInput
from spider.query.mcp import access as access_module
from spider.query.mcp.access import Access, Gate, access_for, bears, is_loopback
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient

TOKEN = "a-token-of-32-characters-8f3e9c1"


async def reached(scope, receive, send) -> None:
    """The app behind the gate: says it was reached."""
    await PlainTextResponse("reached")(scope, receive, send)


def client(host: str, token: str | None) -> TestClient:
    return TestClient(Gate(reached, Access(host, token)))


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.com", False), ("localhost.evil", False),
])
def test_only_loopback_addresses_and_localhost_are_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_a_bind_beyond_loopback_without_a_token_is_refused_unless_the_operator_opts_out():
    with pytest.raises(InvalidInput, match="0.0.0.0 is reachable beyond this machine.*set SPIDER_MCP_TOKEN.*"
                                           "or pass --allow-unauthenticated"):
        access_for("0.0.0.0", None, allow_unauthenticated=False)
    assert "with no authentication" in access_for("0.0.0.0", None, allow_unauthenticated=True).warning()
    assert "must bear the token" in access_for("0.0.0.0", TOKEN, allow_unauthenticated=False).warning()
    assert access_for("127.0.0.1", None, allow_unauthenticated=False).warning() is None


@pytest.mark.parametrize("token", ["short-8f3e9c1", "has spaces in it 8f3e9c1", "non-ascii-tökén-8f3e9c1"])
def test_a_weak_token_is_refused_without_being_shown(token):
    with pytest.raises(ConfigurationError, match="SPIDER_MCP_TOKEN must be at least 16") as refused:
        access_for("0.0.0.0", token, allow_unauthenticated=False)
    assert token not in str(refused.value)


def test_the_token_is_never_shown():
    access = Access("0.0.0.0", TOKEN)
    assert TOKEN not in repr(access) and TOKEN not in access.warning()
    answers = [client("0.0.0.0", TOKEN).post("/mcp", headers=headers)
               for headers in ({}, {"Authorization": "Bearer wrong"}, {"Origin": "http://evil.example"})]
    assert not [answer for answer in answers if TOKEN in answer.text or TOKEN in str(answer.headers)]


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1"])
def test_with_a_token_only_requests_bearing_it_reach_the_server(host):
    gate = client(host, TOKEN)
    for authorization in (None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", f"Bearer{TOKEN}", "Bearer"):
        refused = gate.post("/mcp", headers={"Authorization": authorization} if authorization else {})
        assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer"), authorization
    for authorization in (f"Bearer {TOKEN}", f"bearer {TOKEN}"):
        assert gate.post("/mcp", headers={"Authorization": authorization}).text == "reached"


def test_the_token_is_compared_in_constant_time(monkeypatch):
    compared = []

    def compare_digest(given: bytes, wanted: bytes) -> bool:
        compared.append((len(given), len(wanted)))
        return given == wanted

    monkeypatch.setattr(access_module.hmac, "compare_digest", compare_digest)
    assert bears(f"Bearer {TOKEN}", TOKEN) and not bears("Bearer x", TOKEN) and not bears(None, TOKEN)
    assert compared == [(32, 32)] * 3  # digests: equal lengths whatever was sent


def test_beyond_loopback_a_browser_is_refused_whatever_it_sends():
    gate = client("0.0.0.0", TOKEN)
    for origin in ("http://evil.example", "null", "http://0.0.0.0:8765"):
        answer = gate.post("/mcp", headers={"Origin": origin, "Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 403, origin
    open_gate = client("0.0.0.0", None)  # --allow-unauthenticated
    assert open_gate.post("/mcp", headers={"Origin": "http://evil.example"}).status_code == 403
    assert open_gate.post("/mcp").text == "reached"


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "OPTIONS"])
def test_nothing_but_a_post_reaches_the_stateless_server(method):
    answer = client("127.0.0.1", None).request(method, "/mcp")
    assert (answer.status_code, answer.headers["allow"]) == (405, "POST")


def test_on_loopback_the_sdk_checks_host_and_origin_for_the_address_bound_too():
    local = Access("127.0.0.2", None).transport_security()
    assert local.enable_dns_rebinding_protection and "127.0.0.2:*" in local.allowed_hosts
    assert {"127.0.0.1:*", "localhost:*", "[::1]:*"} <= set(local.allowed_hosts)
    assert "http://[::1]:*" in Access("::1", None).transport_security().allowed_origins
    assert not Access("0.0.0.0", TOKEN).transport_security().enable_dns_rebinding_protection
