"""toy_server.py's tools (toy_tools.py) on the standard library alone (support/stdio_mcp.py). It starts
in a few hundredths of a second where the SDK's takes most of one, so the end-to-end tests use it;
toy_server.py stays for those of interoperation with the SDK."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for support/
from support.stdio_mcp import StdioServer  # noqa: E402
from toy_tools import start, with_tools  # noqa: E402

server = with_tools(StdioServer("toy"))

if __name__ == "__main__":
    start(server)
