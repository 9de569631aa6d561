"""Brace expansion as bash does it before anything else: `{~,/tmp/x}` is `~` and `/tmp/x`, `{/,}` is `/`.

For the deny list to judge each word a brace pattern stands for. Only the comma form is
expanded (a sequence `{1..9}` names no home or root); `${...}` is a variable, not a brace.
"""

from __future__ import annotations

MAX_WORDS = 256  # `{a,b}{a,b}...` doubles per pair; past this the rest are not looked at
MAX_LENGTH = 4096  # a longer word is left as it is: finding its braces would cost more than it is worth


def expand_braces(word: str) -> list[str]:
    """The words the brace patterns in `word` stand for, in bash's order; [word] when it has none."""
    found = _first_pattern(word) if len(word) <= MAX_LENGTH else None
    if found is None:
        return [word]
    start, commas, end = found
    head, tail = word[:start], word[end + 1:]
    bounds = [start, *commas, end]
    words: list[str] = []
    for left, right in zip(bounds, bounds[1:]):
        words.extend(expand_braces(head + word[left + 1:right] + tail)[:MAX_WORDS - len(words)])
        if len(words) == MAX_WORDS:
            break
    return words


def _first_pattern(word: str) -> tuple[int, list[int], int] | None:
    """The first `{` with a comma at its own level and a matching `}`: its position, the commas', the `}`'s."""
    at = 0
    while at < len(word):
        if word[at] == "{" and not (at and word[at - 1] == "$"):
            found = _pattern_at(word, at)
            if found is not None:
                return found
        at += 1
    return None


def _pattern_at(word: str, start: int) -> tuple[int, list[int], int] | None:
    depth, commas = 0, []
    for at in range(start + 1, len(word)):
        char = word[at]
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "}":
            return (start, commas, at) if commas else None
        elif char == "," and not depth:
            commas.append(at)
    return None
