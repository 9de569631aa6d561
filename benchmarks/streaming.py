"""Streaming benchmark: how fast ayder's clients turn a streamed reply into text, and how soon.

Run:  python benchmarks/streaming.py [--deltas N] [--repeats N] [--strict]

A loopback server (a subprocess of this script, so it does not share the GIL
with the client being timed) streams N tiny deltas as fast as it can, from
body bytes built before the first request:

  OpenAI SSE     data: {"choices":[{"index":0,"delta":{"content":"tok "},...}]}  ... data: [DONE]
  Ollama NDJSON  {"message":{"role":"assistant","content":"tok "},"done":false}  ... "done":true

each with chunked transfer encoding (one HTTP chunk per write of many events)
and with a close-delimited body (no Content-Length, no chunking).

Throughput, in deltas per second:
  floor  a bare requests.post(stream=True) + iter_lines() + json.loads per data line
  ayder  make_client(endpoint_of(Config(...), {})).stream(ChatRequest(...)), every delta fed to Accumulator.add
The target is ayder >= 0.8x the floor, measured in the same run.

Time to first token: the server sends the headers and one delta, then pauses;
ayder's client must hand over that delta at once, not when a read buffer fills.
Exit status is 0 whatever the result, unless --strict is given.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

TARGET_RATIO = 0.8
# A first token later than this fraction of the pause means a read waited for more data.
FIRST_TOKEN_LIMIT = 0.1

SSE_DELTA = b'data: {"choices":[{"index":0,"delta":{"content":"tok "},"finish_reason":null}]}\n\n'
SSE_END = (b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
           b"data: [DONE]\n\n")
NDJSON_DELTA = b'{"message":{"role":"assistant","content":"tok "},"done":false}\n'
NDJSON_END = (b'{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",'
              b'"prompt_eval_count":12,"eval_count":1}\n')
MESSAGES = [{"role": "user", "content": "count"}]


# --------------------------------------------------------------------------- the server


def build_writes(delta: bytes, end: bytes, count: int, per_write: int) -> list[bytes]:
    """The body as the server will write it: groups of `per_write` events, then the ending."""
    group = delta * per_write
    writes = [group] * (count // per_write)
    if count % per_write:
        writes.append(delta * (count % per_write))
    writes.append(end)
    return writes


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def head(content_type: bytes, chunked: bool) -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type + b"\r\n"
            + (b"Transfer-Encoding: chunked\r\n" if chunked else b"")
            + b"Connection: close\r\n\r\n")


class BenchServer:
    """Answers POST /{framing}/v1/chat/completions (SSE) and /{framing}/api/chat (NDJSON).

    framing: chunked | chunked1 (one event per HTTP chunk) | close | ttft-chunked | ttft-close.
    One thread per connection; every response ends by closing the connection.
    """

    def __init__(self, deltas: int, per_write: int, pause_s: float) -> None:
        self.pause_s = pause_s
        sse = build_writes(SSE_DELTA, SSE_END, deltas, per_write)
        ndjson = build_writes(NDJSON_DELTA, NDJSON_END, deltas, per_write)
        sse_single = build_writes(SSE_DELTA, SSE_END, deltas, 1)
        ndjson_single = build_writes(NDJSON_DELTA, NDJSON_END, deltas, 1)
        self.bodies = {
            ("sse", "close"): sse,
            ("sse", "chunked"): [chunk(write) for write in sse] + [b"0\r\n\r\n"],
            ("sse", "chunked1"): [chunk(write) for write in sse_single] + [b"0\r\n\r\n"],
            ("ndjson", "close"): ndjson,
            ("ndjson", "chunked"): [chunk(write) for write in ndjson] + [b"0\r\n\r\n"],
            ("ndjson", "chunked1"): [chunk(write) for write in ndjson_single] + [b"0\r\n\r\n"],
        }
        self.first = {"sse": (SSE_DELTA, SSE_END), "ndjson": (NDJSON_DELTA, NDJSON_END)}
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=64)

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def serve_forever(self) -> None:
        while True:
            connection, _ = self.listener.accept()
            threading.Thread(target=self.handle, args=(connection,), daemon=True).start()

    def handle(self, connection: socket.socket) -> None:
        try:
            path = read_request(connection)
            framing = path.strip("/").split("/", 1)[0]
            protocol = "sse" if path.endswith("/chat/completions") else "ndjson"
            content_type = b"text/event-stream" if protocol == "sse" else b"application/x-ndjson"
            if framing.startswith("ttft-"):
                chunked = framing == "ttft-chunked"
                first, end = self.first[protocol]
                wrap = chunk if chunked else (lambda data: data)
                connection.sendall(head(content_type, chunked) + wrap(first))
                time.sleep(self.pause_s)
                connection.sendall(wrap(end) + (b"0\r\n\r\n" if chunked else b""))
            else:
                connection.sendall(head(content_type, framing.startswith("chunked")))
                for write in self.bodies[(protocol, framing)]:
                    connection.sendall(write)
            connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the client went away early (it had what it wanted)
        finally:
            connection.close()


def read_request(connection: socket.socket) -> str:
    """Read one whole request (headers and body, so closing sends no RST); return its path."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = connection.recv(65536)
        if not more:
            raise OSError("connection closed before the request ended")
        data += more
    header, _, body = data.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(body) < length:
        more = connection.recv(65536)
        if not more:
            break
        body += more
    return lines[0].split()[1]


def serve(options: argparse.Namespace) -> int:
    """The server process: prints its port, stops when stdin closes or its lifetime ends."""
    server = BenchServer(options.deltas, options.events_per_write, options.pause)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.port}", flush=True)

    def watch_parent() -> None:
        sys.stdin.buffer.read()  # EOF: the benchmark finished or died
        os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()
    time.sleep(options.lifetime)
    os._exit(0)


class ServerProcess:
    def __init__(self, options: argparse.Namespace) -> None:
        argv = [sys.executable, os.path.abspath(__file__), "--serve",
                "--deltas", str(options.deltas),
                "--events-per-write", str(options.events_per_write),
                "--pause", str(options.pause), "--lifetime", str(options.lifetime)]
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.process.stdout.readline().decode()
        if not line.startswith("PORT "):
            self.stop()
            raise SystemExit(f"the benchmark server did not start: {line!r}")
        self.port = int(line.split()[1])

    def url(self, framing: str, protocol: str) -> str:
        """The base_url a client is given for this framing and protocol."""
        base = f"http://127.0.0.1:{self.port}/{framing}"
        return base + "/v1" if protocol == "sse" else base

    def endpoint(self, framing: str, protocol: str) -> str:
        path = "/chat/completions" if protocol == "sse" else "/api/chat"
        return self.url(framing, protocol) + path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "ServerProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# --------------------------------------------------------------------------- the clients timed


def floor_run(endpoint: str, protocol: str) -> int:
    """The bare minimum: requests + iter_lines + json.loads of each data line; deltas parsed."""
    import requests

    body = {"model": "bench", "messages": MESSAGES, "stream": True}
    response = requests.post(endpoint, json=body, stream=True, timeout=(10, 60))
    count = 0
    try:
        if protocol == "sse":
            for line in response.iter_lines():
                if line.startswith(b"data:"):
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        break
                    json.loads(data)
                    count += 1
        else:
            for line in response.iter_lines():
                if line:
                    json.loads(line)
                    count += 1
    finally:
        response.close()
    return count


def ayder_client(base_url: str, protocol: str):
    from ayder_cli.llm import make_client
    from ayder_cli.config.schema import Config
    from ayder_cli.config.keys import endpoint_of

    provider = "openai" if protocol == "sse" else "ollama"
    return make_client(endpoint_of(Config(provider=provider, base_url=base_url, max_retries=0), {}))


def ayder_run(client, expected_text: int) -> int:
    """What the chat loop does per delta: stream, and feed every delta to an Accumulator."""
    from ayder_cli.llm.accumulate import Accumulator
    from ayder_cli.llm.wire_types import ChatRequest

    accumulator = Accumulator()
    add = accumulator.add
    count = 0
    for delta in client.stream(ChatRequest(model="bench", messages=MESSAGES)):
        add(delta)
        count += 1
    reply = accumulator.reply()
    if len(reply.text) != expected_text or reply.finish_reason != "stop":
        raise SystemExit(f"ayder's client lost data: {len(reply.text)} characters, "
                         f"finish {reply.finish_reason!r}")
    return count


def openai_sdk_runner(base_url: str):
    """A run of the official openai SDK, if it is installed (it is not a dependency)."""
    try:
        import openai
    except ImportError:
        return None
    client = openai.OpenAI(base_url=base_url, api_key="bench", max_retries=0)

    def run() -> int:
        count = 0
        for event in client.chat.completions.create(model="bench", messages=MESSAGES, stream=True):
            if event.choices and event.choices[0].delta.content:
                count += 1
        return count

    return run


def interleaved(runs: dict[str, object], repeats: int, expected: int) -> dict[str, list[float]]:
    """Rates for several runners, alternating between them so drift hits them all alike."""
    for run in runs.values():
        run()  # warm-up
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            rates[name] += timed_once(run, expected)
    return rates


def timed_once(run, expected: int) -> list[float]:
    started = time.perf_counter()
    count = run()
    elapsed = time.perf_counter() - started
    if count < expected:
        raise SystemExit(f"a run saw {count} deltas, expected {expected}")
    return [expected / elapsed]


def first_token_s(client) -> float:
    """Seconds from the request until ayder's client yields the first content delta."""
    from ayder_cli.llm.wire_types import ChatRequest

    started = time.perf_counter()
    stream = client.stream(ChatRequest(model="bench", messages=MESSAGES))
    try:
        for delta in stream:
            if delta.content:
                return time.perf_counter() - started
    finally:
        stream.close()
    raise SystemExit("the stream ended without content")


def floor_first_token_s(endpoint: str, protocol: str) -> float:
    """The same for bare requests + iter_lines() with its default chunk size (reference)."""
    import requests

    started = time.perf_counter()
    with requests.post(endpoint, json={"model": "bench", "messages": MESSAGES, "stream": True},
                       stream=True, timeout=(10, 60)) as response:
        for line in response.iter_lines():
            if line.strip() and line.strip() != b"data: [DONE]":
                return time.perf_counter() - started
    raise SystemExit("the stream ended without content")


# --------------------------------------------------------------------------- the report


def throughput_table(server: "ServerProcess", framings: tuple[str, ...],
                     options: argparse.Namespace, references: list, target: float | None) -> bool:
    """Print floor and ayder rates, both protocols, these framings; True if a target is missed."""
    failed = False
    header = (f"{'protocol':<13} {'body':<8} {'floor best/s':>12} {'ayder best/s':>12} "
              f"{'ratio best':>10} {'ratio median':>12}  target   result")
    print(header)
    print("-" * len(header))
    expected_text = len("tok ") * options.deltas
    for protocol, label in (("sse", "OpenAI SSE"), ("ndjson", "Ollama NDJSON")):
        for framing in framings:
            endpoint = server.endpoint(framing, protocol)
            client = ayder_client(server.url(framing, protocol), protocol)
            runs = {
                "floor": lambda: floor_run(endpoint, protocol),
                "ayder": lambda: ayder_run(client, expected_text),
            }
            sdk = None
            if protocol == "sse" and target:
                sdk = openai_sdk_runner(server.url(framing, protocol))
            if sdk:
                runs["openai SDK"] = sdk
            rates = interleaved(runs, options.repeats, options.deltas)
            floor, ayder = max(rates["floor"]), max(rates["ayder"])
            ratio = ayder / floor
            ratio_median = statistics.median(rates["ayder"]) / statistics.median(rates["floor"])
            if target is None:
                verdict = ""
            else:
                ok = ratio >= target
                failed |= not ok
                verdict = f">= {target:g}   {'PASS' if ok else 'FAIL'}"
            print(f"{label:<13} {framing:<8} {floor:12,.0f} {ayder:12,.0f} {ratio:10.2f} "
                  f"{ratio_median:12.2f}  {verdict}")
            if sdk:
                references.append((label, framing, max(rates["openai SDK"]), floor))
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20_000,
                        help="deltas per streamed reply (default 20000)")
    parser.add_argument("--repeats", type=int, default=7,
                        help="timed runs per client and case (default 7)")
    parser.add_argument("--events-per-write", type=int, default=64,
                        help="events in each server write / HTTP chunk (default 64)")
    parser.add_argument("--pause", type=float, default=2.0,
                        help="server pause after the first delta (s)")
    parser.add_argument("--ttft-runs", type=int, default=3,
                        help="time-to-first-token runs per case")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--lifetime", type=float, default=600.0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        return serve(options)

    import requests
    import urllib3

    failed = False
    print(f"python {sys.version.split()[0]}, requests {requests.__version__}, "
          f"urllib3 {urllib3.__version__}")
    print(f"{options.deltas} deltas per reply, {options.events_per_write} events per server write; "
          f"best and median of {options.repeats} interleaved runs after a warm-up\n")

    with ServerProcess(options) as server:
        references: list[tuple[str, str, float, float]] = []
        failed |= throughput_table(server, ("chunked", "close"), options, references,
                                   target=TARGET_RATIO)
        print()
        if references:
            print("official openai SDK (reference):")
            for label, framing, rate, floor in references:
                print(f"  {label:<13} {framing:<8} {rate:12,.0f}/s  {rate / floor:.2f}x the floor")
        else:
            print("official openai SDK: not installed, skipped "
                  "(reference only; not installed on purpose)")

        print("\nOne event per HTTP chunk, as servers flush tokens:")
        failed |= throughput_table(server, ("chunked1",), options, [], target=TARGET_RATIO)

        limit = FIRST_TOKEN_LIMIT * options.pause
        print(f"\nTime to first token: the server sends headers + one delta, "
              f"then pauses {options.pause:g} s "
              f"(median of {options.ttft_runs}; target < {limit * 1000:.0f} ms)")
        header = (f"{'protocol':<13} {'body':<8} {'ayder ms':>9}  result  "
                  f"{'requests iter_lines ms (reference)':>34}")
        print(header)
        print("-" * len(header))
        for protocol, label in (("sse", "OpenAI SSE"), ("ndjson", "Ollama NDJSON")):
            for framing in ("chunked", "close"):
                client = ayder_client(server.url(f"ttft-{framing}", protocol), protocol)
                first = statistics.median(first_token_s(client) for _ in range(options.ttft_runs))
                ok = first < limit
                failed |= not ok
                endpoint = server.endpoint(f"ttft-{framing}", protocol)
                reference = floor_first_token_s(endpoint, protocol)
                print(f"{label:<13} {framing:<8} {first * 1000:9.1f}  "
                      f"{'PASS' if ok else 'FAIL':<6}  {reference * 1000:34.1f}")

    if failed:
        print("\nat least one target missed"
              + ("" if options.strict else " (exit 0; use --strict to fail)"))
    return 1 if failed and options.strict else 0


if __name__ == "__main__":
    sys.exit(main())
