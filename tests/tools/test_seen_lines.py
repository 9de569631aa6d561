"""SeenLines: what the model saw of each line, moved with ayder's own edits; replace_lines on top of it.

Unit tests of tools/seen_lines.py and of replace_lines through the tool's own run (the end-to-end
tests through the real ayder are in test_e2e_replace_lines.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tool_calls import call_tool

from ayder_cli.storage.undo import UndoJournal
from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.seen_lines import CUT, SeenLines, lines_of

PATH = Path("/project/a.py")
TEN = [f"line {n}" for n in range(1, 11)]


def text(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def test_lines_of_splits_as_read_file_numbers_them():
    assert lines_of("a\r\nb\n\nc") == ["a", "b", "", "c"]
    assert lines_of("") == [] and lines_of("\n") == [""]


def test_lines_never_read_are_refused_with_the_read_to_do_first():
    seen = SeenLines()
    refusal = seen.check(PATH, "a.py", TEN, 3, 4)
    assert refusal == ('lines 3-4 of a.py were not read in this session; read them first: '
                       'read_file(file_path="a.py", start_line=3, end_line=4)')
    seen.saw(PATH, 1, TEN[:3])
    assert "lines 4-4" in seen.check(PATH, "a.py", TEN, 3, 4)  # only the part not read is asked for
    assert seen.check(PATH, "a.py", TEN, 2, 3) is None


def test_a_line_changed_since_it_was_read_is_refused_with_the_lines_as_they_are_now():
    seen = SeenLines()
    seen.saw(PATH, 1, TEN)
    now = [*TEN[:4], "line 5 edited by the user", *TEN[5:]]
    refusal = seen.check(PATH, "a.py", now, 5, 5)
    assert refusal.startswith("line 5 of a.py changed since it was read")
    assert "     5\tline 5 edited by the user" in refusal and "     3\tline 3" in refusal
    assert seen.check(PATH, "a.py", now, 5, 5) is None  # what the refusal showed is seen now


def test_a_refusal_shows_at_most_twenty_lines():
    seen = SeenLines()
    old = [f"x{n}" for n in range(100)]
    seen.saw(PATH, 1, old)
    refusal = seen.check(PATH, "a.py", [f"y{n}" for n in range(100)], 1, 60)
    assert refusal.count("\n") == 20 and "Lines 1-20 as they are now" in refusal


def test_a_line_shown_cut_short_is_never_edited_blind():
    seen = SeenLines()
    seen.saw(PATH, 1, ["short", CUT])
    assert "changed since" in seen.check(PATH, "a.py", ["short", "y" * 5000], 2, 2)


def test_an_insertion_needs_the_lines_around_it():
    seen = SeenLines()
    seen.saw(PATH, 4, TEN[3:6])  # lines 4-6
    assert seen.check(PATH, "a.py", TEN, 5, 4) is None  # before line 5: lines 4 and 5 are known
    assert "lines 3-3" in seen.check(PATH, "a.py", TEN, 4, 3)
    seen.saw(PATH, 10, TEN[9:])
    assert seen.check(PATH, "a.py", TEN, 11, 10) is None  # appending after the last line read


def test_an_empty_file_read_may_be_written_into():
    seen = SeenLines()
    assert "was not read" in seen.check(PATH, "a.py", [], 1, 0)
    seen.saw(PATH, 1, [])
    assert seen.check(PATH, "a.py", [], 1, 0) is None


def test_an_edit_moves_what_was_seen_below_it():
    seen = SeenLines()
    seen.saw(PATH, 1, TEN)
    new = [*TEN[:1], "a", "b", "c", *TEN[2:]]  # line 2 became three lines
    seen.edited(PATH, text(TEN), text(new))
    assert seen.check(PATH, "a.py", new, 1, len(new)) is None
    assert seen.check(PATH, "a.py", new, 12, 12) is None  # the old line 10, now 12


def test_an_edit_does_not_make_unread_lines_seen():
    seen = SeenLines()
    seen.saw(PATH, 2, TEN[1:3])  # lines 2-3 only
    new = [*TEN[:2], "inserted", *TEN[2:]]
    seen.edited(PATH, text(TEN), text(new))
    assert seen.check(PATH, "a.py", new, 2, 4) is None
    assert "not read" in seen.check(PATH, "a.py", new, 5, 5)  # the old line 4: never read


def test_writing_the_whole_file_makes_every_line_seen_and_forget_ends_it():
    seen = SeenLines()
    seen.wrote(PATH, text(TEN))
    assert seen.check(PATH, "a.py", TEN, 1, 10) is None
    seen.forget()
    assert "not read" in seen.check(PATH, "a.py", TEN, 1, 1)


# --- replace_lines through its run


@pytest.fixture
def context(tmp_path) -> ToolContext:
    return ToolContext(tmp_path, journal=UndoJournal())


def test_consecutive_edits_by_number_land_where_the_model_means(context, tmp_path):
    (tmp_path / "a.py").write_text(text(TEN))
    assert call_tool(context, "read_file", file_path="a.py").ok
    first = call_tool(context, "replace_lines", file_path="a.py", start_line=2, end_line=2, content="a\nb\nc")
    assert first.ok and "lines after it moved by +2" in first.output, first
    # The model counts from the file as it is now: the old line 8 is line 10.
    second = call_tool(context, "replace_lines", file_path="a.py", start_line=10, end_line=10, content="EIGHT\n")
    assert second.ok, second
    assert (tmp_path / "a.py").read_text() == text(["line 1", "a", "b", "c", *TEN[2:7], "EIGHT", *TEN[8:]])


def test_insert_delete_and_append(context, tmp_path):
    (tmp_path / "a.py").write_text("one\r\ntwo\r\nthree")  # CRLF, no ending on the last line
    assert call_tool(context, "read_file", file_path="a.py").ok
    assert call_tool(context, "replace_lines", file_path="a.py", start_line=2, end_line=1, content="half").ok
    assert (tmp_path / "a.py").read_bytes() == b"one\r\nhalf\r\ntwo\r\nthree"
    assert call_tool(context, "replace_lines", file_path="a.py", start_line=1, end_line=2, content="").ok
    assert (tmp_path / "a.py").read_bytes() == b"two\r\nthree"
    assert call_tool(context, "replace_lines", file_path="a.py", start_line=3, end_line=2, content="four").ok
    assert (tmp_path / "a.py").read_bytes() == b"two\r\nthree\r\nfour"


def test_out_of_range_and_backwards_ranges_say_what_to_give(context, tmp_path):
    (tmp_path / "a.py").write_text(text(TEN[:3]))
    past = call_tool(context, "replace_lines", file_path="a.py", start_line=5, end_line=6, content="x")
    assert not past.ok and "a.py has 3 lines; start_line=4, end_line=3 appends" in past.error
    backwards = call_tool(context, "replace_lines", file_path="a.py", start_line=3, end_line=1, content="x")
    assert not backwards.ok and "end_line = start_line - 1 inserts" in backwards.error
