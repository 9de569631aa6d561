"""Deltas -> one Reply: text, thinking, native tool calls, finish reason, usage."""

from __future__ import annotations

from ayder_cli.calls import ToolCall, decode_arguments
from ayder_cli.llm.wire_types import Delta, Reply, Usage


class _PendingCall:
    __slots__ = ("id", "name", "parts", "value")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name = ""
        self.parts: list[str] = []
        self.value: dict | None = None  # arguments that arrived already decoded (Ollama)


class Accumulator:
    def __init__(self) -> None:
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None

    def add(self, delta: Delta) -> None:
        if delta.content:
            self._text.append(delta.content)
        if delta.thinking:
            self._thinking.append(delta.thinking)
        if delta.tool_calls:
            for fragment in delta.tool_calls:
                call = self._calls.get(fragment.index)
                if call is None:
                    call = self._calls[fragment.index] = _PendingCall()
                if fragment.id:
                    call.id = _joined_id(call.id, fragment.id)
                if fragment.name and fragment.name != call.name:
                    # Most servers send the name once; some repeat it in every fragment.
                    call.name += fragment.name
                if isinstance(fragment.arguments, dict):
                    call.value = fragment.arguments
                elif fragment.arguments:
                    call.parts.append(fragment.arguments)
        if delta.finish_reason:
            self.finish_reason = delta.finish_reason
        if delta.usage:
            self.usage = delta.usage if self.usage is None else self.usage.merged(delta.usage)

    @property
    def text(self) -> str:
        return "".join(self._text)

    def reply(self, *, interrupted: bool = False, stream_cut: bool = False) -> Reply:
        calls = [
            _finish_call(self._calls[index], position)
            for position, index in enumerate(sorted(self._calls))
        ]
        return Reply(
            text=self.text,
            thinking="".join(self._thinking),
            tool_calls=calls,
            finish_reason=self.finish_reason,
            usage=self.usage,
            interrupted=interrupted,
            stream_cut=stream_cut,
        )


def _joined_id(so_far: str | None, piece: str) -> str:
    """An id streamed in pieces is joined. Most servers send it once, some repeat it whole in every
    fragment, a few send the id so far again: a piece equal to, or starting with, what came is not
    appended."""
    if not so_far or piece.startswith(so_far):
        return piece
    return so_far + piece


def _finish_call(call: _PendingCall, position: int) -> ToolCall:
    call_id = call.id or f"call_{position}"
    if call.value is not None:
        return ToolCall(call_id, call.name, call.value)
    arguments, error = decode_arguments("".join(call.parts))
    return ToolCall(call_id, call.name, arguments, error)
