"""replace_string's mutation survivors, each killed by a test through the real tool: a text found
twice is refused wherever the copies are, one-line fragments forgiven inside a line, an exact edit
that starts or ends mid-line, and whitespace the edit did not mention kept as the file had it.

A survivor is a change to the code that no test noticed (`benchmarks/mutation.py edit`).
"""

from __future__ import annotations

import pytest
from support.tool_calls import call_tool

from ayder_cli.storage.undo import UndoJournal
from ayder_cli.tools import ToolContext
from ayder_cli.tools.edit import EDIT_TOOLS


@pytest.fixture
def context(root) -> ToolContext:
    return ToolContext(root, journal=UndoJournal())


def replace(context, **arguments):
    return call_tool(context, "replace_string", tools=EDIT_TOOLS, file_path="f.txt", **arguments)


TWICE = 'x = "a"\ny = 2\nx = "a"\n'


@pytest.mark.parametrize("old", [
    'x = "a"',                       # as written: refused before matching starts
    'x = "a"   ',                    # trailing spaces forgiven: then found twice
    '     1\tx = "a"',               # read_file's line number removed: then found twice
    'x = \\"a\\"',                   # escaped twice, read once: then found twice
])
def test_a_text_found_twice_once_forgiven_is_refused_naming_both_lines(context, root, old):
    (root / "f.txt").write_text(TWICE)
    result = replace(context, old_string=old, new_string="CHANGED")
    assert not result.ok
    assert "2 places (lines 1, 3)" in result.error or "2 times in f.txt (lines 1, 3)" in result.error
    assert (root / "f.txt").read_text() == TWICE


def test_a_fragment_with_one_space_lands_on_the_line_that_has_two(context, root):
    (root / "f.txt").write_text("def g():\n    return f(a,  b)\n")
    result = replace(context, old_string="a, b", new_string="b, a")
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == "def g():\n    return f(b, a)\n"
    assert "matched ignoring runs of spaces" in result.output


def test_three_dots_land_on_an_ellipsis_character_inside_a_line(context, root):
    (root / "f.txt").write_text('print("loading…")\nprint("done")\n')
    result = replace(context, old_string="loading...", new_string="loading, please wait")
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == 'print("loading, please wait")\nprint("done")\n'
    assert "matched reading lookalike characters" in result.output


def test_an_exact_multi_line_edit_may_start_and_end_mid_line(context, root):
    (root / "f.txt").write_text("def f(): return 1\n    x = 2  # keep\ny = 3\n")
    result = replace(context, old_string="return 1\n    x = 2", new_string="return 9\n    x = 8")
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == "def f(): return 9\n    x = 8  # keep\ny = 3\n"
    assert "matched" not in result.output  # as written: no forgiving step was needed


def test_an_exact_one_line_edit_keeps_the_lines_trailing_spaces(context, root):
    (root / "f.txt").write_text("a = 1   \nb = 2\t\n")
    result = replace(context, old_string="a = 1", new_string="a = 5")
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == "a = 5   \nb = 2\t\n"


def test_trailing_spaces_in_old_string_alone_are_forgiven_and_the_files_kept(context, root):
    (root / "f.txt").write_text("a = 1\nb = 2\n")
    result = replace(context, old_string="a = 1  ", new_string="a = 5")
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == "a = 5\nb = 2\n"
