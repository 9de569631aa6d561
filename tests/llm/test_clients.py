"""The HTTP clients against mocked servers: request shape, streaming, retries, error messages."""

from __future__ import annotations

import json

import pytest
import requests
import responses

from ayder_cli.config.schema import Config
from ayder_cli.config.keys import endpoint_of
from ayder_cli.llm import make_client
from ayder_cli.llm.accumulate import Accumulator
from ayder_cli.llm.wire_types import ChatRequest, LLMError, StreamCutError, Usage
from ayder_cli.llm.http import retry_after_s
from ayder_cli.llm.ollama import OllamaClient
from ayder_cli.llm.openai_compat import OpenAIClient

SECRET = "sk-live-SECRETSECRET-4242"
OPENAI = "http://llm.test/v1"
OPENAI_CHAT = f"{OPENAI}/chat/completions"
OLLAMA = "http://ollama.test:11434"
OLLAMA_CHAT = f"{OLLAMA}/api/chat"
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture
def server():
    with responses.RequestsMock() as mock:
        yield mock


@pytest.fixture
def sleeps() -> list[float]:
    return []


def openai(sleeps: list[float] | None = None, env: dict | None = None, **values) -> OpenAIClient:
    config = Config(provider="openai", base_url=OPENAI, **values)
    client = make_client(endpoint_of(config, env or {}), pause=(sleeps if sleeps is not None else []).append)
    assert isinstance(client, OpenAIClient)
    return client


def ollama(sleeps: list[float] | None = None, env: dict | None = None, **values) -> OllamaClient:
    config = Config(provider="ollama", base_url=OLLAMA, **values)
    client = make_client(endpoint_of(config, env or {}), pause=(sleeps if sleeps is not None else []).append)
    assert isinstance(client, OllamaClient)
    return client


def sse(*payloads, done: bool = True) -> str:
    events = [f"data: {json.dumps(p)}\n\n" for p in payloads]
    return "".join(events) + ("data: [DONE]\n\n" if done else "")


def ndjson(*payloads) -> str:
    return "".join(json.dumps(p) + "\n" for p in payloads)


def text_chunk(text: str, finish: str | None = None) -> dict:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}


def ollama_line(text: str, done: bool = False, **extra) -> dict:
    return {"model": "m", "message": {"role": "assistant", "content": text}, "done": done, **extra}


def request(stream: bool = True, **values) -> ChatRequest:
    return ChatRequest(model="test-model", messages=USER, stream=stream, **values)


def collect(client, req: ChatRequest):
    acc = Accumulator()
    for delta in client.stream(req):
        acc.add(delta)
    return acc.reply()


def body_of(call) -> dict:
    return json.loads(call.request.body)


def error_text(exc: LLMError) -> str:
    return f"{exc.message}\n{exc.hint or ''}"


# --- make_client


def test_make_client_picks_the_provider_and_its_default_url():
    assert make_client(endpoint_of(Config(), {})).base_url == "http://localhost:11434"
    assert make_client(endpoint_of(Config(provider="openai"), {})).base_url == "https://api.openai.com/v1"
    assert make_client(endpoint_of(Config(provider="openai", base_url="http://x:1/v1/"), {})).base_url == \
        "http://x:1/v1"


# --- OpenAI-compatible: streaming and the request body


def test_openai_stream_sends_the_expected_body_and_key(server):
    server.add(responses.POST, OPENAI_CHAT, content_type="text/event-stream", body=sse(
        text_chunk("Hel"), text_chunk("lo"), text_chunk("", "stop"),
        {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 2}},
    ))
    client = openai(env={"OPENAI_API_KEY": SECRET})
    reply = collect(client, request(temperature=0.2, top_p=0.9, max_tokens=256, num_ctx=4096,
                                   tools=[{"type": "function", "function": {"name": "t"}}]))
    assert reply.text == "Hello"
    assert reply.finish_reason == "stop"
    assert reply.usage == Usage(11, 2)

    sent = server.calls[0].request
    assert sent.headers["Authorization"] == f"Bearer {SECRET}"
    body = json.loads(sent.body)
    assert body["model"] == "test-model"
    assert body["messages"] == USER
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 256
    assert body["temperature"] == 0.2
    assert body["top_p"] == 0.9
    assert body["tools"][0]["function"]["name"] == "t"
    assert "num_ctx" not in body and "options" not in body


def test_openai_without_a_key_sends_no_authorization(server):
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("ok", "stop")))
    collect(openai(), request())
    assert "Authorization" not in server.calls[0].request.headers


def test_openai_key_from_a_custom_env_var(server):
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("ok", "stop")))
    collect(openai(env={"GROQ_KEY": "k-1", "OPENAI_API_KEY": "other"}, api_key_env="GROQ_KEY"), request())
    assert server.calls[0].request.headers["Authorization"] == "Bearer k-1"


def test_openai_non_streaming(server):
    server.add(responses.POST, OPENAI_CHAT, json={
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Reading.",
            "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "read_file", "arguments": '{"path": "a"}'}}]}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3},
    })
    reply = collect(openai(), request(stream=False, max_tokens=100))
    assert reply.text == "Reading."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("c1", "read_file", {"path": "a"})]
    assert reply.usage == Usage(5, 3)
    body = body_of(server.calls[0])
    assert body["stream"] is False
    assert "stream_options" not in body
    assert body["max_tokens"] == 100


def test_openai_stream_with_keepalives_and_multiline_events(server):
    first = json.dumps(text_chunk("a"))
    body = (": keep-alive\n\n"
            f"data: {first[:10]}\ndata: {first[10:]}\n\n"
            ": ping\n"
            f"data: {json.dumps(text_chunk('b', 'stop'))}\r\n\r\n"
            "data: [DONE]\n\n")
    server.add(responses.POST, OPENAI_CHAT, body=body)
    assert collect(openai(), request()).text == "ab"


def test_server_refusing_stream_options_is_asked_again_without_and_remembered(server):
    def chat(req):
        if "stream_options" in json.loads(req.body):
            return 400, {}, json.dumps({"error": {"message": "Unrecognized request argument: stream_options"}})
        return 200, {"Content-Type": "text/event-stream"}, sse(text_chunk("ok", "stop"))

    server.add_callback(responses.POST, OPENAI_CHAT, callback=chat)
    client = openai()
    assert collect(client, request()).text == "ok"
    assert ["stream_options" in body_of(c) for c in server.calls] == [True, False]

    assert collect(client, request()).text == "ok"
    assert len(server.calls) == 3
    assert "stream_options" not in body_of(server.calls[2])


def test_a_400_for_another_reason_keeps_asking_for_usage(server):
    server.add(responses.POST, OPENAI_CHAT, status=400,
               json={"error": {"message": "This model's maximum context length is 8192 tokens"}})
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("ok", "stop")))
    client = openai()
    with pytest.raises(LLMError) as caught:
        collect(client, request())
    assert "maximum context length is 8192" in caught.value.message
    assert "HTTP 400" in caught.value.message
    assert len(server.calls) == 1  # not asked again: the error does not name stream_options

    collect(client, request())
    assert "stream_options" in body_of(server.calls[-1])


# --- OpenAI-compatible: broken streams


def test_mid_stream_error_object_is_a_stream_cut_and_keeps_what_arrived(server):
    server.add(responses.POST, OPENAI_CHAT, body=sse(
        text_chunk("partial "), {"error": {"message": "model overloaded", "type": "server_error"}}))
    received = []
    with pytest.raises(StreamCutError) as caught:
        for delta in openai().stream(request()):
            received.append(delta.content)
    assert received == ["partial "]
    assert "model overloaded" in caught.value.message


def test_named_error_event_is_a_stream_cut(server):
    server.add(responses.POST, OPENAI_CHAT,
               body='event: error\ndata: {"message": "upstream went away"}\n\n')
    with pytest.raises(StreamCutError, match="upstream went away"):
        collect(openai(), request())


def test_stream_ending_without_done_or_finish_reason_is_a_stream_cut(server):
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("half a sen"), done=False))
    with pytest.raises(StreamCutError) as caught:
        collect(openai(), request())
    assert OPENAI_CHAT in caught.value.message


@pytest.mark.parametrize("body", [
    sse(text_chunk("all", "stop"), done=False),  # finish_reason, no [DONE]
    sse(text_chunk("all")),  # [DONE], no finish_reason
    "data: " + json.dumps(text_chunk("all", "stop")),  # last event without its blank line
])
def test_stream_that_says_it_is_finished_is_complete(server, body):
    server.add(responses.POST, OPENAI_CHAT, body=body)
    assert collect(openai(), request()).text == "all"


@pytest.mark.parametrize("data", ["{not json", "42", "[1, 2]", '"text"'])
def test_a_stream_of_only_a_malformed_event_is_a_stream_cut(server, data):
    server.add(responses.POST, OPENAI_CHAT, body=f"data: {data}\n\n")
    with pytest.raises(StreamCutError, match="malformed"):
        collect(openai(), request())


@pytest.mark.parametrize("line", [b"{not json", b"42", b"[1]", b'{"message": "\xff\xfe"}'])
def test_a_stream_of_only_a_malformed_ollama_line_is_a_stream_cut(server, line):
    server.add(responses.POST, OLLAMA_CHAT, body=line + b"\n")
    with pytest.raises(StreamCutError, match="malformed"):
        collect(ollama(), request())


# --- OpenAI-compatible: HTTP errors


@pytest.mark.parametrize("status", [401, 403])
def test_rejected_key_names_the_env_var(server, status):
    server.add(responses.POST, OPENAI_CHAT, status=status,
               json={"error": {"message": f"Incorrect API key provided: {SECRET}"}})
    with pytest.raises(LLMError) as caught:
        collect(openai(env={"OPENAI_API_KEY": SECRET}), request())
    assert f"HTTP {status}" in caught.value.message
    assert "OPENAI_API_KEY" in caught.value.hint
    assert SECRET not in error_text(caught.value)
    assert len(server.calls) == 1


def test_missing_key_says_how_to_set_it(server):
    server.add(responses.POST, OPENAI_CHAT, status=401, json={"error": {"message": "no key"}})
    with pytest.raises(LLMError) as caught:
        collect(openai(api_key_env="MY_KEY"), request())
    assert "export MY_KEY=" in caught.value.hint


def test_bad_request_shows_the_server_message_once(server, sleeps):
    server.add(responses.POST, OPENAI_CHAT, status=422, json={"detail": "messages: field required"})
    with pytest.raises(LLMError) as caught:
        collect(openai(sleeps), request(stream=False))
    assert "HTTP 422" in caught.value.message
    assert "messages: field required" in caught.value.message
    assert len(server.calls) == 1 and sleeps == []


def test_404_without_v1_hints_at_the_base_url(server):
    server.add(responses.POST, OPENAI_CHAT, status=404, body="404 page not found")
    with pytest.raises(LLMError) as caught:
        collect(openai(), request())
    assert OPENAI_CHAT in caught.value.message
    assert "/v1" in caught.value.hint


def test_404_for_an_unknown_model_says_so(server):
    server.add(responses.POST, OPENAI_CHAT, status=404,
               json={"error": {"message": "The model `gpt-9` does not exist", "code": "model_not_found"}})
    with pytest.raises(LLMError) as caught:
        collect(openai(), request())
    assert "gpt-9" in caught.value.message
    assert "-m NAME" in caught.value.hint


def test_unreachable_openai_server_names_the_url(server, sleeps):
    server.add(responses.POST, OPENAI_CHAT,
               body=requests.exceptions.ConnectionError("[Errno 111] Connection refused"))
    with pytest.raises(LLMError) as caught:
        collect(openai(sleeps, max_retries=2), request())
    assert OPENAI in caught.value.message
    assert "connection refused" in caught.value.message
    assert "OPENAI_BASE_URL" in caught.value.hint
    assert len(server.calls) == 3
    assert sleeps == [0.25, 0.5]


def test_key_never_appears_in_errors_even_when_the_server_echoes_it(server):
    client = openai(env={"OPENAI_API_KEY": SECRET})
    echo = {"error": {"message": f"bad request from key {SECRET}"}}

    server.add(responses.POST, OPENAI_CHAT, status=400, json=echo)
    server.add(responses.POST, OPENAI_CHAT, status=400, json=echo)
    with pytest.raises(LLMError) as caught:
        collect(client, request())
    assert SECRET not in error_text(caught.value)
    assert "bad request from key" in caught.value.message

    server.add(responses.POST, OPENAI_CHAT, status=500, json=echo)
    with pytest.raises(LLMError) as caught:
        collect(openai(env={"OPENAI_API_KEY": SECRET}, max_retries=0), request())
    assert SECRET not in error_text(caught.value)

    server.replace(responses.POST, OPENAI_CHAT, body=sse(text_chunk("x"), echo))
    with pytest.raises(StreamCutError) as caught:
        collect(client, request())
    assert SECRET not in error_text(caught.value)


def test_key_never_appears_in_a_non_streamed_error_body(server):
    server.add(responses.POST, OPENAI_CHAT, json={"error": {"message": f"quota exceeded for {SECRET}"}})
    with pytest.raises(LLMError) as caught:
        collect(openai(env={"OPENAI_API_KEY": SECRET}), request(stream=False))
    assert "quota exceeded" in caught.value.message
    assert SECRET not in error_text(caught.value)


# --- retries (Transport, through either client)


def test_connection_error_is_retried_with_backoff(server, sleeps):
    server.add(responses.POST, OPENAI_CHAT, body=requests.exceptions.ConnectionError("Connection refused"))
    server.add(responses.POST, OPENAI_CHAT, body=requests.exceptions.ConnectionError("Connection refused"))
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("back", "stop")))
    assert collect(openai(sleeps, max_retries=3), request()).text == "back"
    assert sleeps == [0.25, 0.5]


def test_a_refused_connection_on_this_machine_fails_at_once(closed_url, sleeps):
    # Nothing listens on the port: waiting will not change that, so there is no retry and no backoff.
    config = Config(provider="ollama", base_url=closed_url, max_retries=3)
    client = make_client(endpoint_of(config, {}), pause=sleeps.append)
    with pytest.raises(LLMError) as caught:
        collect(client, request())
    assert "connection refused" in caught.value.message and closed_url in caught.value.message
    assert sleeps == []


def test_a_refused_connection_to_another_host_is_still_retried(server, sleeps):
    refused = requests.exceptions.ConnectionError(ConnectionRefusedError(111, "Connection refused"))
    server.add(responses.POST, OPENAI_CHAT, body=refused)
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("back", "stop")))
    assert collect(openai(sleeps, max_retries=3), request()).text == "back"
    assert sleeps == [0.25]


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_busy_server_is_retried_honouring_retry_after(server, sleeps, status):
    server.add(responses.POST, OPENAI_CHAT, status=status, headers={"Retry-After": "3"},
               json={"error": {"message": "busy"}})
    server.add(responses.POST, OPENAI_CHAT, status=status, json={"error": {"message": "busy"}})
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("done", "stop")))
    assert collect(openai(sleeps, max_retries=3), request()).text == "done"
    assert sleeps == [3.0, 0.5]


def test_retry_after_zero_means_retry_at_once(server, sleeps):
    server.add(responses.POST, OPENAI_CHAT, status=503, headers={"Retry-After": "0"},
               json={"error": {"message": "busy"}})
    server.add(responses.POST, OPENAI_CHAT, body=sse(text_chunk("done", "stop")))
    assert collect(openai(sleeps, max_retries=3), request()).text == "done"
    assert sleeps == [0.0]


def test_retries_give_up_with_the_last_status(server, sleeps):
    server.add(responses.POST, OPENAI_CHAT, status=429, headers={"Retry-After": "7200"},
               json={"error": {"message": "Rate limit reached"}})
    with pytest.raises(LLMError) as caught:
        collect(openai(sleeps, max_retries=2), request())
    assert "HTTP 429" in caught.value.message
    assert "Rate limit reached" in caught.value.message
    assert len(server.calls) == 3
    assert sleeps == [60.0, 60.0]  # a server cannot stall us for two hours


@pytest.mark.parametrize("status", [400, 401, 404, 413])
def test_client_errors_are_not_retried(server, sleeps, status):
    server.add(responses.POST, OLLAMA_CHAT, status=status, json={"error": "nope"})
    with pytest.raises(LLMError):
        collect(ollama(sleeps), request())
    assert len(server.calls) == 1
    assert sleeps == []


def test_read_timeout_is_reported_without_retrying(server, sleeps):
    server.add(responses.POST, OLLAMA_CHAT, body=requests.exceptions.ReadTimeout("read timed out"))
    with pytest.raises(LLMError) as caught:
        collect(ollama(sleeps, timeout_s=42), request())
    assert "42 s" in caught.value.message
    assert "timeout_s" in caught.value.hint
    assert len(server.calls) == 1 and sleeps == []


def test_retry_after_accepts_seconds_and_dates():
    assert retry_after_s("2.5") == 2.5
    assert retry_after_s(None) is None
    assert retry_after_s("soon") is None
    assert retry_after_s("Mon, 01 Jan 1990 00:00:00 GMT") == 0.0
    assert retry_after_s("Fri, 01 Jan 2100 00:00:00 GMT") == 60.0


# --- Ollama


def test_ollama_stream_sends_options_and_joins_the_reply(server):
    server.add(responses.POST, OLLAMA_CHAT, content_type="application/x-ndjson", body=ndjson(
        ollama_line("Hel"), ollama_line("lo"),
        ollama_line("", done=True, done_reason="stop", prompt_eval_count=30, eval_count=4),
    ))
    client = ollama(env={"OPENAI_API_KEY": SECRET})
    reply = collect(client, request(temperature=0.3, top_p=0.8, max_tokens=512, num_ctx=16384,
                                   tools=[{"type": "function", "function": {"name": "t"}}]))
    assert reply.text == "Hello"
    assert reply.finish_reason == "stop"
    assert reply.usage == Usage(30, 4)

    sent = server.calls[0].request
    assert "Authorization" not in sent.headers  # an OpenAI key is never sent to Ollama
    body = json.loads(sent.body)
    assert body["model"] == "test-model"
    assert body["stream"] is True
    assert body["options"] == {"num_ctx": 16384, "temperature": 0.3, "top_p": 0.8, "num_predict": 512}
    assert body["tools"][0]["function"]["name"] == "t"
    assert "max_tokens" not in body and "stream_options" not in body


def test_ollama_without_options_sends_none(server):
    server.add(responses.POST, OLLAMA_CHAT, body=ndjson(ollama_line("x", done=True)))
    collect(ollama(), request())
    assert "options" not in body_of(server.calls[0])


def test_ollama_gets_tool_call_arguments_as_objects(server):
    server.add(responses.POST, OLLAMA_CHAT, body=ndjson(ollama_line("x", done=True)))
    history = USER + [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "text of a"},
    ]
    collect(ollama(), ChatRequest(model="m", messages=history))
    sent = body_of(server.calls[0])["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == {"path": "a"}
    assert sent[2] == {**history[2], "tool_name": "read_file"}  # Ollama matches results by tool name
    assert history[1]["tool_calls"][0]["function"]["arguments"] == '{"path": "a"}'  # ours untouched


def test_ollama_sends_a_key_only_when_configured(server):
    server.add(responses.POST, OLLAMA_CHAT, body=ndjson(ollama_line("x", done=True)))
    collect(ollama(api_key="proxy-token"), request())
    assert server.calls[0].request.headers["Authorization"] == "Bearer proxy-token"


def test_ollama_non_streaming(server):
    server.add(responses.POST, OLLAMA_CHAT, json={
        "model": "m", "done": True, "done_reason": "stop", "prompt_eval_count": 9, "eval_count": 2,
        "message": {"role": "assistant", "content": "whole", "thinking": "mm",
                    "tool_calls": [{"function": {"name": "list_files", "arguments": {"path": "."}}}]},
    })
    reply = collect(ollama(), request(stream=False))
    assert (reply.text, reply.thinking) == ("whole", "mm")
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("list_files", {"path": "."})]
    assert reply.usage == Usage(9, 2)
    assert body_of(server.calls[0])["stream"] is False


def test_ollama_unreachable_names_the_url_and_ollama_serve(server, sleeps):
    server.add(responses.POST, OLLAMA_CHAT,
               body=requests.exceptions.ConnectionError("Failed to establish a new connection: Connection refused"))
    with pytest.raises(LLMError) as caught:
        collect(ollama(sleeps, max_retries=1), request())
    assert OLLAMA in caught.value.message
    assert "ollama serve" in caught.value.hint
    assert caught.value.exit_status == 1
    assert sleeps == [0.25]


def test_ollama_unknown_model_suggests_pulling_it(server):
    server.add(responses.POST, OLLAMA_CHAT, status=404,
               json={"error": "model \"llama9:70b\" not found, try pulling it first"})
    with pytest.raises(LLMError) as caught:
        collect(ollama(), ChatRequest(model="llama9:70b", messages=USER))
    assert "llama9:70b" in caught.value.message
    assert caught.value.hint == "run: ollama pull llama9:70b"


def test_ollama_bad_request_shows_the_message(server):
    server.add(responses.POST, OLLAMA_CHAT, status=400, json={"error": "registry.ollama.ai/x does not support tools"})
    with pytest.raises(LLMError) as caught:
        collect(ollama(), request())
    assert "does not support tools" in caught.value.message


def test_ollama_stream_without_done_is_a_stream_cut(server):
    server.add(responses.POST, OLLAMA_CHAT, body=ndjson(ollama_line("par"), ollama_line("tial")))
    received = []
    with pytest.raises(StreamCutError):
        for delta in ollama().stream(request()):
            received.append(delta.content)
    assert received == ["par", "tial"]


def test_ollama_mid_stream_error_is_a_stream_cut(server):
    server.add(responses.POST, OLLAMA_CHAT, body=ndjson(ollama_line("a"), {"error": "out of memory"}))
    with pytest.raises(StreamCutError, match="out of memory"):
        collect(ollama(), request())


def test_ollama_errors_never_show_a_configured_key(server):
    server.add(responses.POST, OLLAMA_CHAT, status=500, json={"error": f"proxy refused token {SECRET}"})
    with pytest.raises(LLMError) as caught:
        collect(ollama(api_key=SECRET, max_retries=0), request())
    assert "proxy refused token" in caught.value.message
    assert SECRET not in error_text(caught.value)


# --- model lists


def test_list_models_for_both_providers(server):
    server.add(responses.GET, f"{OLLAMA}/api/tags",
               json={"models": [{"name": "qwen2.5-coder:7b"}, {"name": "llama3.2:3b"}]})
    server.add(responses.GET, f"{OPENAI}/models",
               json={"object": "list", "data": [{"id": "gpt-b"}, {"id": "gpt-a"}]})
    assert ollama().list_models() == ["llama3.2:3b", "qwen2.5-coder:7b"]
    assert openai().list_models() == ["gpt-a", "gpt-b"]


def test_list_models_with_an_unexpected_answer_is_an_error(server):
    server.add(responses.GET, f"{OPENAI}/models", body="<html>hello</html>")
    with pytest.raises(LLMError, match="model list"):
        openai().list_models()
