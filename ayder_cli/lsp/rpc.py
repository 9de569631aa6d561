"""JSON-RPC 2.0 over a language server's pipes: Content-Length framed messages, one reader thread.

Requests are synchronous: request() writes and waits, up to its deadline, for the response
the reader thread files. Notifications the server sends (publishDiagnostics) are kept per
document for whoever waits on them; requests the server sends (workspace/configuration,
client/registerCapability, ...) are answered at once with nothing, which every server takes.
"""

from __future__ import annotations

import json
import os
import select
import threading
import time
from typing import IO, Any

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a header announcing more is a broken server, not a message


class Silent(Exception):
    """The server did not answer within the time limit."""


class Gone(Exception):
    """The server's pipe closed, or it answered with an error."""


class Connection:
    """One server's pipes: requests out and their responses in, its notifications kept."""

    def __init__(self, to_server: IO[bytes], from_server: IO[bytes]) -> None:
        self.to_server = to_server
        self.from_server = from_server
        self.changed = threading.Condition()  # a response or a notification arrived, or the pipe closed
        self.responses: dict[int, dict] = {}
        self.published: dict[str, tuple[int, dict]] = {}  # uri -> (arrival number, params of publishDiagnostics)
        self.arrivals = 0  # notifications counted as they arrive: what came after a change is newer
        self.closed = False
        self.next_id = 0
        self.writing = threading.Lock()  # the reader thread answers the server's requests too
        os.set_blocking(to_server.fileno(), False)  # a server that stops reading cannot hold a write for ever
        self.reader = threading.Thread(target=self._read, name="ayder-lsp-reader", daemon=True)
        self.reader.start()

    def request(self, method: str, params: Any, timeout_s: float) -> Any:
        """The result of `method`, waited for up to timeout_s. Silent when late, Gone when closed or refused."""
        deadline = time.monotonic() + timeout_s
        self.next_id += 1
        number = self.next_id
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params}, deadline)
        with self.changed:
            while number not in self.responses:
                self._wait(deadline)
            response = self.responses.pop(number)
        if "error" in response:
            error = response["error"] if isinstance(response["error"], dict) else {}
            raise Gone(f"{method}: {error.get('message', 'error')}")
        return response.get("result")

    def notify(self, method: str, params: Any, timeout_s: float) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params}, time.monotonic() + timeout_s)

    def published_after(self, uri: str, arrival: int, version: int, deadline: float) -> dict:
        """The first diagnostics published for `uri` for this version (or, from a server that gives no
        version, arrived after notification number `arrival`)."""
        with self.changed:
            while True:
                found = self.published.get(uri)
                if found is not None:
                    number, params = found
                    given = params.get("version")
                    if (given == version) if isinstance(given, int) else number > arrival:
                        return params
                self._wait(deadline)

    def _wait(self, deadline: float) -> None:
        if self.closed:
            raise Gone("the server closed its output")
        left = deadline - time.monotonic()
        if left <= 0:
            raise Silent()
        self.changed.wait(left)

    def _send(self, message: dict, deadline: float) -> None:
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        fd = self.to_server.fileno()
        with self.writing:
            self._write(fd, data, deadline)

    @staticmethod
    def _write(fd: int, data: bytes, deadline: float) -> None:
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Silent()
            try:
                _, ready, _ = select.select([], [fd], [], left)
                if ready:
                    data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError, ValueError):
                raise Gone("the server closed its input") from None

    def _read(self) -> None:
        try:
            while True:
                message = self._message()
                if message is None:
                    break
                self._file(message)
        finally:
            with self.changed:
                self.closed = True
                self.changed.notify_all()

    def _message(self) -> dict | None:
        """The next message, or None at the end of the pipe (or a broken frame: the server is no use)."""
        length = None
        while True:
            line = self.from_server.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    return None
        if length is None or not 0 <= length <= MAX_MESSAGE_BYTES:
            return None
        body = self.from_server.read(length)
        if len(body) < length:
            return None
        try:
            message = json.loads(body)
        except ValueError:
            return {}
        return message if isinstance(message, dict) else {}

    def _file(self, message: dict) -> None:
        if "method" in message and "id" in message:  # the server asks: an empty answer serves them all
            params = message.get("params")
            items = params.get("items") if isinstance(params, dict) else None
            result = [None] * len(items) if message["method"] == "workspace/configuration" and isinstance(
                items, list) else None
            try:
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": result}, time.monotonic() + 1.0)
            except (Silent, Gone):
                pass
            return
        with self.changed:
            if "id" in message and isinstance(message["id"], int):
                self.responses[message["id"]] = message
            elif message.get("method") == "textDocument/publishDiagnostics" and isinstance(
                    message.get("params"), dict) and isinstance(message["params"].get("uri"), str):
                self.arrivals += 1
                self.published[message["params"]["uri"]] = (self.arrivals, message["params"])
            else:
                return
            self.changed.notify_all()
