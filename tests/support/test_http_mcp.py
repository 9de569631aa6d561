"""The toy tools over streamable HTTP (support/http_mcp.py), on the wire: a request answered in the
POST's body as JSON, a notification with 202 and nothing, what the server does not offer refused as the
MCP specification says, every request's headers kept."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from support.http_mcp import HttpMcp
from support.stdio_mcp import StdioServer

ACCEPT = "application/json, text/event-stream"


def echo(text: str) -> str:
    """Say it back."""
    return f"echo: {text}"


@pytest.fixture
def web():
    server = StdioServer("web")
    server.tool()(echo)
    with HttpMcp(server) as serving:
        yield serving


def post(url: str, message, accept: str = ACCEPT, method: str = "POST") -> tuple[int, str, bytes]:
    """-> (status, content type, body)"""
    data = None if message is None else json.dumps(message).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Accept": accept, "Content-Type": "application/json", "Authorization": "Bearer t0ken"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers.get("Content-Type", ""), refused.read()


def test_a_request_is_answered_in_the_body_and_a_notification_with_202(web):
    status, kind, body = post(web.url, {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                        "params": {"name": "echo", "arguments": {"text": "hi"}}})
    assert (status, kind) == (200, "application/json")
    assert json.loads(body)["id"] == 7 and json.loads(body)["result"]["content"][0]["text"] == "echo: hi"
    assert post(web.url, {"jsonrpc": "2.0", "method": "notifications/initialized"}) == (202, "", b"")
    assert [seen["authorization"] for seen in web.headers] == ["Bearer t0ken", "Bearer t0ken"]


def test_what_it_does_not_offer_is_refused_as_the_spec_says(web):
    assert post(web.url, None, method="GET")[0] == 405  # no stream of the server's own messages
    assert post(web.url, None, method="DELETE")[0] == 405  # no session to end
    assert post(web.url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, accept="text/html")[0] == 406
    assert post(web.url.replace("/mcp", "/other"), {"jsonrpc": "2.0", "id": 1, "method": "ping"})[0] == 404
    status, _, body = post(web.url, "{not json")  # a JSON string, not an object: an invalid request
    assert status == 200 and json.loads(body)["error"]["code"] == -32600
