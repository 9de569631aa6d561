"""Suggestions for a misspelt slash command or config key come from the edit distance."""

from __future__ import annotations

import pytest

from ayder_cli.repl.commands import COMMANDS
from ayder_cli.spelling import closest, edit_distance


@pytest.mark.parametrize("first, second, distance", [
    ("model", "model", 0), ("modle", "model", 1), ("mdoel", "model", 1), ("mode", "model", 1),
    ("modeel", "model", 1), ("mxdel", "model", 1), ("", "abc", 3), ("status", "stats", 1), ("ca", "abc", 3),
])
def test_edit_distance_counts_a_swap_of_neighbours_as_one(first, second, distance):
    assert edit_distance(first, second) == distance == edit_distance(second, first)


@pytest.mark.parametrize("typed, meant", [
    ("modle", "model"), ("stauts", "status"), ("hepl", "help"), ("sesions", "sessions"), ("ext", "exit"),
    ("UNDO", "undo"), ("usgae", "usage"),
])
def test_a_misspelt_command_gets_the_closest(typed, meant):
    assert closest(typed, COMMANDS) == meant


@pytest.mark.parametrize("typed", ["x", "zz", "completely-different", "deploy"])
def test_nothing_close_means_no_suggestion(typed):
    assert closest(typed, COMMANDS) is None


def test_a_tie_prefers_the_same_first_letter():
    assert closest("cat", ["bat", "cut"]) == "cut"


def test_the_real_run_suggests_the_closest_command(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/stauts\n")
    assert result.returncode == 1
    assert "unknown command /stauts; did you mean /status?" in result.stderr
