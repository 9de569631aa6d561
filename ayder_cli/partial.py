"""How much of the end of a text could be the start of a word: what a stream holds back until the
next piece says whether the word is there (a closing tag for the intent scanner, a secret for masking)."""

from __future__ import annotations

from typing import Iterable


def partial_at_end(text: str, words: Iterable[str]) -> int:
    """Length of the longest end of `text` that is a proper prefix of one of `words` (0: none)."""
    longest = 0
    for word in words:
        for size in range(min(len(word) - 1, len(text)), longest, -1):
            if text.endswith(word[:size]):
                longest = size
                break
    return longest
