"""What a model's chat template reads back from the history: call ids of the shape it checks, and the
reasoning of the turn's tool loop.

- Mistral's templates (Nemo, Small 3.2, Devstral) raise "Tool call IDs should be
  alphanumeric strings with length 9!" for any other id, in the calls and in the
  results; Kimi K2's shows the model `## Return of <tool_call_id>` next to calls
  it names `functions.NAME:IDX`. An id a server did not give (Ollama gives none,
  ayder makes up `call_0`) or gave in another shape is sent in the family's own,
  the same one on every request, so the history stays append-only.
- DeepSeek V3.2+, Kimi-Thinking, GLM-4.7+, Qwen3.5 and MiniMax (interleaved
  thinking) read the reasoning of each assistant message of the current turn
  back (`reasoning_content`; Ollama's `thinking`), and drop it once a new user
  message starts a turn: it is kept with the reply and sent for that turn only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

REASONING = "reasoning_content"  # the field the reasoning goes back in (the Ollama client sends it as `thinking`)

_MISTRAL = re.compile(r"mistral|magistral|ministral|devstral|codestral|mixtral|pixtral|nemo", re.IGNORECASE)
_KIMI = re.compile(r"kimi", re.IGNORECASE)
_NINE = re.compile(r"[A-Za-z0-9]{9}")
_KIMI_ID = re.compile(r"functions\.[\w.\-]+:\d+")
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def ids_for(model: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with every tool-call id the model's template would refuse or not know in its family's shape,
    the results' tool_call_id renamed alike."""
    family = "mistral" if _MISTRAL.search(model) else "kimi" if _KIMI.search(model) else None
    if family is None:
        return messages
    out, renamed, number = [], {}, 0
    for message in messages:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            calls, renamed = [], {}
            for index, call in enumerate(message["tool_calls"]):
                name = (call.get("function") or {}).get("name", "")
                new = _shaped(family, str(call.get("id") or ""), name, index, number)
                renamed[call.get("id")] = new
                calls.append({**call, "id": new})
                number += 1
            message = {**message, "tool_calls": calls}
        elif message.get("role") == "tool" and message.get("tool_call_id") in renamed:
            message = {**message, "tool_call_id": renamed[message["tool_call_id"]]}
        out.append(message)
    return out


def _shaped(family: str, given: str, name: str, index: int, number: int) -> str:
    if family == "kimi":  # K2's template numbers the calls of a message from 0
        return given if _KIMI_ID.fullmatch(given) else f"functions.{name}:{index}"
    if _NINE.fullmatch(given):
        return given
    digest = int.from_bytes(hashlib.sha256(f"ayder-call-{number}".encode()).digest()[:8], "big")
    return "".join(_ALPHABET[(digest >> (6 * place)) % 62] for place in range(9))


def reasoning_of_this_turn(messages: list[dict[str, Any]],
                           user_wrote: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The reasoning kept with assistant messages, left only on those after the last message the user wrote."""
    last = max((i for i, message in enumerate(messages) if user_wrote(message)), default=-1)
    return [{k: v for k, v in message.items() if k != REASONING} if i < last and REASONING in message
            else message for i, message in enumerate(messages)]
