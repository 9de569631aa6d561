"""Forgiving replace_string edits that used to land wrong, through the real ayder against the fake
server on real files: a blank line at the edge of both strings that the file lacks is not written,
new_string after read_file's line numbers is indented where old_string stands (the blank line after
it kept), and a forgiving match that would break a Python file is refused, the file unchanged."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import numbered, of_role

SOURCE = '''class Cart:
    def total(self):
        return sum(self.prices)

    def count(self):
        return len(self.prices)
'''


def edit(fake, run_ayder, old: str, new: str):
    fake.queue(Reply.calling("replace_string", {"file_path": "cart.py", "old_string": old, "new_string": new}),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "change it")
    assert result.returncode == 0, result.stderr
    [answer] = of_role(fake.chat_requests()[-1], "tool")
    return answer["content"]


@pytest.mark.parametrize("before, after", [("\n", "\n"), ("", "\n"), ("\n", "\n\n")],
                         ids=["both", "after", "two after"])
def test_a_blank_line_the_file_lacks_at_the_edge_of_both_strings_is_not_written(fake, run_ayder, project,
                                                                                  before, after):
    (project / "cart.py").write_text(SOURCE)  # nothing follows count(): the file has no blank line there
    old = before + "    def count(self):\n        return len(self.prices)\n" + after
    new = before + "    def count(self):\n        return len(self.prices or ())\n" + after
    answer = edit(fake, run_ayder, old, new)
    assert "replaced 1 occurrence" in answer
    assert (project / "cart.py").read_text() == SOURCE.replace("len(self.prices)", "len(self.prices or ())")


def test_new_string_without_indentation_after_line_numbers_lands_indented_and_keeps_the_blank_line(
        fake, run_ayder, project):
    (project / "cart.py").write_text(SOURCE)
    copied = "\n".join(numbered(SOURCE)[1:4])  # lines 2 to 4 as read_file showed them, the blank one too
    answer = edit(fake, run_ayder, copied, "def total(self):\n    return round(sum(self.prices), 2)\n")
    assert "new_string indented to where old_string stands" in answer
    text = (project / "cart.py").read_text()
    assert text == SOURCE.replace("return sum(self.prices)", "return round(sum(self.prices), 2)")
    compile(text, "cart.py", "exec")


def test_a_forgiving_match_that_would_break_a_python_file_is_refused_and_changes_nothing(fake, run_ayder, project):
    (project / "cart.py").write_text(SOURCE)
    # old_string dedented (the indentation step finds it); new_string's second line is indented oddly
    answer = edit(fake, run_ayder, "def count(self):\n    return len(self.prices)\n",
                  "def count(self):\n    n = len(self.prices)\n        return n\n")
    assert answer.startswith("error: old_string was found only forgiving (matched ignoring indentation")
    assert "cart.py would then no longer compile (unexpected indent at line 7)" in answer
    assert (project / "cart.py").read_text() == SOURCE
