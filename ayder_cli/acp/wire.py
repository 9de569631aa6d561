"""JSON-RPC 2.0 over newline-delimited stdio, as ACP carries it: one message a line, both ways.

A thread reads the client's lines. An answer to ayder's own request (a permission) wakes the
caller waiting for it. `arrived` sees each request as it comes: session/cancel is handled there at
once (a prompt may be running), a prompt is stamped with the cancels before it; the rest wait in
`incoming`, taken in order by the main thread.
Writes from any thread are whole lines under one lock, so two messages never interleave.
"""

from __future__ import annotations

import json
import queue
import threading
from typing import Any, BinaryIO, Callable

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603


class RpcError(Exception):
    """A request that fails: answered with this code and message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Connection:
    def __init__(self, reader: BinaryIO, writer: BinaryIO, *, arrived: Callable[[dict], bool],
                 log: Callable[[str], None]) -> None:
        self._reader, self._writer = reader, writer
        self._arrived, self._log = arrived, log
        self._write_lock = threading.Lock()
        self._waiting: dict[int, tuple[threading.Event, list]] = {}
        self._next_id = 0
        self._closed = False
        self.incoming: queue.Queue[dict | None] = queue.Queue()  # None: the client closed stdin

    def start(self) -> None:
        threading.Thread(target=self._read, name="ayder-acp-reader", daemon=True).start()

    # --- writing

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._write_lock:
            try:
                self._writer.write(line.encode("utf-8"))
                self._writer.flush()
            except (OSError, ValueError):  # the client is gone: stdin's end says so to the main thread
                self._log("acp: the client no longer reads stdout")

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def answer(self, request_id: Any, result: Any) -> None:
        self.send({"id": request_id, "result": result})

    def fail(self, request_id: Any, code: int, message: str) -> None:
        self.send({"id": request_id, "error": {"code": code, "message": message}})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        """Ask the client and wait for its answer (a Ctrl-C, i.e. session/cancel, interrupts the wait);
        RpcError when it answers with an error or has gone."""
        with self._write_lock:
            self._next_id += 1
            request_id = self._next_id
        done, box = threading.Event(), []  # type: tuple[threading.Event, list[dict]]
        self._waiting[request_id] = (done, box)
        try:
            if self._closed:
                raise RpcError(INTERNAL_ERROR, "the client has gone")
            self.send({"id": request_id, "method": method, "params": params})
            done.wait()
        finally:
            self._waiting.pop(request_id, None)
        message = box[0]
        if "error" in message:
            error = message["error"] or {}
            raise RpcError(error.get("code", INTERNAL_ERROR), str(error.get("message", "error")))
        return message.get("result")

    # --- reading

    def _read(self) -> None:
        try:
            for raw in self._reader:
                if raw.strip():
                    self._take(raw)
        except (OSError, ValueError):
            pass
        self._closed = True
        for done, box in list(self._waiting.values()):  # nobody will answer these now
            box.append({"error": {"code": INTERNAL_ERROR, "message": "the client has gone"}})
            done.set()
        self.incoming.put(None)

    def _take(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            self.fail(None, PARSE_ERROR, "not JSON")
            return
        if not isinstance(message, dict):
            self.fail(None, INVALID_REQUEST, "not a JSON-RPC message")
        elif "method" not in message:  # an answer to one of ours
            waiting = self._waiting.get(message["id"]) if isinstance(message.get("id"), int) else None
            if waiting is not None:
                waiting[1].append(message)
                waiting[0].set()
        elif not self._arrived(message):
            self.incoming.put(message)
