"""Making a conversation fit the window the server serves: a request known not to fit is never sent.

Compaction (a summary of older turns) comes first; what this module does is
the last resort, for one message too big to fit at all (a huge file piped in,
an interrupted 60,000-word reply kept in history): its middle is cut out and
a marker says how much. The start and the end, where the request and the
conclusion usually are, stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CHARS_PER_ESTIMATED_TOKEN = 4  # conversation.estimate_tokens counts about four characters a token
MIN_KEPT_CHARS = 400  # of a cut message, at least this much of its start and of its end stays
MARKER = "\n\n[… {cut} characters cut from the middle of this message so the conversation fits the context window …]\n\n"


@dataclass(frozen=True)
class Budget:
    """How many prompt tokens a request may hold: the window, less room for the reply."""

    window: int  # tokens the server serves
    reply: int  # tokens kept free for the answer

    @classmethod
    def for_window(cls, window: int, max_tokens: int | None) -> "Budget":
        # The reply needs room too, but a max_tokens near the window must not leave no prompt at all.
        return cls(window, min(max_tokens or 1024, window // 4))

    @property
    def prompt(self) -> int:
        return self.window - self.reply


def shorten_middles(messages: list[dict[str, Any]], over_chars: int) -> list[str]:
    """Cut `over_chars` characters out of the middle of the longest messages, in place.

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
        text = _text(messages[index])
        marker_size = len(MARKER.format(cut=len(text)))
        can_cut = len(text) - 2 * MIN_KEPT_CHARS - marker_size
        if can_cut <= 0:
            continue
        cut = min(can_cut, over_chars + marker_size)
        keep = (len(text) - cut) // 2
        messages[index] = {**messages[index], "content": text[:keep] + MARKER.format(cut=cut) + text[keep + cut:]}
        over_chars -= cut - marker_size
        role = messages[index].get("role")
        notes.append(f"{cut} characters cut from the middle of {'an' if role == 'assistant' else 'a'} {role} message")
    return notes


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""
