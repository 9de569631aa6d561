"""Ollama: POST {base_url}/api/chat, newline-delimited JSON streaming."""

from __future__ import annotations

import json
from typing import Any, Iterator

import requests

from ayder_cli.calls import decode_arguments
from ayder_cli.llm.wire_types import ChatRequest, Delta, LLMError, StreamCutError, ToolCallFragment, Usage
from ayder_cli.llm.discover import model_names
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.llm.http import Transport, empty_reply_error, server_message, whole_json_asked_twice
from ayder_cli.llm.odd_answers import out_of_quota
from ayder_cli.llm.providers import OLLAMA, OPENAI
from ayder_cli.llm.served import ServedWindow, from_ollama_show
from ayder_cli.llm.sse import Skipped, decode_ndjson_lines, json_value
from ayder_cli.llm.unstreamed import stream_chunks, whole_answer


class OllamaClient:
    provider = OLLAMA.name

    def __init__(self, endpoint: Endpoint, transport: Transport, *, redact) -> None:
        self.base_url = endpoint.base_url
        self.transport = transport
        self.redact = redact

    def stream(self, request: ChatRequest) -> Iterator[Delta]:
        url = f"{self.base_url}/api/chat"
        watch = self.transport.watch(request.reading)

        def send() -> requests.Response:
            return self.transport.request("POST", url, body=self._body(request), stream=request.stream,
                                          error_for=lambda failed: self._error_for(failed, request.model), watch=watch)

        response = send()
        whole = whole_answer(response, url, self.redact) if request.stream else None  # "stream" ignored
        if not request.stream or whole is not None:
            payload = whole or whole_json_asked_twice(response, send, url, self.redact, self.transport.log)
            yield line_delta({**payload, "done": True}, 0)
            return
        calls_seen = 0
        skipped = Skipped("line")
        seen = 0
        for line in decode_ndjson_lines(stream_chunks(response, url, watch)):
            seen += 1
            try:
                payload = loads_line(line)
            except ValueError:  # bad JSON or bad UTF-8
                payload = None
            if isinstance(payload, dict) and payload.get("error"):
                raise StreamCutError(f"Ollama reported an error mid-stream: {self.redact(str(payload['error']))}")
            try:
                delta = line_delta(payload, calls_seen) if isinstance(payload, dict) else None
            except (AttributeError, TypeError, KeyError):  # JSON, but not the shape of a chat line
                delta = None
            if delta is None:  # malformed: skipped, unless most lines are
                skipped.add(self.redact(line.decode("utf-8", "replace")), seen)
                continue
            if delta.tool_calls:
                calls_seen += len(delta.tool_calls)
            # "done" alone gets the finish reason "stop" filled in: only a done_reason says the model stopped.
            watch.saw(delta, finish_stated=bool(payload.get("done_reason")))
            yield delta
        if not watch.finished:
            raise StreamCutError(f"the stream from {url} ended before the reply was complete{skipped.note()}")
        if not watch.replied:
            raise empty_reply_error(url)
        if skipped.count:
            yield Delta(warning=skipped.warning())

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        options = {
            key: value
            for key, value in (
                ("num_ctx", request.num_ctx),
                ("temperature", request.temperature),
                ("top_p", request.top_p),
                ("num_predict", request.max_tokens),
            )
            if value is not None
        }
        body: dict[str, Any] = {
            "model": request.model,
            "messages": ollama_messages(request.messages),
            "stream": request.stream,
        }
        if options:
            body["options"] = options
        if request.keep_alive is not None:
            body["keep_alive"] = request.keep_alive
        # An over-long prompt: an error ayder can act on, instead of a silently shortened one
        # (older Ollamas ignore the field and cut; the loop then sees it in prompt_eval_count).
        body["truncate"] = False
        if request.tools:
            body["tools"] = request.tools
        return body

    def served_window(self, model: str, requested: int | None) -> ServedWindow | None:
        """What Ollama serves for `model` when ayder sends num_ctx `requested` (/api/show)."""
        return from_ollama_show(self.transport.probe("POST", f"{self.base_url}/api/show", {"model": model}),
                                requested)

    def served_models(self) -> tuple[str, ...] | None:
        """The names /api/tags lists, asked once (no retry); None when no model list answers there."""
        return model_names(self.transport.probe("GET", f"{self.base_url}{OLLAMA.models_path}"))

    def list_models(self) -> list[str]:
        url = f"{self.base_url}{OLLAMA.models_path}"
        response = self.transport.request("GET", url, error_for=self._error_for)
        try:
            return sorted(item["name"] for item in response.json().get("models", []))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise LLMError(f"{url} did not answer with a model list") from exc

    def _error_for(self, response: requests.Response, model: str = "MODEL") -> LLMError:
        status = response.status_code
        message = self.redact(server_message(response))
        if status == 404 and "not found" in message.lower() and "model" in message.lower():
            return LLMError(f"Ollama has no model {model!r}: {message}", OLLAMA.missing_model_hint(model), status)
        if status == 404:  # no such path: the URL is not Ollama's root ("404 page not found")
            return LLMError(f"{response.url} not found (HTTP 404): {message}", "check base_url: Ollama's has no "
                            f"path (http://HOST:11434); a URL ending in /v1 is an OpenAI-compatible API (-p {OPENAI.name})",
                            status)
        if status in (401, 403):
            return LLMError(f"Ollama rejected the request (HTTP {status}): {message}", "check api_key_file / api_key in the config", status)
        if status in (400, 413, 422):
            return LLMError(f"Ollama rejected the request (HTTP {status}): {message}", None, status)
        if status in (402, 429) and out_of_quota(response.text):
            return LLMError(f"Ollama refused the request, out of quota (HTTP {status}): {message}",
                            "check your plan with the provider; trying again will not help", status)
        return LLMError(f"Ollama error (HTTP {status}): {message}", "check the output of `ollama serve`", status)


def loads_line(line: bytes) -> Any:
    """json.loads(line), faster: most lines are plain UTF-8, which skips json's encoding detection."""
    try:
        return json_value(line.decode())
    except ValueError:  # not UTF-8, a BOM, or bad JSON: the general path decides, raising as before
        return json.loads(line)


def line_delta(payload: dict[str, Any], calls_seen: int) -> Delta:
    """One NDJSON object of /api/chat -> Delta. Ollama sends each tool call whole."""
    message = payload.get("message") or {}
    fragments = None
    if message.get("tool_calls"):
        fragments = [
            ToolCallFragment(
                index=calls_seen + position,
                id=call.get("id"),
                name=(call.get("function") or {}).get("name"),
                arguments=(call.get("function") or {}).get("arguments"),
            )
            for position, call in enumerate(message["tool_calls"])
        ]
    finish = None
    usage = None
    if payload.get("done"):
        finish = payload.get("done_reason") or "stop"
        # prompt_eval_count is the whole prompt; prompt_eval_cached_count (Ollama 0.34+) the part reused.
        usage = Usage(payload.get("prompt_eval_count"), payload.get("eval_count"),
                      payload.get("prompt_eval_cached_count"), _speed(payload), _prompt_speed(payload))
    return Delta(
        content=message.get("content") or None,
        thinking=message.get("thinking") or None,
        tool_calls=fragments,
        finish_reason=finish,
        usage=usage,
    )


def ollama_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each message in Ollama's shape; a tool result also names its tool (Ollama reads `tool_name`)."""
    names: dict[str, str] = {}
    converted = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            names[call.get("id", "")] = (call.get("function") or {}).get("name", "")
        if message.get("role") == "tool" and names.get(message.get("tool_call_id", "")):
            message = {**message, "tool_name": names[message["tool_call_id"]]}
        converted.append(ollama_message(message))
    return converted


def ollama_message(message: dict[str, Any]) -> dict[str, Any]:
    """Our messages are in OpenAI shape; Ollama wants tool-call arguments as objects, and the reasoning
    sent back as `thinking`."""
    if "reasoning_content" in message:
        message = {**{k: v for k, v in message.items() if k != "reasoning_content"},
                   "thinking": message["reasoning_content"]}
    calls = message.get("tool_calls")
    if not calls:
        return message
    converted = []
    for call in calls:
        function = dict(call.get("function") or {})
        function["arguments"], _ = decode_arguments(function.get("arguments"))
        converted.append({**call, "function": function})
    return {**message, "tool_calls": converted}


def _speed(payload: dict) -> float | None:
    """Tokens generated per second: eval_count over eval_duration (nanoseconds)."""
    return _per_second(payload.get("eval_count"), payload.get("eval_duration"))


def _prompt_speed(payload: dict) -> float | None:
    """Prompt tokens read per second: prompt_eval_count (less the part reused, where it says) over
    prompt_eval_duration (nanoseconds)."""
    count, cached = payload.get("prompt_eval_count"), payload.get("prompt_eval_cached_count")
    if isinstance(count, int) and isinstance(cached, int):
        count -= cached
    return _per_second(count, payload.get("prompt_eval_duration"))


def _per_second(count, duration) -> float | None:
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (count, duration)) or count <= 0 or duration <= 0:
        return None
    return count / (duration / 1e9)
