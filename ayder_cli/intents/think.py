"""The tags of thinking: what opens a think block, what closes it, and what may close one alone."""

from __future__ import annotations

import re

# Think blocks: opener -> closer, one row a family. Harmony's analysis channel is thinking too.
BLOCKS = {
    "<think>": "</think>",
    "<thinking>": "</thinking>",
    "<reasoning>": "</reasoning>",
    "<|channel|>analysis<|message|>": "<|end|>",
    "[THINK]": "[/THINK]",  # Mistral v13+ (Magistral, Ministral 3, Devstral 2): control tokens
    "<mm:think>": "</mm:think>",  # MiniMax M3
    "<seed:think>": "</seed:think>",  # Seed-OSS
    "<|channel>thought\n": "<channel|>", "<|channel>thought": "<channel|>",  # Gemma 4
    "<|open|>think<|sep|>": "<|close|>think<|sep|>",  # Kimi K3
}
# Openers a prompt template may write itself: its reply then starts thinking, and a closer with no
# opener before it at the start of a reply ends that block (the lone-closer rule).
PREFILLED = ("<think>", "<thinking>", "<reasoning>", "[THINK]", "<mm:think>", "<seed:think>", "<|channel>thought",
             "<|open|>think<|sep|>")


class Earliest:
    """re.search over some fixed strings, one pattern per first character: an alternation whose strings
    start with different characters loses the regex engine's fast scan for a common first one (20x slower)."""

    def __init__(self, strings: tuple[str, ...]) -> None:
        firsts = dict.fromkeys(string[0] for string in strings)
        self._patterns = [re.compile("|".join(re.escape(s) for s in strings if s[0] == first)) for first in firsts]

    def search(self, text: str, pos: int = 0) -> re.Match | None:
        found = [match for pattern in self._patterns if (match := pattern.search(text, pos))]
        return min(found, key=lambda match: match.start(), default=None)


LONE_CLOSER = Earliest(tuple(BLOCKS[opener] for opener in PREFILLED))
OPENER = Earliest(PREFILLED)
LONGEST_CLOSER = max(map(len, BLOCKS.values()))
TAGS = (*BLOCKS, *(BLOCKS[opener] for opener in PREFILLED))  # opening tags, and closing ones met in text
