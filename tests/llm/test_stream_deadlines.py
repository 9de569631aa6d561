"""Deadlines on a streamed reply that keep-alives cannot reset, and replies that hold nothing."""

from __future__ import annotations

import json
import threading
import time

import pytest
import responses
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args

from ayder_cli.config.schema import Config
from ayder_cli.config.config_checks import check_value
from ayder_cli.config.keys import endpoint_of
from ayder_cli.errors import ConfigError
from ayder_cli.llm import make_client
from ayder_cli.llm.wire_types import ChatRequest, Delta, LLMError, StreamCutError, Usage
from ayder_cli.llm.http import ReplyWatch

OPENAI = "http://llm.test/v1"
OLLAMA = "http://ollama.test:11434"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def watch(clock: FakeClock, first: float | None = 300, idle: float | None = 10,
          total: float | None = 100) -> ReplyWatch:
    return ReplyWatch(first_data_s=first, idle_s=idle, total_s=total, clock=clock)


def chunk(clock: FakeClock, seconds: float, watcher: ReplyWatch, *deltas: Delta) -> None:
    """A chunk arrives `seconds` after the one before, its deltas are seen, then the deadlines checked."""
    clock.now += seconds
    for delta in deltas:
        watcher.saw(delta)
    watcher.check()


TEXT = Delta(content="x")
NOTHING = Delta()  # a keep-alive comment decodes to no delta; an empty event to this


# --- the watch itself, on a fake clock


def test_keepalives_after_reply_data_end_at_the_idle_limit():
    clock = FakeClock()
    watcher = watch(clock, idle=10)
    chunk(clock, 1, watcher, TEXT)
    for _ in range(9):
        chunk(clock, 1, watcher)  # keep-alives: nothing decoded
    chunk(clock, 0.5, watcher, NOTHING)
    with pytest.raises(StreamCutError) as caught:
        chunk(clock, 1, watcher)
    assert caught.value.message == ("no reply data for 10 s (stream_idle_timeout_s); "
                                    "the server sent only keep-alives")


@pytest.mark.parametrize("data", [Delta(content="x"), Delta(thinking="hm"), Delta(finish_reason="stop"),
                                  Delta(usage=Usage(3, 1)), Delta(tool_calls=[object()])])
def test_any_reply_data_restarts_the_idle_limit(data):
    clock = FakeClock()
    watcher = watch(clock, idle=10)
    chunk(clock, 1, watcher, TEXT)
    chunk(clock, 9, watcher, data)
    chunk(clock, 9, watcher)  # 18 s after the first data, 9 s after the latest
    with pytest.raises(StreamCutError, match="stream_idle_timeout_s"):
        chunk(clock, 2, watcher)


def test_before_any_reply_data_the_limit_is_timeout_s_from_the_request():
    clock = FakeClock()
    watcher = watch(clock, first=300, idle=10, total=None)
    chunk(clock, 200, watcher)  # a slow CPU reading a long prompt, with keep-alives: longer than idle is fine
    with pytest.raises(StreamCutError) as caught:
        chunk(clock, 101, watcher)
    assert "within 300 s of the request (timeout_s)" in caught.value.message


def test_a_first_token_that_arrives_late_in_its_chunk_is_not_cut():
    clock = FakeClock()
    watcher = watch(clock, first=300, idle=10, total=None)
    chunk(clock, 301, watcher, TEXT)  # the check runs after the chunk's events were seen
    chunk(clock, 5, watcher)


def test_the_overall_limit_cuts_a_reply_that_keeps_trickling():
    clock = FakeClock()
    watcher = watch(clock, idle=10, total=100)
    for _ in range(50):
        chunk(clock, 2, watcher, TEXT)
    with pytest.raises(StreamCutError) as caught:
        chunk(clock, 2, watcher, TEXT)
    assert caught.value.message == "the reply was not complete after 100 s (request_timeout_s)"


def test_the_overall_limit_does_not_cut_a_reply_that_has_finished():
    clock = FakeClock()
    watcher = watch(clock, total=100)
    chunk(clock, 99, watcher, TEXT)
    chunk(clock, 5, watcher, Delta(finish_reason="stop"), Delta(usage=Usage(3, 1)))


def test_null_limits_are_no_limits():
    clock = FakeClock()
    watcher = watch(clock, first=None, idle=None, total=None)
    chunk(clock, 10_000, watcher)
    chunk(clock, 1, watcher, TEXT)
    chunk(clock, 10_000, watcher)


def test_what_counts_as_a_reply():
    watcher = watch(FakeClock())
    watcher.saw(Delta(usage=Usage(3, 0)))
    watcher.saw(Delta(finish_reason="stop"), finish_stated=False)  # Ollama's bare "done"
    assert not watcher.replied and watcher.finished
    watcher.saw(Delta(content="", finish_reason="stop"))  # an empty answer the server says is finished
    assert watcher.replied


# --- the clients, on a fake clock and a scripted body


class ScriptedRaw:
    """response.raw: each read hands over one piece, `step_s` later on the fake clock."""

    chunked = False

    def __init__(self, pieces: list[bytes], clock: FakeClock, step_s: float) -> None:
        self.pieces, self.clock, self.step_s = list(pieces), clock, step_s
        self.reads = 0

    def read1(self, size: int, decode_content: bool = True) -> bytes:
        self.reads += 1
        if not self.pieces:
            return b""
        self.clock.now += self.step_s
        return self.pieces.pop(0)


class ScriptedResponse:
    def __init__(self, raw: ScriptedRaw, content_type: str = "text/event-stream") -> None:
        self.raw = raw
        self.headers = {"Content-Type": content_type}
        self.closed = False

    def close(self) -> None:
        self.closed = True


def scripted_client(provider: str, pieces: list[bytes], step_s: float, **values):
    clock = FakeClock()
    config = Config(provider=provider, base_url=OPENAI if provider == "openai" else OLLAMA, **values)
    client = make_client(endpoint_of(config, {}))
    client.transport.clock = clock
    response = ScriptedResponse(ScriptedRaw(pieces, clock, step_s))
    client.transport.request = lambda *args, **kwargs: response
    return client, response


def openai_text(text: str) -> bytes:
    return f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': text}}]})}\n\n".encode()


def ollama_text(text: str) -> bytes:
    return (json.dumps({"message": {"role": "assistant", "content": text}, "done": False}) + "\n").encode()


KEEPALIVES = {"openai": b": ping\n\n", "ollama": ollama_text("")}
FIRST = {"openai": openai_text("first "), "ollama": ollama_text("first ")}


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_a_client_closes_a_keepalive_only_stream_at_the_idle_limit(provider):
    pieces = [FIRST[provider]] + [KEEPALIVES[provider]] * 1000
    client, response = scripted_client(provider, pieces, step_s=1, stream_idle_timeout_s=30)
    received = []
    with pytest.raises(StreamCutError, match=r"no reply data for 30 s \(stream_idle_timeout_s\)"):
        for delta in client.stream(ChatRequest(model="m", messages=[])):
            received.append(delta.content)
    assert "first " in received
    assert response.closed
    assert response.raw.reads == 32  # the first chunk, then 31 keep-alives: 31 s after the data


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_a_client_closes_a_stream_that_outlasts_request_timeout_s(provider):
    text = openai_text if provider == "openai" else ollama_text
    client, response = scripted_client(provider, [text("w ")] * 1000, step_s=1, request_timeout_s=60)
    with pytest.raises(StreamCutError, match=r"not complete after 60 s \(request_timeout_s\)"):
        for _ in client.stream(ChatRequest(model="m", messages=[])):
            pass
    assert response.closed and response.raw.reads == 61


# --- replies that hold nothing


@pytest.fixture
def server():
    with responses.RequestsMock() as mock:
        yield mock


def sse(*payloads) -> str:
    return "".join(f"data: {json.dumps(p)}\n\n" for p in payloads) + "data: [DONE]\n\n"


def test_an_openai_stream_of_empty_choices_is_an_error(server):
    server.add(responses.POST, f"{OPENAI}/chat/completions", body=sse(
        {"choices": []}, {"choices": []}, {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 0}}))
    client = make_client(endpoint_of(Config(provider="openai", base_url=OPENAI), {}))
    with pytest.raises(LLMError) as caught:
        list(client.stream(ChatRequest(model="m", messages=[])))
    assert not isinstance(caught.value, StreamCutError)  # nothing arrived, nothing to keep
    assert "no content, no tool calls and no finish reason" in caught.value.message


def test_an_ollama_stream_that_is_only_done_is_an_error(server):
    server.add(responses.POST, f"{OLLAMA}/api/chat", body=json.dumps({"model": "m", "done": True}) + "\n")
    client = make_client(endpoint_of(Config(provider="ollama", base_url=OLLAMA), {}))
    with pytest.raises(LLMError, match="no content"):
        list(client.stream(ChatRequest(model="m", messages=[])))


@pytest.mark.parametrize("provider, body", [
    ("openai", sse({"choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}]})),
    ("ollama", json.dumps({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})),
])
def test_an_empty_answer_the_server_says_is_finished_is_still_an_answer(server, provider, body):
    url = f"{OPENAI}/chat/completions" if provider == "openai" else f"{OLLAMA}/api/chat"
    server.add(responses.POST, url, body=body)
    config = Config(provider=provider, base_url=OPENAI if provider == "openai" else OLLAMA)
    client = make_client(endpoint_of(config, {}))
    deltas = list(client.stream(ChatRequest(model="m", messages=[])))
    assert deltas[-1].finish_reason == "stop"


# --- the config keys


@pytest.mark.parametrize("key", ["stream_idle_timeout_s", "request_timeout_s"])
def test_the_deadline_keys_take_seconds_or_null(key):
    assert check_value("f", key, 5) == 5.0
    assert check_value("f", key, None) is None
    for bad in (0, -1, "60", True):
        with pytest.raises(ConfigError, match=key):
            check_value("f", key, bad)


def test_make_client_passes_the_deadlines_to_the_transport():
    client = make_client(endpoint_of(Config(timeout_s=7, stream_idle_timeout_s=8, request_timeout_s=None), {}))
    watcher = client.transport.watch()
    assert (watcher.first_data_s, watcher.idle_s, watcher.total_s) == (7, 8, None)


# --- end to end, through the real ayder


def assert_one_line_error(result) -> str:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if "error:" in line]
    assert len(errors) == 1, result.stderr
    return errors[0]


def run_timed(run_ayder, *args):
    started = time.monotonic()
    result = run_ayder(*args, timeout=30)
    return result, time.monotonic() - started


def test_keepalives_after_a_chunk_end_at_stream_idle_timeout_s(fake, run_ayder, project, protocol):
    write_json(project / ".ayder" / "config.json", {"stream_idle_timeout_s": 0.3})
    fake.queue(Reply(chunks=["first words ", "never sent"], keepalive_after=1, keepalive_every_s=0.05,
                     release=threading.Event()))
    result, took = run_timed(run_ayder, *server_args(fake, protocol), "q")
    error = assert_one_line_error(result)
    assert "stream_idle_timeout_s" in error and "0.3 s" in error
    assert result.stdout == "first words \n"  # what arrived is kept and shown
    assert "kept in the conversation" in result.stderr
    assert took < 10


def test_keepalives_before_any_reply_data_end_at_timeout_s(fake, run_ayder, project, protocol):
    write_json(project / ".ayder" / "config.json", {"timeout_s": 0.3})
    fake.queue(Reply(text="never sent", keepalive_after=0, keepalive_every_s=0.05, release=threading.Event()))
    result, took = run_timed(run_ayder, *server_args(fake, protocol), "q")
    error = assert_one_line_error(result)
    assert "(timeout_s)" in error
    assert result.stdout == ""
    assert took < 10


def test_a_reply_trickling_past_request_timeout_s_is_cut(fake, run_ayder, project, protocol):
    write_json(project / ".ayder" / "config.json", {"request_timeout_s": 0.5, "stream_idle_timeout_s": 60})
    fake.queue(Reply(chunks=[f"w{n} " for n in range(100)], delta_every_s=0.03))  # 3 s in all
    result, took = run_timed(run_ayder, *server_args(fake, protocol), "q")
    error = assert_one_line_error(result)
    assert "0.5 s (request_timeout_s)" in error
    assert result.stdout.startswith("w0 w1 ")
    assert "w99" not in result.stdout
    assert took < 8


def test_reply_data_between_keepalives_keeps_a_slow_stream_going(fake, run_ayder, project, protocol):
    # Longer than the limit in all (about 0.8 s), but never 0.6 s without reply data (0.3 s at most).
    write_json(project / ".ayder" / "config.json", {"stream_idle_timeout_s": 0.6})
    fake.queue(Reply(chunks=["a ", "b ", "c ", "d ", "e ", "f"], delta_every_s=0.1, keepalive_comments=True,
                     keepalive_after=1, keepalive_every_s=0.04, hold_s=0.2))
    result = run_ayder(*server_args(fake, protocol), "q", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "a b c d e f\n"


def test_a_stream_with_no_content_says_so(fake, run_ayder, protocol):
    fake.queue(Reply(empty_choices=True))
    result = run_ayder(*server_args(fake, protocol), "q", timeout=30)
    error = assert_one_line_error(result)
    assert "no content, no tool calls and no finish reason" in error
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) <= 2


def test_an_empty_answer_with_a_finish_reason_is_not_an_error(fake, run_ayder, protocol):
    fake.queue(Reply(text=""))
    result = run_ayder(*server_args(fake, protocol), "q", timeout=30)
    assert result.returncode == 0, result.stderr
