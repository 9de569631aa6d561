"""Streams that stumble: one malformed SSE event or NDJSON line is skipped with one warning;
a stream where most events are malformed ends the reply as a cut one, keeping what arrived."""

from __future__ import annotations

import json

import pytest
import responses
from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.config.schema import Config
from ayder_cli.config.keys import endpoint_of
from ayder_cli.llm import make_client
from ayder_cli.llm.wire_types import ChatRequest, StreamCutError

OPENAI = "http://llm.test/v1"
OLLAMA = "http://ollama.test:11434"


# --- through the real entry point, both protocols


def test_one_malformed_event_mid_reply_is_skipped_with_one_warning(fake, run_ayder, protocol):
    fake.queue(Reply(chunks=["The ", "whole ", "reply ", "arrives."], malformed_at=(2,)))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The whole reply arrives.\n"
    warnings = [line for line in result.stderr.splitlines() if "malformed" in line]
    assert len(warnings) == 1, result.stderr
    assert "skipped a malformed" in warnings[0]
    assert "Traceback" not in result.stderr and "error:" not in result.stderr


def test_two_malformed_events_in_one_reply_are_one_warning(fake, run_ayder, protocol):
    fake.queue(Reply(chunks=["a", "b", "c", "d", "e"], malformed_at=(1, 3)))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "abcde\n"
    warnings = [line for line in result.stderr.splitlines() if "malformed" in line]
    assert len(warnings) == 1 and "2 malformed" in warnings[0], result.stderr


def test_mostly_malformed_stream_ends_the_reply_keeping_what_arrived(fake, run_ayder, protocol):
    fake.queue(Reply(chunks=["kept ", "never ", "shown"], malformed_at=(1, 1, 1, 1)))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == "kept \n"
    assert "error:" in result.stderr and "malformed" in result.stderr
    assert "kept in the conversation" in result.stderr
    assert "Traceback" not in result.stderr


def test_error_event_mid_stream_still_ends_the_reply(fake, run_ayder, protocol):
    fake.queue(Reply(chunks=["Half ", "a reply"], malformed_at=(1,), error_mid_stream="the model crashed"))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 1
    assert result.stdout == "Half a reply\n"
    assert "the model crashed" in result.stderr


# --- the rule, on the clients


def _openai():
    return make_client(endpoint_of(Config(provider="openai", base_url=OPENAI), {}))


def _ollama():
    return make_client(endpoint_of(Config(provider="ollama", base_url=OLLAMA), {}))


def _request() -> ChatRequest:
    return ChatRequest(model="m", messages=[{"role": "user", "content": "hi"}])


def _chunk(text: str, finish: str | None = None) -> str:
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": finish}
    return "data: " + json.dumps({"choices": [choice]}) + "\n\n"


def _line(text: str, done: bool = False) -> str:
    extra = {"done_reason": "stop"} if done else {}
    return json.dumps({"message": {"role": "assistant", "content": text}, "done": done, **extra}) + "\n"


@pytest.fixture
def server():
    with responses.RequestsMock() as mock:
        yield mock


@pytest.mark.parametrize("bad", ["{not json", "42", '"text"', '{"choices": "x"}', '{"choices": [{"delta": 3}]}'])
def test_openai_skips_a_malformed_event_and_warns_at_the_end(server, bad):
    server.add(responses.POST, f"{OPENAI}/chat/completions",
               body=_chunk("a") + f"data: {bad}\n\n" + _chunk("b", "stop") + "data: [DONE]\n\n")
    deltas = list(_openai().stream(_request()))
    assert "".join(d.content or "" for d in deltas) == "ab"
    assert [d.warning for d in deltas if d.warning] == [deltas[-1].warning]
    assert "skipped a malformed event" in deltas[-1].warning


@pytest.mark.parametrize("bad", [b"{not json", b"[1]", b'{"message": "\xff\xfe"', b'{"message": 3}'])
def test_ollama_skips_a_malformed_line_and_warns_at_the_end(server, bad):
    server.add(responses.POST, f"{OLLAMA}/api/chat",
               body=_line("a").encode() + bad + b"\n" + _line("b", done=True).encode())
    deltas = list(_ollama().stream(_request()))
    assert "".join(d.content or "" for d in deltas) == "ab"
    assert "skipped a malformed line" in deltas[-1].warning
    assert sum(1 for d in deltas if d.warning) == 1


def test_two_bad_of_three_is_not_yet_most(server):
    # more than half, but fewer than 3: skipped
    server.add(responses.POST, f"{OPENAI}/chat/completions",
               body="data: {x\n\n" + _chunk("a") + "data: {y\n\n" + _chunk("b", "stop") + "data: [DONE]\n\n")
    deltas = list(_openai().stream(_request()))
    assert "".join(d.content or "" for d in deltas) == "ab"
    assert "2 malformed events" in deltas[-1].warning


def test_three_bad_of_five_ends_the_reply_with_what_arrived(server):
    server.add(responses.POST, f"{OLLAMA}/api/chat",
               body=_line("a") + "{x\n" + _line("b") + "{y\n{z\n" + _line("c", done=True))
    received = []
    with pytest.raises(StreamCutError, match="3 malformed lines of 5"):
        for delta in _ollama().stream(_request()):
            received.append(delta.content)
    assert received == ["a", "b"]


def test_three_bad_among_many_good_are_skipped(server):
    body = "".join(_chunk(str(i)) + ("data: {bad\n\n" if i % 3 == 0 else "") for i in range(9))
    server.add(responses.POST, f"{OPENAI}/chat/completions", body=body + _chunk("", "stop") + "data: [DONE]\n\n")
    deltas = list(_openai().stream(_request()))
    assert "".join(d.content or "" for d in deltas) == "012345678"
    assert "3 malformed events" in deltas[-1].warning


def test_named_error_event_that_is_not_json_still_ends_the_reply(server):
    server.add(responses.POST, f"{OPENAI}/chat/completions", body=_chunk("a") + "event: error\ndata: upstream gone\n\n")
    with pytest.raises(StreamCutError, match="upstream gone"):
        list(_openai().stream(_request()))
