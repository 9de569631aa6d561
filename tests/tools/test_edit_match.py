"""replace_string's forgiving match, one behaviour at a time: what is forgiven and how the result
says so, what never is, what a miss answers, and that the change is always the file's real text."""

from __future__ import annotations

import re

import pytest
from support.tool_calls import call_tool

from ayder_cli.storage.undo import UndoJournal
from ayder_cli.tools import ToolContext
from ayder_cli.tools.edit import EDIT_TOOLS, REPLACE_STRING

NUMBERED_LINE = re.compile(r"^ +\d+\t", re.M)


@pytest.fixture
def context(root) -> ToolContext:
    return ToolContext(root, journal=UndoJournal())


def replace(context, **arguments):
    return call_tool(context, "replace_string", tools=EDIT_TOOLS, file_path="f.txt", **arguments)


def test_replace_all_matches_the_exact_text_only(context, root):
    (root / "f.txt").write_text("def f():\n    x = 1\n    return x\n")
    result = replace(context, old_string="x = 1\nreturn x\n", new_string="x = 2\nreturn x\n", replace_all=True)
    assert not result.ok
    assert "replace_all matches the exact text only" in result.error and "     2\t    x = 1" in result.error
    result = replace(context, old_string="x = 1\nreturn x\n", new_string="x = 2\nreturn x\n")
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == "def f():\n    x = 2\n    return x\n"


@pytest.mark.parametrize("old", ["total = qty * price\n", "total = quantity * price * 12\n",
                                 "  total  =  quantity * Price\n", "total = quantity*price\n"])
def test_a_changed_word_number_or_spacing_between_words_is_never_close_enough(context, root, old):
    text = "def f(quantity, price):\n    total = quantity * price * 10\n    return total\n"
    (root / "f.txt").write_text(text)
    result = replace(context, old_string=old, new_string="total = 0\n")
    assert not result.ok and "not found" in result.error
    assert (root / "f.txt").read_text() == text


def test_the_result_names_the_step_and_the_files_indentation(context, root):
    (root / "f.txt").write_text("func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n")
    result = replace(context, old_string="    if ok {\n        run()\n    }\n",
                     new_string="    if ok {\n        run()\n        log()\n    }\n")
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == "func main() {\n\tif ok {\n\t\trun()\n\t\tlog()\n\t}\n}\n"
    assert ("matched ignoring indentation (the file indents this block with 1 tab where old_string has "
            "4 spaces; new text re-indented)") in result.output


def test_forgiving_steps_add_up_line_endings_and_indentation(context, root):
    (root / "f.txt").write_bytes(b"class A:\r\n    def f(self):\r\n        return 1\r\n")
    result = replace(context, old_string="def f(self):\n    return 1\n", new_string="def f(self):\n    return 2\n")
    assert result.ok, result.error
    assert (root / "f.txt").read_bytes() == b"class A:\r\n    def f(self):\r\n        return 2\r\n"


def test_lines_the_edit_does_not_change_keep_the_files_own_text(context, root):
    (root / "f.txt").write_text("a = 1   \nb = 2\n\nc = 3\n")
    result = replace(context, old_string="a = 1\nb = 2\nc = 3\n", new_string="a = 1\nb = 20\nc = 3\n")
    assert result.ok, result.error
    assert "matched ignoring blank lines" in result.output
    assert (root / "f.txt").read_text() == "a = 1   \nb = 20\n\nc = 3\n"


def test_code_escaped_twice_keeps_its_own_escapes(context, root):
    (root / "f.txt").write_text('int main(void) {\n    printf("hi\\n");\n}\n')
    result = replace(context, old_string='int main(void) {\\n    printf(\\"hi\\\\n\\");\\n',
                     new_string='int main(void) {\\n    printf(\\"bye\\\\n\\");\\n')
    assert result.ok, result.error
    assert (root / "f.txt").read_text() == 'int main(void) {\n    printf("bye\\n");\n}\n'
    assert "as escapes" in result.output


def test_a_number_at_the_start_of_one_line_is_not_taken_for_read_files(context, root):
    text = "apples\n3  apples\n"
    (root / "f.txt").write_text(text.replace("3  apples\n", ""))
    result = replace(context, old_string="3  apples", new_string="pears")
    assert not result.ok
    result = replace(context, old_string="     1\tapples", new_string="pears")
    assert result.ok and (root / "f.txt").read_text() == "pears\n"


def test_a_miss_in_a_ten_thousand_line_file_shows_the_closest_twenty_lines_at_most(context, root):
    lines = [f"def handler_{k}(request):\n    return respond(request, code={k})\n" for k in range(5000)]
    (root / "f.txt").write_text("".join(lines))
    result = replace(context, old_string="def handler_3751(request):\n    return respond(req, code=3751)\n",
                     new_string="x\n")
    assert not result.ok
    shown = NUMBERED_LINE.findall(result.error)
    assert 1 <= len(shown) <= 20
    assert "the closest text is at line 7503" in result.error
    assert "  7503\tdef handler_3751(request):\n  7504\t    return respond(request, code=3751)" in result.error


def test_the_preview_is_the_files_real_text_with_the_real_replacement(context, root):
    text = "if x:\n\tcall(a,  b)\n"
    (root / "f.txt").write_text(text)
    preview = REPLACE_STRING.preview(context, {"file_path": "f.txt", "old_string": "call(a, b)",
                                               "new_string": "call(a, c)"})
    assert preview.old == text and preview.new == "if x:\n\tcall(a, c)\n"
    assert (root / "f.txt").read_text() == text  # a preview writes nothing
