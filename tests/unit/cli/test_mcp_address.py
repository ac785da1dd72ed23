"""Where `spider mcp --http` listens: HOST:PORT, [IPv6]:PORT, or PORT on 127.0.0.1; anything else in one line."""

from __future__ import annotations

import pytest
from spider.cli.mcp import parse_address
from spider.core.errors import InvalidInput


@pytest.mark.parametrize("address, where", [
    ("127.0.0.1:8765", ("127.0.0.1", 8765)), ("8765", ("127.0.0.1", 8765)), ("0.0.0.0:80", ("0.0.0.0", 80)),
    ("[::1]:9000", ("::1", 9000)), ("localhost:1", ("localhost", 1)),
])
def test_addresses_parse(address, where):
    assert parse_address(address) == where


@pytest.mark.parametrize("address", ["", "nowhere", ":8765", "host:", "host:0", "host:65536", "host:-1", "h:8x"])
def test_bad_addresses_are_one_line_errors(address):
    with pytest.raises(InvalidInput, match=r"^--http takes HOST:PORT or PORT"):
        parse_address(address)
