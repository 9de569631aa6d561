"""What the fake server sends for a Reply (support/fakellm.py), in each protocol: OpenAI's SSE
events, Ollama's NDJSON lines, or the whole body of a reply that is not streamed."""

from __future__ import annotations

import json
from typing import Any


def _timings(reply) -> dict[str, Any] | None:
    """llama.cpp's timings: cache_n tokens reused from the cache, prompt_n read anew (at prompt_per_second),
    the generation speed."""
    if not reply.usage or (reply.cached is None and reply.speed is None and reply.prompt_speed is None):
        return None
    timings: dict[str, Any] = {"predicted_n": reply.usage[1]}
    if reply.cached is not None:
        timings.update(cache_n=reply.cached, prompt_n=reply.usage[0] - reply.cached)
    if reply.prompt_speed is not None:
        read = reply.usage[0] - (reply.cached or 0)
        timings.update(prompt_n=read, prompt_ms=read / reply.prompt_speed * 1000,
                       prompt_per_second=reply.prompt_speed)
    if reply.speed is not None:
        timings["predicted_per_second"] = reply.speed
    return timings


def progress_event(total: int, cached: int, processed: int, time_ms: int) -> bytes:
    """llama.cpp's prompt_progress chunk: an empty assistant delta with how far the prompt is read."""
    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": None}, "finish_reason": None}],
             "prompt_progress": {"total": total, "cache": cached, "processed": processed, "time_ms": time_ms}}
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _ollama_counts(reply) -> dict[str, Any]:
    """Ollama's counts on its last line: the prompt, the generated tokens and how long they took (ns)."""
    counts: dict[str, Any] = {}
    if reply.usage:
        counts.update(prompt_eval_count=reply.usage[0], eval_count=reply.usage[1])
        if reply.speed:
            counts["eval_duration"] = round(reply.usage[1] / reply.speed * 1e9)
        if reply.prompt_speed:
            read = reply.usage[0] - (reply.cached or 0)
            counts["prompt_eval_duration"] = round(read / reply.prompt_speed * 1e9)
    if reply.cached is not None:
        counts["prompt_eval_cached_count"] = reply.cached
    return counts


def _pieces(reply) -> list[str]:
    """The content deltas: the chunks given, else the text in pieces of four characters."""
    if reply.chunks is not None:
        return list(reply.chunks)
    return [reply.text[i : i + 4] for i in range(0, len(reply.text), 4)]


def _arguments_text(call: dict[str, Any]) -> str:
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def openai_events(reply, model: str) -> list[bytes]:
    """A streamed reply as OpenAI sends it: one SSE event per delta, the finish, the usage, [DONE]."""
    def event(delta: dict[str, Any], finish: str | None = None, usage: dict | None = None, choices: bool = True,
              timings: dict | None = None) -> bytes:
        chunk: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model}
        chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []
        if usage:
            chunk["usage"] = usage
        if timings:
            chunk["timings"] = timings
        data = json.dumps(chunk)
        if reply.multiline_data:
            # Split where JSON allows whitespace: the client joins data: lines with a newline.
            head, tail = data.split(', "choices": ', 1)
            return f'data: {head},\ndata: "choices": {tail}\n\n'.encode()
        return f"data: {data}\n\n".encode()

    if reply.empty_choices:  # chunks that hold no choice at all, then the end
        return [event({}, choices=False) for _ in _pieces(reply)] + [event({}, choices=False) + b"data: [DONE]\n\n"]
    events = []
    if reply.thinking:
        events += [event({"reasoning_content": reply.thinking[i : i + 8]}) for i in range(0, len(reply.thinking), 8)]
    events += [event({"content": piece}) for piece in _pieces(reply)]
    for index, call in enumerate(reply.tool_calls):
        arguments = _arguments_text(call)
        half = len(arguments) // 2
        head = {"index": index, "id": call.get("id", f"call_{index}"), "type": "function",
                "function": {"name": call["name"], "arguments": arguments[:half]}}
        events.append(event({"tool_calls": [head]}))
        events.append(event({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]}))
        if reply.argument_pieces:  # the arguments in that many fragments, the first beside the name
            size = max(1, -(-len(arguments) // reply.argument_pieces))
            head["function"]["arguments"] = arguments[:size]
            events[-2:] = [event({"tool_calls": [head]})] + [
                event({"tool_calls": [{"index": index, "function": {"arguments": arguments[i : i + size]}}]})
                for i in range(size, len(arguments), size)]
        if reply.repeat_id:
            events[-1] = event({"tool_calls": [{"index": index, "id": head["id"],
                                                "function": {"arguments": arguments[half:]}}]})
        if reply.id_pieces:
            whole = head["id"]
            size = -(-len(whole) // reply.id_pieces)
            pieces = [whole[i : i + size] for i in range(0, len(whole), size)]
            head["id"] = pieces[0]
            events[-2] = event({"tool_calls": [head]})
            events[-1:-1] = [event({"tool_calls": [{"index": index, "id": piece}]}) for piece in pieces[1:]]
    finish = "tool_calls" if reply.tool_calls and reply.finish_reason == "stop" else reply.finish_reason
    # llama.cpp puts its timings on the last chunk with choices
    events.append(event({}, finish, timings=_timings(reply)))
    usage = {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
             "total_tokens": sum(reply.usage)} if reply.usage else None
    events.append(event({}, None, usage, choices=False) + b"data: [DONE]\n\n")
    return events


def ollama_lines(reply, model: str) -> list[bytes]:
    """A streamed reply as Ollama sends it: one NDJSON line per delta, then the done line with its counts."""
    def line(message: dict[str, Any], done: bool = False, **extra: Any) -> bytes:
        payload = {"model": model, "created_at": "2026-01-01T00:00:00Z",
                   "message": {"role": "assistant", "content": "", **message}, "done": done, **extra}
        return (json.dumps(payload) + "\n").encode()

    if reply.empty_choices:  # "done", and nothing else: no message, no done_reason
        return [(json.dumps({"model": model, "created_at": "2026-01-01T00:00:00Z", "done": True}) + "\n").encode()]
    events = []
    if reply.thinking:
        events += [line({"thinking": reply.thinking[i : i + 8]}) for i in range(0, len(reply.thinking), 8)]
    events += [line({"content": piece}) for piece in _pieces(reply)]
    if reply.tool_calls:
        events.append(line({"tool_calls": [
            {"function": {"name": c["name"], "arguments": c.get("arguments", {})}} for c in reply.tool_calls]}))
    extra: dict[str, Any] = {"done_reason": reply.finish_reason, **_ollama_counts(reply)}
    events.append(line({}, True, **extra))
    return events


def whole_body(reply, model: str, ollama: bool) -> dict[str, Any]:
    """A reply that is not streamed: one JSON body in either protocol."""
    text = "".join(_pieces(reply))
    if ollama:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reply.thinking:
            message["thinking"] = reply.thinking
        if reply.tool_calls:
            message["tool_calls"] = [{"function": {"name": c["name"], "arguments": c.get("arguments", {})}}
                                     for c in reply.tool_calls]
        payload = {"model": model, "message": message, "done": True, "done_reason": reply.finish_reason,
                   **_ollama_counts(reply)}
        return payload
    message = {"role": "assistant", "content": text}
    if reply.thinking:
        message["reasoning_content"] = reply.thinking
    if reply.tool_calls:
        message["tool_calls"] = [{"id": c.get("id", f"call_{i}"), "type": "function",
                                  "function": {"name": c["name"], "arguments": _arguments_text(c)}}
                                 for i, c in enumerate(reply.tool_calls)]
    payload = {"id": "chatcmpl-1", "object": "chat.completion", "model": model,
               "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}]}
    if reply.usage:
        payload["usage"] = {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                            "total_tokens": sum(reply.usage)}
        if _timings(reply):
            payload["timings"] = _timings(reply)
    return payload
