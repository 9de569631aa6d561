"""The messages of one conversation, in the OpenAI shape both clients accept.

How tool calls and their results are written into the conversation is decided
here and nowhere else: native calls get one `role=tool` message each, matched by
`tool_call_id`; calls the model wrote as text get one `role=user` message that
names each call and its result.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ayder_cli.agent.template_needs import REASONING, reasoning_of_this_turn
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.llm.wire_types import Reply

INTERRUPTED_NOTE = "[reply interrupted by the user]"
STREAM_CUT_NOTE = "[reply cut off: the connection to the server broke]"
NO_RESULT = "no result: the call was interrupted before it ran"
RESULTS_HEADER = "Tool results:\n\n"  # starts the user message that holds the results of calls written as text


class Conversation:
    def __init__(self, system_prompt: str, on_message: Callable[[dict[str, Any]], None] | None = None,
                 preamble: str = "") -> None:
        self.system_prompt = system_prompt
        self.messages: list[dict[str, Any]] = []
        self.on_message = on_message  # e.g. the session transcript, told of every message as it is added
        # Sent before the text of the first user message (the environment note), never stored in
        # messages: the system prompt before it stays the same from run to run, the transcript
        # holds what the user wrote.
        self.preamble = preamble

    def _add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if self.on_message is not None:
            self.on_message(message)

    def add_user(self, text: str) -> None:
        self._add({"role": "user", "content": text})

    def add_assistant(self, reply: Reply) -> None:
        """The reply as it came; one that did not finish says so, for the model's sake."""
        text = reply.text
        if reply.interrupted:
            text = f"{text}\n\n{INTERRUPTED_NOTE}" if text else INTERRUPTED_NOTE
        elif reply.stream_cut:
            text = f"{text}\n\n{STREAM_CUT_NOTE}" if text else STREAM_CUT_NOTE
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reply.thinking:  # the server's reasoning field: some templates read it back within the turn
            message[REASONING] = reply.thinking
        if reply.tool_calls and not reply.interrupted and not reply.stream_cut:
            message["tool_calls"] = [
                {"id": call.id, "type": "function",
                 "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
                for call in reply.tool_calls
            ]
        self._add(message)

    def add_results(self, calls: list[ToolCall], results: list[ToolResult], native: bool,
                    notes: list[str] = ()) -> None:
        """Every call gets exactly one result; `notes` (what was wrong with other calls) go along."""
        if native:
            for call, result in zip(calls, results):
                self._add({"role": "tool", "tool_call_id": call.id, "name": call.name,
                           "content": render_result(result)})
            if notes:
                self._add({"role": "user", "content": "\n".join(notes)})
            return
        parts = [f"[{call.name} {json.dumps(call.arguments, ensure_ascii=False)}] {render_result(result)}"
                 for call, result in zip(calls, results)]
        header = RESULTS_HEADER if parts else ""
        self._add({"role": "user", "content": header + "\n\n".join(parts + list(notes))})

    def drop_last_user(self) -> None:
        """Undo add_user when the request failed before anything arrived."""
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages.pop()

    def for_request(self, system_prompt: str | None = None) -> list[dict[str, Any]]:
        """The messages to send, always valid: every native call answered, no orphan results."""
        system = system_prompt if system_prompt is not None else self.system_prompt
        messages = [{"role": "system", "content": system}] if system else []
        pending: dict[str, str] = {}  # call ids still waiting for their result -> the tool's name
        preamble = self.preamble
        for message in self.messages:
            if preamble and message["role"] == "user" and isinstance(message.get("content"), str):
                message = {**message, "content": f"{preamble}\n\n{message['content']}"}
                preamble = ""
            if message["role"] == "tool":
                if message.get("tool_call_id") not in pending:
                    continue  # an orphan result: its call is not in the history
                del pending[message["tool_call_id"]]
            else:
                messages += _answer(pending)
            messages.append(message)
            if message["role"] == "assistant":
                pending = {call["id"]: call.get("function", {}).get("name", "")
                           for call in message.get("tool_calls", ())}
        return reasoning_of_this_turn(messages + _answer(pending),
                                      lambda m: m["role"] == "user" and not holds_results(m))

    def reset(self) -> None:
        self.messages.clear()

    def estimated_tokens(self) -> int:
        """A rough size: about four characters a token."""
        return estimate_tokens(self.for_request())


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """About four characters a token, tool calls included."""
    return sum(len(str(m.get("content") or "")) + len(m.get(REASONING) or "") + calls_chars(m.get("tool_calls"))
               for m in messages) // 4


LONG_ARGUMENTS = 4096  # characters; longer arguments are measured, not written out


def calls_chars(calls: list[dict[str, Any]] | None) -> int:
    """About len(str(calls)), without writing out long arguments: a turn measures the conversation
    many times, and the repr of a whole file given to write_file (tens of MB) cost it a second."""
    if not calls:
        return 0
    total = 2 * len(calls)  # the list's brackets and the ", " between calls
    for call in calls:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if isinstance(arguments, str) and len(arguments) > LONG_ARGUMENTS:
            total += len(str({**call, "function": {**function, "arguments": ""}})) + len(arguments)
        else:
            total += len(str(call))
    return total


def holds_results(message: dict[str, Any]) -> bool:
    """A message that carries tool results: a native one, or the user message of calls written as text."""
    content = message.get("content")
    return message["role"] == "tool" or (
        message["role"] == "user" and isinstance(content, str) and content.startswith(RESULTS_HEADER))


def _answer(pending: dict[str, str]) -> list[dict[str, Any]]:
    """Stand-in results for calls that never got one, so the server accepts the history."""
    answers = [{"role": "tool", "tool_call_id": call_id, "name": name, "content": NO_RESULT}
               for call_id, name in pending.items()]
    pending.clear()
    return answers


def render_result(result: ToolResult) -> str:
    if result.ok:
        return f"ok:\n{result.output}" if result.output else "ok"
    return f"error: {result.error}"
