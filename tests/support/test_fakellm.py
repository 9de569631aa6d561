"""The fake server itself: the named shapes of Reply answer as the knobs they stand for, in both
protocols, and stop() ends the server at once, a held reply included."""

from __future__ import annotations

import json
import threading
import time

import pytest
import requests
from support.fakellm import FakeLLM, Reply

CHAT = {"ollama": "/api/chat", "openai": "/v1/chat/completions"}


def post(fake: FakeLLM, protocol: str, stream: bool = False, timeout: float = 10) -> requests.Response:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": stream}
    return requests.post(fake.url + CHAT[protocol], json=body, timeout=timeout, stream=stream)


def streamed_text(lines, protocol: str) -> str:
    """The content of the streamed lines (NDJSON or SSE) given."""
    text = ""
    for line in lines:
        if protocol == "ollama" and line:
            text += json.loads(line)["message"]["content"]
        elif line.startswith(b"data: {"):
            text += "".join(choice["delta"].get("content") or "" for choice in json.loads(line[6:])["choices"])
    return text


def test_a_calling_reply_sends_one_native_call(fake, protocol):
    fake.queue(Reply.calling("read_file", {"file_path": "notes.txt"}, id="call_7"))
    message = post(fake, protocol).json()
    message = message["message"] if protocol == "ollama" else message["choices"][0]["message"]
    assert message["content"] == ""
    [call] = message["tool_calls"]
    arguments = call["function"]["arguments"]
    assert call["function"]["name"] == "read_file"
    assert (arguments if protocol == "ollama" else json.loads(arguments)) == {"file_path": "notes.txt"}
    if protocol == "openai":
        assert call["id"] == "call_7"


def test_a_calling_reply_sends_string_arguments_as_written(fake):
    fake.queue(Reply.calling("read_file", '{"file_path": "no'))
    [call] = post(fake, "openai").json()["choices"][0]["message"]["tool_calls"]
    assert call["function"]["arguments"] == '{"file_path": "no'


def test_a_failing_reply_is_the_status_and_the_message(fake, protocol):
    fake.queue(Reply.failing(401, "invalid api key"))
    response = post(fake, protocol)
    assert response.status_code == 401
    error = response.json()["error"]
    assert (error if protocol == "ollama" else error["message"]) == "invalid api key"


def test_a_held_reply_sends_its_first_chunks_then_waits_for_its_release(fake, protocol):
    release = threading.Event()
    fake.queue(Reply.held("before ", "after", after=1, release=release))
    with post(fake, protocol, stream=True) as response:
        lines = response.iter_lines(chunk_size=1)  # each line as it comes, not 512 bytes at a time
        first = next(line for line in lines if b"before" in line)
        assert b"after" not in first
        release.set()
        assert streamed_text(lines, protocol) == "after"


@pytest.mark.parametrize("held", [False, True])
def test_stop_ends_the_server_at_once(held):
    fake = FakeLLM().start()
    answered = threading.Event()
    if held:
        fake.queue(Reply.held("never ", "sent", after=0, release=threading.Event()))

        def ask() -> None:
            try:
                _ = post(fake, "ollama", stream=True).content  # reads the body
            except requests.RequestException:
                pass
            answered.set()

        threading.Thread(target=ask, daemon=True).start()
        fake.wait_for_chat(1)
    started = time.monotonic()
    fake.stop()
    assert time.monotonic() - started < 1  # a held reply is let go; the loop is woken, not polled
    if held:
        assert answered.wait(10)
    with pytest.raises(requests.ConnectionError):
        requests.get(fake.url + "/api/tags", timeout=5)
