"""The standard-library MCP server the end-to-end tests start (support/stdio_mcp.py), on the wire: one
JSON-RPC message a line, as the MCP stdio transport has it. A toy server that spoke the protocol wrongly
would make the tests of ayder's client pass or fail for its own reasons."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

TOY = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "toy_stdlib_server.py")


def exchange(*messages: dict | str, answers: int | None = None) -> list[dict]:
    """Each message written as one line (a str as it is); the server's lines read (one a request unless
    told), parsed, then stdin closed: the server must end."""
    if answers is None:
        answers = sum(1 for m in messages if isinstance(m, str) or "id" in m)
    server = subprocess.Popen([sys.executable, TOY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    guard = threading.Timer(30, server.kill)  # a guard against a hang, not a timing: the reads then fail
    guard.start()
    try:
        server.stdin.write("".join((m if isinstance(m, str) else json.dumps(m)) + "\n" for m in messages))
        server.stdin.flush()
        # Calls answer from their own threads: read before stdin closes, as a client would.
        read = [json.loads(server.stdout.readline()) for _ in range(answers)]
        server.stdin.close()
        assert server.wait(timeout=30) == 0
        assert server.stdout.read() == ""
    finally:
        guard.cancel()
        if server.poll() is None:
            server.kill()
            server.wait()
    return read


def request(n: int, method: str, **params) -> dict:
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": params}


def test_the_handshake_ping_and_tools_as_the_spec_has_them():
    init, ping, listed = exchange(
        request(1, "initialize", protocolVersion="2025-06-18", capabilities={}, clientInfo={"name": "t"}),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},  # a notification: no answer
        request(2, "ping"), request(3, "tools/list"))
    assert init["id"] == 1 and init["result"]["protocolVersion"] == "2025-06-18"  # the client's, being ours
    assert init["result"]["serverInfo"]["name"] == "toy" and "tools" in init["result"]["capabilities"]
    assert ping == {"jsonrpc": "2.0", "id": 2, "result": {}}
    echo = listed["result"]["tools"][0]
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["echo", "slow", "fail", "crash"]
    assert echo["inputSchema"] == {"properties": {"text": {"title": "Text", "type": "string"}}, "required": ["text"],
                                   "type": "object", "title": "echoArguments"}


def test_a_version_not_ours_is_answered_with_our_newest():
    [init] = exchange(request(1, "initialize", protocolVersion="1999-01-01", capabilities={}, clientInfo={}))
    assert init["result"]["protocolVersion"] == "2025-11-25"


def test_calls_answer_content_and_is_error():
    echo, fail, wrong, unknown = exchange(
        request(1, "tools/call", name="echo", arguments={"text": "hi"}), request(2, "tools/call", name="fail"),
        request(3, "tools/call", name="slow", arguments={"seconds": "soon"}),
        request(4, "tools/call", name="nope", arguments={}))
    # One thread a call: the answers may come in any order.
    echo, fail, wrong, unknown = sorted([echo, fail, wrong, unknown], key=lambda answer: answer["id"])
    assert echo["result"] == {"content": [{"type": "text", "text": "toy says: hi"}], "isError": False,
                              "structuredContent": {"result": "toy says: hi"}}
    assert fail["result"] == {"content": [{"type": "text", "text": "Error executing tool fail"}], "isError": True}
    assert wrong["result"]["isError"] and "seconds\n  Input should be a valid number" in (
        wrong["result"]["content"][0]["text"])
    assert unknown["result"] == {"content": [{"type": "text", "text": "Unknown tool: nope"}], "isError": True}


def test_an_unknown_method_and_a_line_not_json_are_json_rpc_errors():
    unknown, broken = exchange(request(1, "resources/list"), "{not json")
    assert unknown["id"] == 1 and unknown["error"]["code"] == -32601 and unknown["error"]["data"] == "resources/list"
    assert broken == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
