"""How ayder words things in every message it writes: a count with its noun, a long value in one short line."""

from __future__ import annotations

import json
from typing import Any


def counted(number: int, word: str, plural: str | None = None) -> str:
    """'1 message', '2 messages': a count with its noun in the right number."""
    return f"{number} {word if number == 1 else plural or word + 's'}"


def with_article(kind: str | None) -> str:
    """'an integer', 'a string': a JSON schema type as a noun in a sentence."""
    return f"an {kind}" if kind in ("integer", "object", "array") else f"a {kind}"


def short(value: Any, limit: int = 160) -> str:
    """A value cut to one short line (blanks folded, `…` where it was cut), for messages."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(names: tuple[str, ...] | list[str], word: str, limit: int = 10) -> str:
    """'no models', '1 model: a', '12 models: a, b, ... and 2 more': a bounded list with its count."""
    if not names:
        return f"no {word}s"
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"{counted(len(names), word)}: {', '.join(names[:limit])}{more}"


def byte_size(size: int) -> str:
    """812 B, 2.1 KB, 1.4 MB."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
