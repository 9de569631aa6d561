"""The tools of a support/stdio_mcp.py server offered over streamable HTTP, from a thread of the test
process: no second Python (the SDK's server over HTTP costs most of a CPU-second to start, uvicorn and
starlette on top of pydantic).

The transport as the MCP specification has it for a server that keeps no session: the client POSTs
each JSON-RPC message to the one URL, accepting application/json and text/event-stream; a request is
answered in the response's body as application/json, a notification or an answer with 202 Accepted
and no body. GET (a stream of the server's own messages) and DELETE (the end of a session) are
405 Method Not Allowed, as the specification lets a server without them say. The headers of every
POST are kept, so a test sees what the client sent.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from support.stdio_mcp import PARSE_ERROR, StdioServer

PATH = "/mcp"


class HttpMcp:
    """`with HttpMcp(server) as web:` the server's tools at web.url until the block ends."""

    def __init__(self, server: StdioServer) -> None:
        self.server = server
        self.headers: list[dict[str, str]] = []  # each POST's headers, their names in lower case
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}{PATH}"
        self._thread = threading.Thread(target=self._http.serve_forever, name="http-mcp", daemon=True)

    def __enter__(self) -> HttpMcp:
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(5)


def _handler_for(web: HttpMcp) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            web.headers.append({name.lower(): value for name, value in self.headers.items()})
            if self.path.split("?")[0] != PATH:
                self._reply(404)
                return
            if "application/json" not in self.headers.get("Accept", ""):
                self._reply(406)  # the client must accept a JSON answer
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                message = json.loads(body)
            except ValueError:
                self._reply(400, {"jsonrpc": "2.0", "id": None,
                                  "error": {"code": PARSE_ERROR, "message": "Parse error"}})
                return
            answer = web.server.handle(message)
            if answer is None:
                self._reply(202)
            else:
                self._reply(200, answer)

        def do_GET(self) -> None:  # noqa: N802
            self._reply(405)

        def do_DELETE(self) -> None:  # noqa: N802
            self._reply(405)

        def _reply(self, status: int, message: dict | None = None) -> None:
            data = b"" if message is None else json.dumps(message).encode("utf-8")
            self.send_response(status)
            if message is not None:
                self.send_header("Content-Type", "application/json")
            if status == 405:
                self.send_header("Allow", "POST")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_) -> None:  # a test's output is not the server's log
            pass

    return Handler
