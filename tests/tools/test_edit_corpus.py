"""The near-miss corpus through replace_string's plan: what lands, lands as meant; nothing lands
anywhere else; every miss shows the closest lines, numbered.

The corpus (tests/support/edit_corpus/) holds files in seven languages, the edits meant on them,
and old_string/new_string written the ways models get them wrong: line endings, trailing
whitespace, read_file's line numbers, indentation (dedented, deeper, spaces for tabs), runs of
spaces, blank lines, double escaping, lookalike characters; and traps that must be refused.
benchmarks/edit_match.py prints the same figures with timings.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from support.edit_corpus.cases import Case, all_cases, generated_cases

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.tools import ToolContext
from ayder_cli.tools.edit import plan_replace_string

CASES = all_cases()
NUMBERED_LINE = re.compile(r"^ +\d+\t", re.M)
FORGIVEN = ("line endings", "trailing whitespace", "line numbers", "indentation", "runs of spaces",
            "blank lines", "escaped twice", "lookalikes")
STEP_NAMES = ("matched ignoring", "matched reading", "removed the line numbers", "read \\n")
# Land cases that do not land today, by name: every other one must keep landing as meant.
KNOWN_MISSES: frozenset[str] = frozenset()


def run_case(root: Path, case: Case):
    """The case through replace_string's plan, what both its confirmation diff and its write use
    (the write itself, an fsync each, is tested once in test_e2e_forgiving_edit.py)."""
    path = root / Path(case.file_name).name
    path.write_bytes(case.text.encode("utf-8"))
    arguments = {"file_path": path.name, "old_string": case.old, "new_string": case.new}
    try:
        change = plan_replace_string(ToolContext(root), arguments)
    except ToolError as refused:
        return ToolResult(ok=False, error=str(refused)), case.text
    return ToolResult(ok=True, output=change.output), change.new


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    return [(case, *run_case(root, case)) for case in CASES]


def test_the_corpus_is_big_and_covers_every_category_and_language():
    assert len(CASES) >= 200
    categories = {case.category for case in CASES}
    for kind in FORGIVEN:
        assert sum(kind in category for category in categories) >= 1, kind
    assert sum(1 for case in CASES if case.lands) >= 200
    assert sum(1 for case in CASES if not case.lands) >= 50
    assert {Path(case.file_name).suffix for case in generated_cases()} >= {".py", ".ts", ".go", ".rs", ".yml",
                                                                           ".md", ".c"}
    assert {"trap: ambiguous", "trap: relative indentation changed", "trap: retyped"} <= categories


def test_every_generated_case_is_a_near_miss():
    assert all(case.old not in case.text for case in generated_cases())


def test_near_misses_land_as_meant_and_never_anywhere_else(outcomes):
    figures = Counter()
    wrong, missed = [], []
    for case, result, after in outcomes:
        if case.lands:
            figures["land cases"] += 1
            if result.ok and after == case.expected:
                figures["landed as meant"] += 1
            elif result.ok:
                wrong.append(case.name)
            elif case.name not in KNOWN_MISSES:
                missed.append(case.name)
        else:
            figures["refuse cases"] += 1
            if result.ok or after != case.text:
                wrong.append(case.name)
    print(f"\n{figures['landed as meant']} of {figures['land cases']} land cases landed as meant; "
          f"{figures['refuse cases']} refuse cases; {len(wrong)} landed anywhere else")
    assert wrong == []
    assert missed == [], "these landed before and no longer do"
    assert KNOWN_MISSES <= {case.name for case in CASES if case.lands}


def test_every_miss_shows_at_most_twenty_numbered_lines_and_every_refusal_its_places(outcomes):
    for case, result, after in outcomes:
        if result.ok:
            continue
        assert after == case.text, case.name
        if "matches" in result.error and "places (lines" in result.error:
            assert re.search(r"places \(lines \d+(, \d+)+", result.error), case.name
        else:
            numbered = NUMBERED_LINE.findall(result.error)
            assert 1 <= len(numbered) <= 20, (case.name, result.error)
            assert "the closest text is at line" in result.error


def test_a_forgiving_match_says_which_step_it_took(outcomes):
    for case, result, _ in outcomes:
        if result.ok and case.old not in case.text:
            assert any(name in result.output for name in STEP_NAMES), (case.name, result.output)


def test_every_forgiving_edit_of_a_python_file_that_compiled_still_compiles(outcomes):
    checked = broken = 0
    for case, result, after in outcomes:
        if not case.file_name.endswith(".py") or not result.ok or case.old in case.text or not _compiles(case.text):
            continue
        checked += 1
        broken += not _compiles(after)
    assert checked >= 60
    assert broken == 0


def _compiles(text: str) -> bool:
    try:
        compile(text, "<corpus>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True
