"""toy_server.py's tools on the standard library alone (support/stdio_mcp.py): echo, a slow tool, one that
fails, one that ends the process mid-call. It starts in a few hundredths of a second where the SDK's takes
most of one, so the end-to-end tests use it; toy_server.py stays for those of interoperation with the SDK.
It appends its pid to $TOY_PID_FILE, so a test can check it is gone after the run."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for support/
from support.stdio_mcp import StdioServer  # noqa: E402

server = StdioServer("toy")


@server.tool()
def echo(text: str) -> str:
    """Say the text back, marked."""
    return f"toy says: {text}"


@server.tool()
def slow(seconds: float) -> str:
    """Wait that long, then answer."""
    if os.environ.get("TOY_SLOW_MARK"):
        with open(os.environ["TOY_SLOW_MARK"], "w", encoding="utf-8") as file:
            file.write("waiting\n")
    time.sleep(seconds)
    return "slow done"


@server.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("the toy tool failed on purpose")


@server.tool()
def crash() -> str:
    """Ends the server's process in the middle of the call."""
    os._exit(3)


if __name__ == "__main__":
    if os.environ.get("TOY_PID_FILE"):
        with open(os.environ["TOY_PID_FILE"], "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
    if os.environ.get("TOY_HANG"):
        time.sleep(60)  # never answers the handshake: a server that does not start
    server.run()
