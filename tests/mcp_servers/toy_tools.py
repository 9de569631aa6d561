"""The toy MCP server's tools and start, shared by toy_server.py (built on the official SDK) and
toy_stdlib_server.py (the standard library alone): echo, a slow tool, one that fails, one that ends
the process mid-call. The server appends its pid to $TOY_PID_FILE, so a test can check it is gone
after the run, and with $TOY_HANG set never answers the handshake."""

from __future__ import annotations

import os
import time
from typing import Any


def echo(text: str) -> str:
    """Say the text back, marked."""
    return f"toy says: {text}"


def slow(seconds: float) -> str:
    """Wait that long, then answer."""
    if os.environ.get("TOY_SLOW_MARK"):
        with open(os.environ["TOY_SLOW_MARK"], "w", encoding="utf-8") as file:
            file.write("waiting\n")
    time.sleep(seconds)
    return "slow done"


def fail() -> str:
    """Always fails."""
    raise ValueError("the toy tool failed on purpose")


def crash() -> str:
    """Ends the server's process in the middle of the call."""
    os._exit(3)


def with_tools(server: Any) -> Any:
    """The server, offering the toy tools (both servers' tool() decorators take a function as it is).
    $TOY_ECHO_DESCRIPTION, when set, is echo's description (a server's text the terminal must not act on)."""
    echo.__doc__ = os.environ.get("TOY_ECHO_DESCRIPTION", echo.__doc__)
    for tool in (echo, slow, fail, crash):
        server.tool()(tool)
    return server


def start(server: Any) -> None:
    """Run the server over stdio, as a test asked through the environment."""
    if os.environ.get("TOY_PID_FILE"):
        with open(os.environ["TOY_PID_FILE"], "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
    if os.environ.get("TOY_HANG"):
        time.sleep(60)  # never answers the handshake: a server that does not start
    server.run()
