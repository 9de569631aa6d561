"""A scripted fake LLM server on 127.0.0.1 speaking Ollama NDJSON and OpenAI SSE.

Tests queue Reply objects; each request takes the next one (or a default
"ok"), and every request is recorded so a test can assert on what ayder sent.
A test whose replies depend on the request (a summary asked for in the middle
of a tool loop) sets `respond` instead: it gets each chat request's body.

    POST /api/chat                 Ollama, NDJSON when streaming
    POST /v1/chat/completions      OpenAI-compatible, SSE when streaming
    GET  /api/tags, /v1/models     model lists (/v1/models entries carry `model_meta`)
    GET  /props                    llama.cpp's server properties, when `props` is set
    any  a path in `routes`        a fixed answer (a web server's HTML page, a proxy's)
    POST /api/show                 Ollama's model details, when `show` is set

With `window` set, the server counts each prompt (about four characters a
token) and reports that count (or `reported_prompt`, whatever it read, as some
proxies do); a prompt over the window is refused with llama.cpp's 400 on /v1
(each refused size kept in `refused`). On /api/chat it is refused with Ollama's
400 when the request says `"truncate": false`, else cut silently, oldest
messages first, as Ollama does. `cuts_silently` makes both cut, whatever the
request says: an older Ollama, or Ollama's own /v1 endpoint, which cannot be
told not to.

Run it by hand too:  python tests/support/fakellm.py --port 8000 --reply "hello"
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import selectors
import socket
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

if __name__ == "__main__":  # run by hand (python tests/support/fakellm.py): tests/ is not on the path yet
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.fake_wire import ollama_lines, openai_events, progress_event, whole_body  # noqa: E402


COUNTED = "counted"


@dataclass
class Reply:
    text: str = "ok"
    chunks: list[str] | None = None  # content deltas; default: text in pieces of 4 characters
    thinking: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {"name", "arguments", "id"?}
    finish_reason: str = "stop"
    # (prompt, completion) tokens reported; COUNTED: the request's own count (a real server's), with 7
    usage: tuple[int, int] | str | None = COUNTED
    status: int = 200
    error: str | None = None  # error message for a status >= 400
    error_body: dict[str, Any] | None = None  # for a status >= 400: this JSON body as is (a real server's own)
    # Not an API answer: this body with `status` and `content_type`, streamed or not (a proxy's page, a web UI)
    page: str | None = None
    content_type: str = "text/html; charset=utf-8"
    echo_auth: bool = False  # append the Authorization header received to the error message
    headers: dict[str, str] = field(default_factory=dict)
    chunked: bool = True  # False: no Transfer-Encoding, the body ends when the connection closes
    first_delay_s: float = 0.0  # before the first delta
    hold_after: int | None = None  # after this many deltas (0: before the first), wait for `release` (or hold_s)
    hold_s: float = 30.0
    release: threading.Event | None = None
    cut_after: int | None = None  # close the connection after this many deltas, unfinished
    error_mid_stream: str | None = None  # send an error object after the deltas
    keepalive_comments: bool = False  # SSE `:` comment lines between events
    multiline_data: bool = False  # SSE: each event's JSON over two data: lines
    reject_stream_options: bool = False  # 400 when the request has stream_options
    reject_tools: bool = False  # 400 when the request has tools
    # A streamed request answered with the whole JSON body, as a server that ignores "stream" does;
    # indented over many lines when `unstreamed_indent` is set (not one NDJSON line then).
    unstreamed: bool = False
    unstreamed_indent: int | None = None
    cached: int | None = None  # prompt tokens reported as reused from the cache (llama.cpp timings, Ollama)
    speed: float | None = None  # tokens generated per second (llama.cpp predicted_per_second, Ollama eval_duration)
    # After this many deltas (0: before the first), keep-alives only: SSE `: ping` comments, Ollama lines
    # with empty content, every keepalive_every_s until `release` (or hold_s); then the rest of the reply.
    keepalive_after: int | None = None
    keepalive_every_s: float = 0.2
    delta_every_s: float = 0.0  # a pause before each delta after the first: a slow model
    empty_choices: bool = False  # OpenAI: every chunk with "choices": [], then [DONE]; Ollama: a bare "done"
    # One malformed SSE event / NDJSON line (not JSON) before each delta index listed; an index may repeat.
    malformed_at: tuple[int, ...] = ()
    # OpenAI: each tool call's id in this many pieces, one per fragment (the first beside the name);
    # repeat_id: the whole id again in every fragment of the call, as some servers send it.
    id_pieces: int | None = None
    repeat_id: bool = False
    argument_pieces: int | None = None  # OpenAI: each tool call's arguments in this many fragments (default 2)
    # Reading the prompt before the first delta: `reading_s` seconds, silent, or with llama.cpp's
    # prompt_progress chunks every progress_every_s when the request asked (return_progress).
    # prompt_speed: the reading speed reported after (llama.cpp timings, Ollama prompt_eval_duration).
    reading_s: float = 0.0
    progress_every_s: float = 0.5
    prompt_speed: float | None = None

    # --- the common shapes, by name

    @classmethod
    def calling(cls, name: str, arguments: dict[str, Any] | str | None = None, *, id: str | None = None,
                **fields: Any) -> Reply:
        """A reply that only calls one tool, natively; arguments may be a string (JSON as the model wrote it)."""
        call: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else arguments}
        if id is not None:
            call["id"] = id
        return cls(text="", tool_calls=[call], **fields)

    @classmethod
    def held(cls, *chunks: str, after: int, release: threading.Event, **fields: Any) -> Reply:
        """A streamed reply whose first `after` chunks go out at once; the rest wait until `release` is set
        (after=0: not a byte before)."""
        return cls(chunks=list(chunks), hold_after=after, release=release, **fields)

    @classmethod
    def failing(cls, status: int, error: str, **fields: Any) -> Reply:
        """An error answer: the HTTP status and the message, in the protocol's own error shape."""
        return cls(status=status, error=error, **fields)


def numbered(sentence: str, times: int) -> str:
    """`sentence` `times` over, each copy numbered: a long answer that does not repeat itself (a reply
    repeating a block of text is a model's loop, stopped by ayder: agent/repeats.py)."""
    head = sentence.rstrip().rstrip(".")
    return "".join(f"{head} {n}. " for n in range(1, times + 1))


class FakeLLM:
    def __init__(self, models: tuple[str, ...] = ("qwen2.5-coder:7b", "llama3.2:3b")) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.models = models
        self.props: dict[str, Any] | None = None  # llama.cpp GET /props (None: 404, as other servers)
        self.show: dict[str, Any] | None = None  # Ollama POST /api/show (None: 404, as a model it lacks)
        self.model_meta: dict[str, Any] = {}  # extra fields of each /v1/models entry (vLLM max_model_len, ...)
        self.window: int | None = None  # the context window served; None: prompts are not counted
        self.refused: list[int] = []  # the size of each prompt refused as over the window
        self.reported_prompt: int | None = None  # the prompt count reported whatever was read (a proxy's 0 or 1)
        self.truncated: list[int] = []  # Ollama: the size of each prompt that was cut to fit the window
        self.cuts_silently = False  # an over-long prompt is cut and answered 200, on both endpoints
        # path -> (status, content type, body) answered to GET and POST alike, before anything else; "*": any path
        self.routes: dict[str, tuple[int, str, str]] = {}
        self.default = Reply()
        # When set, every request but a chat waits until it is set: a server still loading as ayder starts
        self.starting: threading.Event | None = None
        self.respond: Callable[[dict[str, Any]], Reply] | None = None  # the reply to a chat body, if set
        self._served: list[Reply] = []
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"fake": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        # stop() wakes the loop through this pipe: every end-to-end test stops a server, and a polling
        # loop (serve_forever) would keep each waiting for its next poll.
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._serve, name="fake-llm", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    def queue(self, *replies: Reply) -> "FakeLLM":
        self.script.extend(replies)
        return self

    def next_reply(self, body: Any = None) -> Reply:
        with self._lock:
            if self.respond is not None:
                reply = self.respond(body)
            else:
                reply = self.script.popleft() if self.script else self.default
            self._served.append(reply)
            return reply

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"].endswith(("/chat", "/chat/completions"))]

    def wait_for_chat(self, count: int, timeout_s: float = 20.0) -> list[dict[str, Any]]:
        """The chat requests once there are at least `count` of them; AssertionError after timeout_s."""
        deadline = time.monotonic() + timeout_s
        while len(self.chat_requests()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} chat requests, got {len(self.chat_requests())}")
            time.sleep(0.002)
        return self.chat_requests()

    def release_all(self) -> None:
        """Let every held reply finish (tests call it on the way out)."""
        for reply in [self.default, *self.script, *self._served]:
            if reply.release is not None:
                reply.release.set()

    def start(self) -> "FakeLLM":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release_all()
        os.write(self._wake_write, b"x")
        if self._thread.is_alive():
            self._thread.join()
        self.server.server_close()
        os.close(self._wake_read)
        os.close(self._wake_write)

    def _serve(self) -> None:
        """Accept each connection as it comes (a thread handles it) until stop()."""
        with selectors.DefaultSelector() as selector:
            selector.register(self.server, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while True:
                ready = [key.fileobj for key, _ in selector.select()]
                if self._wake_read in ready:
                    return
                self.server.handle_request()

    def __enter__(self) -> "FakeLLM":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    fake: FakeLLM
    protocol_version = "HTTP/1.1"
    # Each delta goes out at once: with Nagle's algorithm, a small write waits for the client's
    # delayed ACK (40 ms on Linux), and every reply would take that long for nothing.
    disable_nagle_algorithm = True

    def log_message(self, *args) -> None:  # quiet
        pass

    # --- routing

    def do_GET(self) -> None:
        self._record(None)
        self._wait_until_started()
        if self._routed():
            return
        if self.path == "/api/tags":
            self._json(200, {"models": [{"name": m} for m in self.fake.models]})
        elif self.path == "/props" and self.fake.props is not None:
            self._json(200, self.fake.props)
        elif self.path.endswith("/v1/models"):
            self._json(200, {"object": "list", "data": [{"id": m, "object": "model", **self.fake.model_meta}
                                                        for m in self.fake.models]})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        self._record(body)
        if not self.path.endswith(("/api/chat", "/chat/completions")):
            self._wait_until_started()
        if self._routed():
            return
        if self.path == "/api/chat":
            self._chat(body, ollama=True)
        elif self.path == "/api/show" and self.fake.show is not None:
            self._json(200, self.fake.show)
        elif self.path.endswith("/chat/completions"):
            self._chat(body, ollama=False)
        else:
            self._json(404, {"error": f"no route {self.path}"})

    def _wait_until_started(self) -> None:
        if self.fake.starting is not None:
            self.fake.starting.wait(30)

    def _routed(self) -> bool:
        """A path in `routes` (or "*": every path) gets its own fixed answer."""
        route = self.fake.routes.get(self.path, self.fake.routes.get("*"))
        if route is None:
            return False
        self._raw(*route)
        return True

    def _raw(self, status: int, content_type: str, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _record(self, body: Any) -> None:
        self.fake.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body})

    # --- chat

    def _chat(self, body: dict, ollama: bool) -> None:
        reply = self.fake.next_reply(body)
        if reply.reject_stream_options and "stream_options" in body:
            return self._json(400, {"error": {"message": "Unrecognized request argument: stream_options"}})
        if reply.reject_tools and body.get("tools"):
            return self._json(400, {"error": {"message": "tools are not supported by this model"}})
        if reply.page is not None:
            return self._raw(reply.status, reply.content_type, reply.page)
        if reply.status >= 400 and reply.error_body is not None:
            return self._json(reply.status, reply.error_body, reply.headers)
        if reply.status >= 400:
            message = reply.error or "error"
            if reply.echo_auth:
                message += f" (received {self.headers.get('Authorization', 'no Authorization header')})"
            payload = {"error": message} if ollama else {"error": {"message": message, "type": "error"}}
            return self._json(reply.status, payload, reply.headers)
        if self.fake.window is not None:
            reply = self._in_window(reply, body, ollama)
            if reply is None:
                return None
        elif reply.usage == COUNTED:
            reply = dataclasses.replace(reply, usage=(prompt_tokens(list(body.get("messages") or []),
                                                                    body.get("tools")), 7))
        model = body.get("model", "")
        if not body.get("stream", True) or reply.unstreamed:
            return self._json(200, whole_body(reply, model, ollama), reply.headers, indent=reply.unstreamed_indent)
        events = ollama_lines(reply, model) if ollama else openai_events(reply, model)
        progress = not ollama and body.get("return_progress") is True
        self._stream(reply, events, "application/x-ndjson" if ollama else "text/event-stream", ollama, progress)

    def _in_window(self, reply: Reply, body: dict, ollama: bool) -> Reply | None:
        """The reply with the prompt's own token count; a prompt over the window refused (None) or cut."""
        window = self.fake.window
        messages = list(body.get("messages") or [])
        tokens = prompt_tokens(messages, body.get("tools"))
        if tokens > window and not self.fake.cuts_silently and (not ollama or body.get("truncate") is False):
            self.fake.refused.append(tokens)
        if tokens > window and not ollama and not self.fake.cuts_silently:
            self._json(400, {"error": {"code": 400, "type": "exceed_context_size_error",
                                       "message": "the request exceeds the available context size, try increasing it",
                                       "n_prompt_tokens": tokens, "n_ctx": window}})
            return None
        if tokens > window and body.get("truncate") is False and not self.fake.cuts_silently:
            # Ollama passes on its runner's error as a JSON string inside its own error
            inner = {"error": {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": tokens,
                               "n_ctx": window, "message": f"request ({tokens} tokens) exceeds the available "
                                                           f"context size ({window} tokens), try increasing it"}}
            self._json(400, {"error": json.dumps(inner)})
            return None
        if tokens > window:
            self.fake.truncated.append(tokens)
            while tokens > window and len(messages) > 2:
                del messages[1 if messages[0].get("role") == "system" else 0]
                tokens = prompt_tokens(messages, body.get("tools"))
        reported = tokens if self.fake.reported_prompt is None else self.fake.reported_prompt
        completion = reply.usage[1] if isinstance(reply.usage, tuple) else 7
        return dataclasses.replace(reply, usage=(reported, completion))

    def _stream(self, reply: Reply, events: list[bytes], content_type: str, ollama: bool,
                progress: bool = False) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        if reply.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.flush()
        if reply.first_delay_s:
            time.sleep(reply.first_delay_s)
        if reply.reading_s:
            self._read_prompt(reply, progress)
        if reply.hold_after == 0:
            self._hold(reply)
        deltas = len(events) - (1 if ollama else 2)  # the closing events are not deltas
        try:
            if reply.keepalive_after == 0:
                self._keep_alive(reply, ollama)
            for index, event in enumerate(events):
                if reply.delta_every_s and 0 < index < deltas:
                    time.sleep(reply.delta_every_s)
                if reply.cut_after is not None and index == reply.cut_after:
                    return self._cut()
                if reply.error_mid_stream and index == deltas:
                    error = {"error": reply.error_mid_stream} if ollama else {"error": {"message": reply.error_mid_stream}}
                    data = (json.dumps(error) + "\n").encode() if ollama else f"data: {json.dumps(error)}\n\n".encode()
                    self._write(reply, data)
                    break
                for _ in range(reply.malformed_at.count(index)):
                    self._write(reply, b'{"message": {"content": "tr\n' if ollama else b'data: {"choices": [{"del\n\n')
                if reply.keepalive_comments and not ollama:
                    self._write(reply, b": keep-alive\n\n")
                self._write(reply, event)
                if reply.hold_after is not None and index + 1 == reply.hold_after:
                    self._hold(reply)
                if reply.keepalive_after and index + 1 == reply.keepalive_after:
                    self._keep_alive(reply, ollama)
            if reply.chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _read_prompt(self, reply: Reply, progress: bool) -> None:
        """reading_s of silence, or of llama.cpp's prompt_progress chunks (the first at 0%, as it sends)."""
        if not progress:
            time.sleep(reply.reading_s)
            return
        total = reply.usage[0] if isinstance(reply.usage, tuple) else 100
        cached = reply.cached or 0
        started = time.monotonic()
        while True:
            elapsed = min(time.monotonic() - started, reply.reading_s)
            processed = cached + round((total - cached) * elapsed / reply.reading_s)
            self._write(reply, progress_event(total, cached, processed, round(elapsed * 1000)))
            if elapsed >= reply.reading_s:
                return
            time.sleep(min(reply.progress_every_s, reply.reading_s - elapsed))

    def _hold(self, reply: Reply) -> None:
        if reply.release is not None:
            reply.release.wait(reply.hold_s)
        else:
            time.sleep(reply.hold_s)

    def _keep_alive(self, reply: Reply, ollama: bool) -> None:
        """Only keep-alives, until `release` is set or hold_s has passed."""
        empty_line = json.dumps({"message": {"role": "assistant", "content": ""}, "done": False}) + "\n"
        ping = empty_line.encode() if ollama else b": ping\n\n"
        deadline = time.monotonic() + reply.hold_s
        while time.monotonic() < deadline:
            self._write(reply, ping)
            if reply.release is not None and reply.release.wait(reply.keepalive_every_s):
                return
            if reply.release is None:
                time.sleep(reply.keepalive_every_s)

    def _write(self, reply: Reply, data: bytes) -> None:
        if reply.chunked:
            data = b"%x\r\n%s\r\n" % (len(data), data)
        self.wfile.write(data)
        self.wfile.flush()

    def _cut(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None, indent: int | None = None) -> None:
        data = json.dumps(payload, indent=indent).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def prompt_tokens(messages: list[dict[str, Any]], tools: Any = None) -> int:
    """How many tokens this fake server counts in a prompt: about four characters each."""
    return len(json.dumps(messages) + (json.dumps(tools) if tools else "")) // 4


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--reply", default="Hello from the fake LLM.")
    args = parser.parse_args()
    fake = FakeLLM()
    fake.default = Reply(text=args.reply)
    fake.server.server_close()
    fake.server = ThreadingHTTPServer(("127.0.0.1", args.port), type("Handler", (_Handler,), {"fake": fake}))
    print(f"fake LLM on http://127.0.0.1:{args.port} (Ollama) and http://127.0.0.1:{args.port}/v1 (OpenAI)")
    fake.server.serve_forever()
