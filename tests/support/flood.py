"""A fake LLM server whose chosen paths answer with a body that never ends, counting what it wrote.

    with FloodingLLM({"/props": 200, "/v1/chat/completions": 500}) as server: ...

Every other path is the ordinary FakeLLM. With `every_s`, the body trickles instead: a few bytes
at that pace, so each read gets something and only a deadline ends it. `served` is how many body bytes the endless answers
got into the socket before the client closed it; `finished` is set once every one of them ended.
"""

from __future__ import annotations

import threading
import time

from support.fakellm import FakeLLM, _Handler

PIECE = 65536
GIVE_UP_BYTES = 512 * 1024 * 1024  # a client that never stops must not fill the test machine's memory either


class FloodingLLM(FakeLLM):
    def __init__(self, endless: dict[str, int], head: bytes = b'{"data": "', every_s: float = 0.0) -> None:
        super().__init__()
        self.endless = endless  # path -> HTTP status of the endless answer
        self.head = head  # the start of the body, so it looks like the JSON asked for
        self.every_s = every_s
        self.served = 0
        self.answers = 0  # endless answers begun
        self.running = 0  # endless answers still writing
        self.finished = threading.Event()
        self.finished.set()
        self._count = threading.Lock()
        self.server.RequestHandlerClass = type("Handler", (_FloodHandler,), {"fake": self})

    def _begin(self) -> None:
        with self._count:
            self.answers += 1
            self.running += 1
            self.finished.clear()

    def _end(self) -> None:
        with self._count:
            self.running -= 1
            if not self.running:
                self.finished.set()


class _FloodHandler(_Handler):
    fake: FloodingLLM

    def do_GET(self) -> None:
        if self.path not in self.fake.endless:
            return super().do_GET()
        self._record(None)
        self._flood()

    def do_POST(self) -> None:
        if self.path not in self.fake.endless:
            return super().do_POST()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._record(None)
        self._flood()

    def _flood(self) -> None:
        fake = self.fake
        fake._begin()
        try:
            self.send_response(fake.endless[self.path])
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            if 300 <= fake.endless[self.path] < 400:  # a redirect to nowhere, its body endless too
                self.send_header("Location", "/moved")
            self.end_headers()
            data = fake.head + b"a" * (PIECE - len(fake.head))
            while fake.served < GIVE_UP_BYTES:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                fake.served += len(data)
                data = b"a" * (16 if fake.every_s else PIECE)
                time.sleep(fake.every_s)
        except OSError:  # the client closed the connection: what the tests expect
            pass
        finally:
            self.close_connection = True
            fake._end()
