"""An MCP server over stdio for the side-by-side test: `meet` answers how many calls were inside it
at once. Each call waits (at most $MEET_WAIT_S seconds) for MEET_AT calls to be inside together, so calls that
ayder runs side by side answer MEET_AT, and calls run one by one answer 1.
On the standard library alone (support/stdio_mcp.py, each call on a thread of its own): it starts in a few
hundredths of a second."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for support/
from support.stdio_mcp import StdioServer  # noqa: E402

MEET_AT = 4
server = StdioServer("meeting")
inside = {"now": 0, "most": 0}
counting = threading.Lock()
all_in = threading.Event()


@server.tool()
def meet(n: int) -> str:
    """Wait for the other callers; say how many were inside at once."""
    with counting:
        inside["now"] += 1
        inside["most"] = max(inside["most"], inside["now"])
        if inside["now"] >= MEET_AT:
            all_in.set()
    all_in.wait(float(os.environ.get("MEET_WAIT_S", "10")))
    with counting:
        inside["now"] -= 1
        return f"call {n}: {inside['most']} inside at once"


if __name__ == "__main__":
    server.run()
