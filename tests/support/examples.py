"""How many examples a property test draws.

Counts are written as the full run draws them: CI runs the README's test command with the `full`
Hypothesis profile (`.ci/run` sets PYTEST_ADDOPTS=--hypothesis-profile=full). A run on your own
machine takes the `quick` profile (tests/conftest.py): a quarter of each count, at least a few, so
the suite stays short; Hypothesis's database replays a failure it found before, in either profile.

    @settings(max_examples=examples(300), deadline=None)
"""

from __future__ import annotations

from hypothesis import settings

FULL = 100  # Hypothesis's own default: the full profile's max_examples
LEAST = 5  # a quick run still draws this many, however small the full count


def examples(full: int) -> int:
    """`full` under the full profile; scaled by the loaded profile's share of FULL otherwise."""
    share = settings.default.max_examples / FULL
    return full if share >= 1 else max(LEAST, round(full * share))
