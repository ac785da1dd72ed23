"""The repository the MCP tests ask about: the Python shop, indexed at two commits, with a planted secret in its
code; and a way to talk to a server with the SDK's own client."""

from __future__ import annotations

import json
from dataclasses import dataclass
from math import ceil
from typing import Any, Awaitable, Callable

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import PYTHON
from tests.integration.helpers import index_json, unique_name

PLANTED_KEY = "sk-planted-mcp-openai-7f3a9c"  # SPIDER_OPENAI_API_KEY while the servers run; also in the code
SECRET_CODE = f'def vendor_token():\n    return "{PLANTED_KEY}"\n'
LONG_CODE = "def long_report(rows):\n    lines = []\n" + "".join(
    f"    lines.append('row {i}: ' + str(rows[{i}]))\n" for i in range(80)) + "    return lines\n"  # ~1,000 tokens
CHANGED_SEND = PYTHON.files["shop/payments.py"].replace("    return amount\n", "    return round(amount, 2)\n", 1)


@dataclass(frozen=True)
class Indexed:
    repo: str
    old: str  # the first commit's sha
    new: str  # the second's: shop/payments.py:_send changed


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, neo4j_settings) -> Indexed:
    root, old = make_repo(tmp_path_factory.mktemp("mcp") / "shop", {**PYTHON.files, "shop/vendor.py": SECRET_CODE,
                                                                             "shop/report.py": LONG_CODE})
    name = unique_name()
    index_json(root, name)
    _, new = make_repo(root, {"shop/payments.py": CHANGED_SEND}, message="round amounts")
    index_json(root, name)
    return Indexed(name, old, new)


def call_tools(server: Any, steps: Callable[[Client], Awaitable[Any]], **client_options: Any) -> Any:
    """Connect the SDK's client to `server` (an MCPServer in memory, a URL, a stdio transport), run `steps`."""

    async def session() -> Any:
        async with Client(server, **client_options) as client:
            return await steps(client)

    return anyio.run(session)


def structured(result: CallToolResult) -> dict:
    """A successful call's structured output, checked to be what its text content says too."""
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def received_tokens(result: CallToolResult) -> int:
    """The tokens a client receives for a successful call (characters / 4): its text content, which a client may
    show its model, and its structured content, which another shows instead, as the compact JSON on the wire."""
    (content,) = result.content
    on_the_wire = json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)
    return ceil((len(content.text) + len(on_the_wire)) / 4)


def error_text(result: CallToolResult) -> str:
    assert result.is_error and result.structured_content is None
    (content,) = result.content
    assert "\n" not in content.text and "Traceback" not in content.text
    return content.text


def all_text(results: list[CallToolResult]) -> str:
    """Everything the client received, as text."""
    return "\n".join(result.model_dump_json() for result in results)
