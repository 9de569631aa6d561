"""PromptCache: what the server's prompt cache holds, and what a request makes it read again.

A server keeps the prompt it read last. A request that extends it is read from
where it ends; a request that changes an earlier message is read again from
that message on where the server reuses a partial prefix (llama.cpp on plain
transformer models), and whole where it keeps no partial state (hybrid and
sliding-window models: Qwen3.5+, Gemma 3/4, gpt-oss). The doctor measures
which one a server and model are and keeps it in the server profile; until it
is known, ayder counts as for the latter, as most of today's local models are.
The same knowledge sets how much a trim frees (window.py): where every trim
costs a whole re-read, fewer and larger trims.
"""

from __future__ import annotations

import json
from typing import Any

from ayder_cli.agent.conversation import estimate_tokens
from ayder_cli.llm.wire_types import ChatRequest
from ayder_cli.storage.profiles import ServerProfiles

PROFILE_KEY = "partial_prefix_reuse"  # the doctor's finding: the server reuses a partial prefix (bool)
# What a trim leaves of the prompt's share of the window, so that several rounds append again before the next one.
TRIM_TO_REUSED = 0.5  # a server that reads again only from the change on
TRIM_TO_WHOLE = 0.4  # a server that reads the whole prompt again after any change


class PromptCache:
    def __init__(self, profiles: ServerProfiles | None, url: str, model: str) -> None:
        learned = profiles.get(url, model).get(PROFILE_KEY) if profiles else None
        self.partial_reuse: bool | None = learned if isinstance(learned, bool) else None
        self._last: list[Any] = []  # the prompt last sent, in the order chat templates lay it out

    @property
    def trim_to(self) -> float:
        """The part of the prompt's share of the window a trim brings the request down to."""
        return TRIM_TO_REUSED if self.partial_reuse else TRIM_TO_WHOLE

    def reread(self, request: ChatRequest) -> int:
        """Estimated tokens of `request` that the server read before and must read again: none for an
        extension of the prompt it holds; else what it held, from the first change on (or from the start,
        where it reuses no partial prefix)."""
        parts, last = _parts(request), self._last
        held = min(len(parts), len(last))
        change = next((i for i in range(held) if parts[i] != last[i]), held)
        if change == len(last):
            return 0
        start = change if self.partial_reuse else 0
        return sum(_tokens(part) for part in parts[start:held])

    def sent(self, request: ChatRequest) -> int:
        """The server now holds `request`; what it had to read again for it."""
        again = self.reread(request)
        self._last = _parts(request)
        return again


def _parts(request: ChatRequest) -> list[Any]:
    """The system prompt, the tool schemas, the other messages: the order a chat template lays them out."""
    messages = list(request.messages)
    head = [messages.pop(0)] if messages and messages[0].get("role") == "system" else []
    return head + ([request.tools] if request.tools else []) + messages


def _tokens(part: Any) -> int:
    if isinstance(part, list):  # the tool schemas
        return len(json.dumps(part)) // 4
    return estimate_tokens([part])


def describe_reread(tokens: int, speed: float | None) -> str:
    """"the server reads about 2,400 tokens again (~24 s at 100 tok/s)", the time where the speed is known."""
    text = f"the server reads about {tokens:,} tokens again"
    if speed:
        seconds = tokens / speed
        took = f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
        text += f" (~{took} at {speed:,.0f} tok/s)"
    return text
