"""A count with its noun in the right number, for every message ayder writes."""

from __future__ import annotations


def counted(number: int, word: str, plural: str | None = None) -> str:
    """'1 message', '2 messages': a count with its noun in the right number."""
    return f"{number} {word if number == 1 else plural or word + 's'}"
