"""`spider mcp`: spider's localization and code-graph tools for coding agents, over the Model Context Protocol.

`tools.py` does the work, `answers.py` shapes it, `budget.py` bounds it, `ids.py` says what an id means,
`server.py` puts it on the official SDK's server, and `access.py` says whom its HTTP transport answers;
`query/cli/mcp.py` is the command.
"""

from spider.query.mcp.server import INSTRUCTIONS, build_server
from spider.query.mcp.tools import TOOLS, SpiderTools

__all__ = ["INSTRUCTIONS", "TOOLS", "SpiderTools", "build_server"]
