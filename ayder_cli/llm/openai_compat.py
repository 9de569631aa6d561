"""OpenAI-compatible servers: POST {base_url}/chat/completions, SSE streaming."""

from __future__ import annotations

import json
from typing import Any, Iterator

import requests

from ayder_cli.llm.wire_types import (
    ChatRequest,
    Delta,
    LLMError,
    ProgressDelta,
    PromptProgress,
    StreamCutError,
    ToolCallFragment,
    Usage,
)
from ayder_cli.llm.discover import model_names
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.llm.http import (
    ReplyWatch,
    Transport,
    empty_reply_error,
    error_text,
    server_message,
    whole_json_asked_twice,
)
from ayder_cli.llm.odd_answers import out_of_quota
from ayder_cli.llm.providers import OPENAI
from ayder_cli.llm.served import ServedWindow, from_llama_cpp_props, from_lm_studio_models, from_openai_models
from ayder_cli.llm.sse import Skipped, decode_sse, json_value
from ayder_cli.llm.unstreamed import stream_chunks, whole_answer

# llama.cpp: reuse runs of at least this many cached tokens found after a changed or removed middle of the
# prompt (KV shifting; models whose cache cannot shift ignore it), as its --cache-reuse does server-wide.
CACHE_REUSE_CHUNK = 256


class OpenAIClient:
    provider = OPENAI.name

    def __init__(self, endpoint: Endpoint, transport: Transport, *, redact) -> None:
        self.base_url = endpoint.base_url
        self.transport = transport
        self.has_key = bool(endpoint.api_key)
        self.api_key_env = endpoint.key_env
        self.redact = redact
        # Ask for usage in the stream until a server refuses the option.
        self.include_usage = True
        # llama.cpp (known from its /props) reports how far it has read a prompt when asked, and is asked
        # to keep its prompt cache and reuse what it can of it.
        self.reports_progress = False

    def stream(self, request: ChatRequest) -> Iterator[Delta]:
        url = f"{self.base_url}/chat/completions"
        watch = self.transport.watch(request.reading)
        response = self._post(url, request, watch)
        if not request.stream:
            yield whole_response_delta(whole_json_asked_twice(response, lambda: self._post(url, request, watch), url,
                                                              self.redact, self.transport.log))
            return
        whole = whole_answer(response, url, self.redact)
        if whole is not None:  # a chat.completion object where chunks were asked for: the complete reply
            yield whole_response_delta(whole)
            return
        yield from self._decode_stream(response, url, watch)

    def _post(self, url: str, request: ChatRequest, watch: ReplyWatch) -> requests.Response:
        body = self._body(request)
        try:
            return self.transport.request("POST", url, body=body, stream=request.stream, error_for=self._error_for,
                                          watch=watch)
        except LLMError as exc:
            # Some servers reject stream_options; ask once more without it and remember.
            named = "stream_options" in exc.message or "include_usage" in exc.message
            if "stream_options" not in body or exc.status not in (400, 422) or not named:
                raise
            self.include_usage = False
            try:
                return self.transport.request(
                    "POST", url, body=self._body(request), stream=True, error_for=self._error_for, watch=watch
                )
            except LLMError:
                self.include_usage = True  # refused without it too: the option was not the problem
                raise

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": request.model, "messages": request.messages, "stream": request.stream}
        if request.stream and self.include_usage:
            body["stream_options"] = {"include_usage": True}
        if request.stream and self.reports_progress:
            body["return_progress"] = True
        if self.reports_progress:
            body.update(cache_prompt=True, n_cache_reuse=CACHE_REUSE_CHUNK)
        for key in ("temperature", "top_p", "max_tokens"):
            value = getattr(request, key)
            if value is not None:
                body[key] = value
        if request.tools:
            body["tools"] = request.tools
            if request.tool_choice is not None:
                body["tool_choice"] = request.tool_choice
        return body

    def _decode_stream(self, response: requests.Response, url: str, watch: ReplyWatch) -> Iterator[Delta]:
        done = False
        skipped = Skipped("event")
        seen = 0
        for event, data in decode_sse(stream_chunks(response, url, watch)):
            if data == "[DONE]":
                done = True
                break
            seen += 1
            delta = self._event_delta(event, data, url)
            if delta is None:  # malformed: skipped, unless most events are
                skipped.add(self.redact(data), seen)
                continue
            watch.saw(delta)
            yield delta
        if not (done or watch.finished):
            raise StreamCutError(f"the stream from {url} ended before the reply was complete{skipped.note()}")
        if not watch.replied:
            raise empty_reply_error(url)
        if skipped.count:
            yield Delta(warning=skipped.warning())

    def _event_delta(self, event: str, data: str, url: str) -> Delta | None:
        """The event's delta; None when it is malformed; StreamCutError when the server reports an error."""
        try:
            payload = json_value(data)
        except json.JSONDecodeError:
            payload = None
        if event == "error" or isinstance(payload, dict) and payload.get("error"):
            detail = error_text(payload) if isinstance(payload, dict) else data[:200]
            raise StreamCutError(f"the server reported an error mid-stream: {self.redact(detail)}")
        if not isinstance(payload, dict):
            return None
        try:
            return chunk_delta(payload)
        except (AttributeError, TypeError, KeyError, IndexError):  # JSON, but not the shape of a chunk
            return None

    def served_window(self, model: str, requested: int | None) -> ServedWindow | None:
        """The window the server reports: llama.cpp /props, vLLM or llama.cpp /v1/models, LM Studio."""
        root = self.base_url.removesuffix("/v1")
        probe = self.transport.probe
        props = from_llama_cpp_props(probe("GET", f"{root}/props"))
        self.reports_progress = props is not None  # never sent to a server that may not know the field
        return (props
                or from_openai_models(probe("GET", f"{self.base_url}/models"), model)
                or from_lm_studio_models(probe("GET", f"{root}/api/v0/models"), model))

    def served_models(self) -> tuple[str, ...] | None:
        """The names /models lists, asked once (no retry); None when no model list answers there."""
        return model_names(self.transport.probe("GET", f"{self.base_url}{OPENAI.models_path}"))

    def is_llama_cpp(self) -> bool:
        """llama.cpp's /props answers: its Ollama-style /api/tags comes with OpenAI-style chat."""
        return isinstance(self.transport.probe("GET", f"{self.base_url.removesuffix('/v1')}/props"), dict)

    def list_models(self) -> list[str]:
        url = f"{self.base_url}{OPENAI.models_path}"
        response = self.transport.request("GET", url, error_for=self._error_for)
        try:
            return sorted(item["id"] for item in response.json().get("data", []))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise LLMError(f"{url} did not answer with a model list") from exc

    def _error_for(self, response: requests.Response) -> LLMError:
        status = response.status_code
        message = self.redact(server_message(response))
        url = response.url
        found_here = ("ayder sends no key from the environment to a server it found itself: "
                      "name it with --base-url")
        if status == 401 and not self.api_key_env:
            return LLMError(f"the server rejected the request (HTTP {status}): it wants an API key", found_here, status)
        no_key = f"no API key is set: export {self.api_key_env}=... or set api_key_file in the config"
        if status == 401:
            hint = (f"set {self.api_key_env} to a valid key (or api_key_env / api_key_file in the config)"
                    if self.has_key else no_key)
            return LLMError(f"the server rejected the API key (HTTP {status})", hint, status)
        if status == 403:  # the key was fine; what it may do, or where from, was not: the server says which
            hint = (found_here if not self.api_key_env else no_key if not self.has_key else
                    f"the key ({self.api_key_env}) was accepted but may not do this: check its access to the model")
            return LLMError(f"the server refused the request (HTTP 403): {message}", hint, status)
        if status in (402, 429) and out_of_quota(response.text):
            return LLMError(f"the server refused the request, out of quota or credit (HTTP {status}): {message}",
                            "check your plan and billing with the provider; trying again will not help", status)
        if status == 404:
            if "model" in message.lower():
                return LLMError(f"model not found: {message}", "see the server's models with --doctor or /model; "
                                "pick one with -m NAME (in a session: /model NAME)", status)
            return LLMError(f"{url} not found (HTTP 404)", "check base_url: OpenAI-compatible servers usually end in /v1", status)
        if status == 429:
            return LLMError(f"the server is rate limiting requests (HTTP 429): {message}", "wait a little and try again", status)
        if status in (400, 413, 422):
            return LLMError(f"the server rejected the request (HTTP {status}): {message}", None, status)
        return LLMError(f"server error (HTTP {status}): {message}", "try again; check the server's log if it persists", status)


def chunk_delta(payload: dict[str, Any]) -> Delta:
    """One `chat.completion.chunk` -> Delta."""
    usage = _usage(payload.get("usage"), payload.get("timings"))
    choices = payload.get("choices")
    if not choices:
        return ProgressDelta(prompt_progress(payload["prompt_progress"])) if "prompt_progress" in payload \
            else Delta(usage=usage)
    choice = choices[0]
    delta = choice.get("delta") or {}
    content = delta.get("content")
    if not content and "prompt_progress" in payload:  # llama.cpp still reading: before any text
        return ProgressDelta(prompt_progress(payload["prompt_progress"]))
    return Delta(
        content=content,
        thinking=delta.get("reasoning_content") or delta.get("reasoning"),
        tool_calls=_fragments(delta) if "tool_calls" in delta or "function_call" in delta else None,
        finish_reason=choice.get("finish_reason"),
        usage=usage,
    )


def prompt_progress(fields: Any) -> PromptProgress | None:
    """llama.cpp's {"total", "cache", "processed", "time_ms"}; None when it is not that shape."""
    if not isinstance(fields, dict):
        return None
    total, cached, processed, time_ms = (_count(fields.get(key)) for key in ("total", "cache", "processed", "time_ms"))
    if total is None or processed is None:
        return None
    return PromptProgress(total, cached or 0, min(processed, total), time_ms or 0)


def whole_response_delta(payload: dict[str, Any]) -> Delta:
    """A non-streamed `chat.completion` -> one Delta holding all of it."""
    choice = (payload.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    return Delta(
        content=message.get("content"),
        thinking=message.get("reasoning_content") or message.get("reasoning"),
        tool_calls=_fragments(message),
        finish_reason=choice.get("finish_reason") or "stop",
        usage=_usage(payload.get("usage"), payload.get("timings")),
    )


def _fragments(delta: dict[str, Any]) -> list[ToolCallFragment] | None:
    calls = delta.get("tool_calls")
    if calls:
        fragments = []
        for position, call in enumerate(calls):
            function = call.get("function") or {}
            fragments.append(
                ToolCallFragment(
                    index=call.get("index", position),
                    id=call.get("id"),
                    name=function.get("name"),
                    arguments=function.get("arguments"),
                )
            )
        return fragments
    legacy = delta.get("function_call")  # the pre-tools API: one call, no id
    if legacy:
        return [ToolCallFragment(index=0, name=legacy.get("name"), arguments=legacy.get("arguments"))]
    return None


def _usage(usage: Any, timings: Any = None) -> Usage | None:
    """The counts of `usage`, with the cached part of the prompt where the server says it:
    OpenAI and vLLM prompt_tokens_details.cached_tokens, DeepSeek prompt_cache_hit_tokens,
    llama.cpp `timings` (cache_n reused, prompt_n read anew, predicted_n generated)."""
    if usage is None and timings is None:  # most chunks of a stream: checked first, it is per event
        return None
    usage = usage if isinstance(usage, dict) else {}
    timings = timings if isinstance(timings, dict) else {}
    details = usage.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else None
    cached = cached if cached is not None else _count(usage.get("prompt_cache_hit_tokens"))
    cached = cached if cached is not None else _count(timings.get("cache_n"))
    prompt = _count(usage.get("prompt_tokens"))
    read_anew = _count(timings.get("prompt_n"))
    if prompt is None and read_anew is not None:
        prompt = read_anew + (cached or 0)
    completion = _count(usage.get("completion_tokens"))
    completion = completion if completion is not None else _count(timings.get("predicted_n"))
    if prompt is None and completion is None:
        return None
    return Usage(prompt, completion, cached, _rate(timings.get("predicted_per_second")),  # llama.cpp
                 _rate(timings.get("prompt_per_second")) if read_anew else None)  # a read of nothing measures nothing


def _rate(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
