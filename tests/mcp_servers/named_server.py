"""An MCP server on the standard library whose tools are named on its command line: each takes `text`
and answers "<its name> ran: <text>", so a test sees which tool a call reached."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for support/
from support.stdio_mcp import StdioServer  # noqa: E402


def tool_that_says(name: str):
    def run(text: str) -> str:
        return f"{name} ran: {text}"

    return run


if __name__ == "__main__":
    server = StdioServer("named")
    for name in sys.argv[1:]:
        server.tool(name=name, description=f"Answers as {name}.")(tool_that_says(name))
    server.run()
