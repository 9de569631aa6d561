"""Making a conversation fit the window the server serves, without asking the model: a request known
not to fit is never sent.

Two ways, both in place on the messages: the results of earlier tool calls
cleared (oldest first; the call stays, so the model knows it made it and can
make it again), and, the last resort for one message too big to fit at all (a
huge file piped in, an interrupted 60,000-word reply kept in history), its
middle cut out with a marker saying how much. The start and the end, where
the request and the conclusion usually are, stay.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ayder_cli.agent.conversation import RESULTS_HEADER, calls_chars, holds_results

CHARS_PER_ESTIMATED_TOKEN = 4  # conversation.estimate_tokens counts about four characters a token
MIN_KEPT_CHARS = 400  # of a cut message, at least this much of its start and of its end stays
CLEARED = ("[result cleared to keep the conversation within the context window; "
           "make the call again if it is still needed]")
MARKER = "\n\n[… {cut} characters cut from the middle of this message so the conversation fits the context window …]\n\n"


@dataclass(frozen=True)
class WindowShare:
    """How a window is shared between the prompt and the reply: the prompt may hold the rest."""

    window: int  # tokens the server serves
    reply: int  # tokens kept free for the answer

    @classmethod
    def for_window(cls, window: int, max_tokens: int | None) -> "WindowShare":
        # The reply needs room too, but a max_tokens near the window must not leave no prompt at all.
        return cls(window, min(max_tokens or 1024, window // 4))

    @property
    def prompt(self) -> int:
        return self.window - self.reply


def shorten_middles(messages: list[dict[str, Any]], over_chars: int) -> list[str]:
    """Cut `over_chars` characters out of the middle of the longest messages, in place; then, if that
    is not enough, out of the longest text arguments of the calls the model made (a whole file given
    to write_file).

    Returns a note per message cut. The system prompt and the message the
    user just sent are cut only when nothing else is long enough.
    """
    notes: list[str] = []
    order = sorted(range(len(messages)), key=lambda i: -len(_text(messages[i])))
    last = len(messages) - 1
    order.sort(key=lambda i: messages[i].get("role") == "system" or i == last)  # those two last, if needed
    for index in order:
        if over_chars <= 0:
            break
        shortened = _cut_middle(_text(messages[index]), over_chars)
        if shortened is None:
            continue
        text, cut, freed = shortened
        messages[index] = {**messages[index], "content": text}
        over_chars -= freed
        role = messages[index].get("role")
        notes.append(f"{cut} characters cut from the middle of {'an' if role == 'assistant' else 'a'} {role} message")
    for index in sorted(range(len(messages)), key=lambda i: -calls_chars(messages[i].get("tool_calls"))):
        if over_chars <= 0 or not messages[index].get("tool_calls"):
            break
        calls, cut = _shorten_arguments(messages[index]["tool_calls"], over_chars)
        if cut:
            messages[index] = {**messages[index], "tool_calls": calls}
            over_chars -= cut
            notes.append(f"{cut} characters cut from the middle of the arguments of a tool call")
    return notes


def _cut_middle(text: str, over_chars: int) -> tuple[str, int, int] | None:
    """`text` with up to `over_chars` characters cut from its middle and a marker in their place:
    (the text, how many were cut, how many fewer it has); None if it is too short to cut."""
    marker_size = len(MARKER.format(cut=len(text)))
    can_cut = len(text) - 2 * MIN_KEPT_CHARS - marker_size
    if can_cut <= 0:
        return None
    cut = min(can_cut, over_chars + marker_size)
    keep = (len(text) - cut) // 2
    return text[:keep] + MARKER.format(cut=cut) + text[keep + cut:], cut, cut - marker_size


def _shorten_arguments(calls: list[dict[str, Any]], over_chars: int) -> tuple[list[dict[str, Any]], int]:
    """The calls with their longest text arguments cut in the middle (the JSON stays valid); how many
    characters fewer."""
    shortened, freed = [], 0
    for call in calls:
        function = call.get("function") or {}
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            shortened.append(call)
            continue
        for key in sorted(arguments, key=lambda k: -len(str(arguments[k]))):
            value = arguments[key]
            cut = _cut_middle(value, over_chars - freed) if isinstance(value, str) and freed < over_chars else None
            if cut is not None:
                arguments[key], freed = cut[0], freed + cut[2]
        text = json.dumps(arguments, ensure_ascii=False)
        shortened.append({**call, "function": {**function, "arguments": text}})
    return shortened, freed


def latest_round(messages: list[dict[str, Any]]) -> int:
    """Where the latest round starts: the last reply of the model (0: it has not replied yet)."""
    return max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=0)


def clear_old_results(messages: list[dict[str, Any]], over_chars: int) -> int:
    """Clear the results of tool calls before the latest round, oldest first, in place, until
    `over_chars` characters are gone; how many were cleared."""
    cleared = 0
    for index in range(latest_round(messages)):
        if over_chars <= 0:
            break
        message = messages[index]
        text = _text(message)
        stub = CLEARED if message.get("role") == "tool" else RESULTS_HEADER + CLEARED
        if not holds_results(message) or len(text) <= len(stub):
            continue
        messages[index] = {**message, "content": stub}
        over_chars -= len(text) - len(stub)
        cleared += 1
    return cleared


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""
