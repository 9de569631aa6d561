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


NUMBERS_REMOVED = "removed the line numbers copied from read_file's output (they are not in the file)"
INDENTED = ("matched ignoring indentation (the file indents this block with 1 tab where old_string has 4 spaces; "
            "new text re-indented)")
LOOKALIKES = "matched reading lookalike characters (curly quotes, dashes, non-breaking spaces) as plain ones"


@pytest.mark.parametrize("text, old, new, landed, how", [
    ("a = 1\nb = 2\n", "a = 1  ", "a = 5", "a = 5\nb = 2\n", "matched ignoring trailing whitespace"),
    # new_string's trailing spaces, the same as old_string's, are the model's too: the file has none
    ("a = 1\nb = 2\n", "a = 1  ", "a = 5  ", "a = 5\nb = 2\n", "matched ignoring trailing whitespace"),
    ("y = X\n", "y = X  ", "y = 5", "y = 5\n", "matched ignoring trailing whitespace"),
    ("a = 1\nb = 2\n", "a = 1  \nb = 2", "a = 5\nb = 2", "a = 5\nb = 2\n", "matched ignoring trailing whitespace"),
    ("a = 1\nb = 2\n", "a = 1  \n", "a = 5\n", "a = 5\nb = 2\n", "matched ignoring trailing whitespace"),
    # three lines starting and ending mid-line, after a line that holds the middle one too
    ("b = 2\na = 1\nb = 2\nc = 3\n", "= 1 \nb = 2 \nc", "= 9\nb = 8\nc", "b = 2\na = 9\nb = 8\nc = 3\n",
     "matched ignoring trailing whitespace"),
    ("a = 1\nb = 2\nc = 3\n", "= 1 \nb = 2 \nc", "= 9\nb = 8\nd", "a = 9\nb = 8\nd = 3\n",
     "matched ignoring trailing whitespace"),  # the last line, changed, is cut where old_string ends
    ("a = 1\nb = 2\n", "= 1  \n", "= 9\n", "a = 9\nb = 2\n", "matched ignoring trailing whitespace"),
    ("a = 1\nb = 2\nc = 3\n", "a = 1 \nb = 2\nc = 3 \n", "a = 1\nb = 2\nc = 9\n", "a = 1\nb = 2\nc = 9\n",
     "matched ignoring trailing whitespace"),
    # lines holding old_string's rarest word before and after the place
    ("total = 1 + 1\nif a:\n\ttotal = 1\ntotal = 1 + 2\n", "    total = 1\n", "    total = 2\n",
     "total = 1 + 1\nif a:\n\ttotal = 2\ntotal = 1 + 2\n", INDENTED),
    # the rarest line last: the lines before it found walking up, to the file's first line
    ("a = 1\nb = 2\ndef f():\n\ta = 1\n\tb = 2\n\tzz = 3\n", "    a = 1\n    b = 2\n    zz = 3\n",
     "    a = 1\n    b = 5\n    zz = 3\n", "a = 1\nb = 2\ndef f():\n\ta = 1\n\tb = 5\n\tzz = 3\n", INDENTED),
    ("\ta = 1\n\tzz = 3\na = 1\n", "    a = 1\n    zz = 3\n", "    a = 7\n    zz = 3\n", "\ta = 7\n\tzz = 3\na = 1\n",
     INDENTED),
    # blank lines at old_string's and new_string's edges that the file lacks are the model's: not written
    ("a = 0\nx = 1\nb = 2\n", "\n\nx = 1\n", "\n\nx = 2\n", "a = 0\nx = 2\nb = 2\n", "matched ignoring blank lines"),
    ("a = 0\nx = 1\nb = 2\n", "x = 1\n\n\n", "x = 2\n\n\n", "a = 0\nx = 2\nb = 2\n", "matched ignoring blank lines"),
    ("a = 0\nx = 1\nb = 2\n", "\nx = 1\n\n", "\nx = 2\n\n", "a = 0\nx = 2\nb = 2\n", "matched ignoring blank lines"),
    ("a = 1\r\nb = 2\r\n", "a = 1\nb = 2\n", "a = 5\nb = 2\n", "a = 5\r\nb = 2\r\n",
     "matched ignoring line endings (the file's are '\\r\\n'; new text written with them)"),
    # the last line, with no line break, of a CRLF file: the lines added get the file's endings
    ("def f():\r\n\tx = 1", "    x = 1", "    x = 1\n    y = 2", "def f():\r\n\tx = 1\r\n\ty = 2",
     "matched ignoring indentation (the file indents this block with 1 tab where old_string has 4 spaces; "
     "new text re-indented)"),
    ('print(“hi”)\n', 'print("hi")', 'print("bye")', 'print(“bye”)\n',
     LOOKALIKES + ' (the file has “ ” where old_string has "; new text uses the file\'s where old_string differed)'),
    ('print(“hi”)\n', '"hi"', '"bye"', 'print(“bye”)\n', LOOKALIKES),
    ('print("hi")\n', '“hi”', '“bye”', 'print("bye")\n', LOOKALIKES),  # the curly quotes are the model's
    ('print("…")\n', '"..."', '"!"', 'print("!")\n', LOOKALIKES),  # no letter or digit to look for
    ("f(X,  Y)\n", "X, Y", "Y, X", "f(Y, X)\n", "matched ignoring runs of spaces inside lines"),
    ("g(a, c)\nf(a,  b)\n", "a, b", "b, a", "g(a, c)\nf(b, a)\n", "matched ignoring runs of spaces inside lines"),
    ("def g():\n    return f(a,  b)\n", "a, b", " X ", "def g():\n    return f(X)\n",
     "matched ignoring runs of spaces inside lines"),
    ("a = 1\nb = 2\n", "     1\ta = 1", "     1\ta = 5", "a = 5\nb = 2\n", NUMBERS_REMOVED),
    ("def f():\n    a = 1\n    b = 2\n", "     2\t    a = 1\n     3\t    b = 2", "a = 5\nb = 6",
     "def f():\n    a = 5\n    b = 6\n", NUMBERS_REMOVED + "; new_string indented to where old_string stands"),
    ("def f():\n    a = 1\n    b = 2\n", "     2\t    a  =  1\n     3\t    b = 2\n",
     "     2\t    a = 5\n     3\t    b = 2\n",
     "def f():\n    a = 5\n    b = 2\n", NUMBERS_REMOVED + "; matched ignoring runs of spaces inside lines"),
    # read_file's line ending copied, new_string written without one: it ends alike
    ("def f():\n    a = 1\n    b = 2\n", "     2\t    a = 1\n", "a = 5", "def f():\n    a = 5\n    b = 2\n",
     NUMBERS_REMOVED + "; new_string indented to where old_string stands"),
    ("a = 1\nb = 2\n", "     1\ta = 1", "a = 5", "a = 5\nb = 2\n", NUMBERS_REMOVED),  # no indenting needed
    ("a = 1\nb = 2\n", "1  a = 1\n2  b = 2\n", "1  a = 5\n2  b = 2\n", "a = 5\nb = 2\n", NUMBERS_REMOVED),  # unpadded
    # the tab after the number pasted as spaces to column 8: the spaces past it are the line's indentation
    ("def f():\n    a = 1\n    b = 2\n", "     2      a = 1\n     3      b = 2\n",
     "     2      a = 5\n     3      b = 2\n",
     "def f():\n    a = 5\n    b = 2\n", NUMBERS_REMOVED),
])
def test_an_edit_lands_as_meant_and_the_result_names_each_step_that_forgave_it(context, root, text, old, new,
                                                                              landed, how):
    (root / "f.txt").write_bytes(text.encode())
    result = replace(context, old_string=old, new_string=new)
    assert result.ok, result.error
    assert (root / "f.txt").read_bytes().decode() == landed
    assert result.output.endswith(f"; {how} (the file's exact text is in the diff; read_file shows it)")


REFUSED = "old_string is not in f.txt as written; {how}, old_string matches {places}; " \
          "include more of the surrounding lines, copied exactly, to pick one"


@pytest.mark.parametrize("old, how", [
    ('x = "a"   ', "ignoring trailing whitespace"),
    ('     1\tx = "a"', NUMBERS_REMOVED),
    ('x = \\"a\\"', 'read \\n, \\t and \\" in old_string and new_string as escapes (they were escaped twice)'),
])
def test_a_refusal_says_which_step_found_the_copies(context, root, old, how):
    (root / "f.txt").write_text(TWICE)
    result = replace(context, old_string=old, new_string="CHANGED")
    assert result.error == REFUSED.format(how=how, places="2 places (lines 1, 3)")


@pytest.mark.parametrize("copies, places", [
    (3, "3 places (lines 1, 2, 3)"),
    (8, "8 places (lines 1, 2, 3, 4, 5, 6, 7, 8)"),
    (9, "9 places (lines 1, 2, 3, 4, 5, 6, 7, 8, ...)"),
    (60, "50 places (lines 1, 2, 3, 4, 5, 6, 7, 8, ...)"),  # counting stops at 50
])
def test_every_copy_is_counted_and_the_first_eight_lines_named(context, root, copies, places):
    (root / "f.txt").write_text('x = "a"\n' * copies)
    result = replace(context, old_string='x = "a"   ', new_string="CHANGED")
    assert result.error == REFUSED.format(how="ignoring trailing whitespace", places=places)
    assert (root / "f.txt").read_text() == 'x = "a"\n' * copies


def test_a_fragment_found_three_times_in_one_line_is_refused(context, root):
    (root / "f.txt").write_text("f(a,  b) + f(a,  b) + f(a,  b)\n")
    result = replace(context, old_string="a, b", new_string="b, a")
    assert result.error == REFUSED.format(how="ignoring runs of spaces inside lines", places="3 places (lines 1)")
    assert (root / "f.txt").read_text() == "f(a,  b) + f(a,  b) + f(a,  b)\n"


@pytest.mark.parametrize("text, old", [
    ("x = wait…\n", "wait.."),  # two of the ellipsis' three dots, at the line's end
    ("x…b\n", ".b"),  # its last dot
    ("…b = 1\n", "..b"),  # its last two, at the line's start
])
def test_dots_that_are_part_of_an_ellipsis_character_are_not_a_place(context, root, text, old):
    (root / "f.txt").write_text(text)
    result = replace(context, old_string=old, new_string="go")
    assert not result.ok and result.error.startswith("old_string not found in f.txt; the closest text is at line 1")
    assert (root / "f.txt").read_text() == text


@pytest.mark.parametrize("old", ["   ", "\t "])
def test_an_old_string_of_spaces_alone_is_not_found_anywhere(context, root, old):
    (root / "f.txt").write_text("x = 1\n")
    result = replace(context, old_string=old, new_string="y")
    assert not result.ok and result.error.startswith("old_string not found in f.txt; the closest text is at line 1")
    assert (root / "f.txt").read_text() == "x = 1\n"
