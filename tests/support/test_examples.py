"""The property tests' example counts: all of them in CI, a quarter on your own machine."""

from __future__ import annotations

from pathlib import Path

from hypothesis import settings
from support.examples import examples

REPO = Path(__file__).resolve().parents[2]


def test_the_full_profile_draws_every_example_written_and_the_quick_one_a_quarter():
    settings.register_profile("before-this-test", settings.default)
    try:
        settings.load_profile("full")
        assert examples(300) == 300
        assert examples(8) == 8
        settings.load_profile("quick")
        assert examples(300) == 75
        assert examples(40) == 10
        assert examples(8) == 5  # a quick run still draws a few
    finally:
        settings.load_profile("before-this-test")


def test_a_run_on_your_machine_is_quick_and_ci_asks_for_the_full_profile(request):
    # The README's test command (what a developer types) loads the quick profile; CI runs that same
    # command with the full one.
    asked = request.config.getoption("hypothesis_profile")
    assert settings.default.max_examples == {None: 25, "quick": 25, "full": 100}[asked]
    assert 'PYTEST_ADDOPTS="--hypothesis-profile=full"' in (REPO / ".ci" / "run").read_text()
