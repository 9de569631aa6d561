"""closest(): the name a user probably meant, by edit distance (for "did you mean ...?")."""

from __future__ import annotations

from collections.abc import Iterable


def edit_distance(first: str, second: str) -> int:
    """Insertions, deletions, substitutions and swaps of two neighbours, each counting one
    (the optimal string alignment distance: "modle" is one from "model")."""
    previous2: list[int] = []
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, 1):
        current = [i] + [0] * len(second)
        for j, b in enumerate(second, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b))
            if i > 1 and j > 1 and a == second[j - 2] and first[i - 2] == b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def closest(word: str, choices: Iterable[str], most: int = 2) -> str | None:
    """The choice fewest edits from `word` (at most `most`, and fewer than the word's length, so a
    short word is not "corrected" into anything); on a tie, one with the same first letter."""
    scored = []
    for choice in choices:
        distance = edit_distance(word.lower(), choice.lower())
        if distance <= most and distance < len(word):
            scored.append((distance, choice[:1].lower() != word[:1].lower(), choice))
    return min(scored)[2] if scored else None
