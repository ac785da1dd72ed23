"""Who `spider mcp --http` answers. Anyone who reaches the port can read all indexed code, so a bind beyond this
machine needs a bearer token (SPIDER_MCP_TOKEN) unless the operator explicitly opts out, browsers are refused
there, and no request may hold a stream open: the server is stateless and has nothing to push."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from dataclasses import dataclass, field

from mcp.server.transport_security import TransportSecuritySettings
from spider.core.errors import ConfigurationError, InvalidInput
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_VARIABLE = "SPIDER_MCP_TOKEN"
OPT_OUT = "--allow-unauthenticated"
_TOKEN = re.compile(r"[!-~]{16,}")  # printable ASCII, no spaces (it travels in a header), long enough to guess never
_LOOPBACK_AUTHORITIES = ("127.0.0.1", "localhost", "[::1]")  # what a local client names a loopback server by


def is_loopback(host: str) -> bool:
    """Whether a server bound to `host` is reachable from this machine only (a name other than localhost may
    resolve anywhere, so it is not)."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def authority(host: str) -> str:
    """`host` as a Host header names it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host


def checked_token(token: str | None) -> str | None:
    """SPIDER_MCP_TOKEN, refused in one line (that never shows it) when it is too weak to guard the code."""
    if token is not None and not _TOKEN.fullmatch(token):
        raise ConfigurationError(f"{TOKEN_VARIABLE} must be at least 16 printable ASCII characters without spaces "
                                 "(e.g. `openssl rand -hex 32`)")
    return token


@dataclass(frozen=True)
class Access:
    """Who a server bound to `host` answers: with a token, only requests bearing it; beyond loopback, no
    browser (a request with an Origin header)."""

    host: str
    token: str | None = field(repr=False)

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def warning(self) -> str | None:
        """What the operator of a server reachable beyond this machine is told at start."""
        if self.loopback:
            return None
        if self.token:
            return (f"listening on {self.host}, beyond this machine: every request must bear the token of "
                    f"{TOKEN_VARIABLE} (Authorization: Bearer ...), over a network you trust or behind TLS")
        return (f"listening on {self.host}, beyond this machine, with no authentication ({OPT_OUT}): anyone who "
                "can reach the port can read all the indexed code")

    def transport_security(self) -> TransportSecuritySettings:
        """The SDK's Host and Origin checks: on loopback, only local names (a DNS-rebinding page is refused);
        beyond it the names clients use are unknown, and the token and `Gate` guard instead."""
        if not self.loopback:
            return TransportSecuritySettings(enable_dns_rebinding_protection=False)
        names = dict.fromkeys((*_LOOPBACK_AUTHORITIES, authority(self.host)))
        return TransportSecuritySettings(allowed_hosts=[f"{name}:*" for name in names],
                                         allowed_origins=[f"http://{name}:*" for name in names])


def access_for(host: str, token: str | None, allow_unauthenticated: bool) -> Access:
    """Who a server bound to `host` may answer; a bind beyond loopback with no token is refused unless the
    operator opted out."""
    access = Access(host, checked_token(token))
    if not access.loopback and not access.token and not allow_unauthenticated:
        raise InvalidInput(f"--http {host} is reachable beyond this machine and would serve all indexed code to "
                           f"anyone: set {TOKEN_VARIABLE} to a secret clients send as a bearer token, or pass "
                           f"{OPT_OUT}")
    return access


def bears(authorization: str | None, token: str) -> bool:
    """Whether an Authorization header carries `token` as its bearer credential, compared in constant time (on
    digests of equal length, so not even the token's length shows)."""
    scheme, _, credential = (authorization or "").partition(" ")
    given, wanted = (hashlib.sha256(value.strip().encode()).digest() for value in (credential, token))
    return hmac.compare_digest(given, wanted) and scheme.lower() == "bearer"


class Gate:
    """The ASGI app in front of the SDK's: a request it refuses never reaches the SDK. 403: a browser (an
    Origin header) beyond loopback; 401: no or another token, where there is one; 405: anything but a POST,
    for a stateless server offers no stream to GET (the MCP spec's answer) and has no session to DELETE."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(Headers(scope=scope), scope["method"]) if scope["type"] == "http" else None
        await (refusal or self.app)(scope, receive, send)

    def refusal(self, headers: Headers, method: str) -> Response | None:
        """Why a request is refused, as the response that says so; None if it may pass."""
        if not self.access.loopback and "origin" in headers:
            return PlainTextResponse("Forbidden: browsers may not call a server reachable beyond its machine", 403)
        if self.access.token and not bears(headers.get("authorization"), self.access.token):
            return PlainTextResponse("Unauthorized: send Authorization: Bearer <the server's token>", 401,
                                     headers={"WWW-Authenticate": 'Bearer realm="spider"'})
        if method != "POST":
            return PlainTextResponse("Method Not Allowed: this stateless server answers POST only", 405,
                                     headers={"Allow": "POST"})
        return None
