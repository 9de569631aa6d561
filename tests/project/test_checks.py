"""The mypy ratchet (.ci/mypy_ratchet.py): a package's error count may go down, never up; a
package it has no count for is held at none. mypy itself runs from .ci/run, not here (a cold run
takes 11 to 24 s on two shared cores); these tests hold the counting and the comparison."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("mypy_ratchet", REPO / ".ci" / "mypy_ratchet.py")
ratchet = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ratchet)

# mypy's own lines: errors with and without a column, a note (not counted), the summary.
OUTPUT = """\
ayder_cli/tools/files.py:42: error: Need type annotation for "commas"  [var-annotated]
ayder_cli/tools/shell.py:100:12: error: Argument 1 to "get" of "dict" has incompatible type  [arg-type]
ayder_cli/intents/dialects/harmony.py:7: error: Incompatible return value type  [return-value]
ayder_cli/intents/dialects/harmony.py:7: note: Revealed type is "builtins.str"
ayder_cli/cli.py:3: error: Name "x" is not defined  [name-defined]
Found 4 errors in 4 files (checked 221 source files)
"""


def test_errors_are_counted_per_package_with_subpackages_in_their_top_package():
    assert ratchet.count_errors(OUTPUT) == {"tools": 2, "intents": 1, "ayder_cli": 1}


def test_an_absolute_path_counts_as_its_package_too():
    line = f"{REPO / 'ayder_cli' / 'llm' / 'ollama.py'}:1: error: Bad  [misc]\n"
    assert ratchet.count_errors(line) == {"llm": 1}


def test_a_count_above_the_baseline_fails_and_one_below_is_reported():
    worse, better = ratchet.compare(ratchet.count_errors(OUTPUT), {"tools": 1, "intents": 3, "ayder_cli": 1})
    assert worse == ["tools: mypy errors up from 1 to 2"]
    assert better == ["intents: mypy errors down from 3 to 1"]


def test_a_package_at_zero_or_missing_from_the_baseline_stays_at_zero():
    worse, _ = ratchet.compare(ratchet.count_errors(OUTPUT), {"tools": 2, "intents": 1, "ayder_cli": 0})
    assert worse == ["ayder_cli: mypy errors up from 0 to 1"]
    worse, _ = ratchet.compare(ratchet.count_errors(OUTPUT), {"tools": 2, "ayder_cli": 1})
    assert worse == ["intents: mypy errors up from 0 to 1"]

