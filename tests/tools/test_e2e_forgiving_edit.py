"""A near-miss replace_string through the real ayder: it lands where meant, the result names the
step, the confirmation diff shows the file's real text, and /undo puts the file back."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.pty_harness import expect_prompt, finish

SOURCE = '''class Cart:
    def total(self):
        subtotal = sum(self.prices)
        return subtotal * 1.2
'''
EDITED = SOURCE.replace("        return subtotal * 1.2\n", "        tax = subtotal * 0.2\n        return subtotal + tax\n")
# The model dropped the method's indentation, as small models do when they retype a block.
NEAR_MISS = {"file_path": "cart.py",
             "old_string": "subtotal = sum(self.prices)\nreturn subtotal * 1.2\n",
             "new_string": "subtotal = sum(self.prices)\ntax = subtotal * 0.2\nreturn subtotal + tax\n"}
FINAL = "Changed the total."


def tool_results(fake, request: int = 1) -> list[str]:
    return [m["content"] for m in fake.chat_requests()[request]["body"]["messages"] if m["role"] == "tool"]


def test_a_dedented_block_lands_re_indented_and_the_result_names_the_step(fake, run_ayder, project):
    (project / "cart.py").write_text(SOURCE)
    fake.queue(Reply(text="", tool_calls=[{"name": "replace_string", "arguments": NEAR_MISS}]), Reply(text=FINAL))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "add the tax as its own line")
    assert result.returncode == 0, result.stderr
    assert (project / "cart.py").read_text() == EDITED
    [answer] = tool_results(fake)
    assert "replaced 1 occurrence in cart.py at line 3" in answer
    assert ("matched ignoring indentation (the file indents this block with 8 spaces where old_string has "
            "no indentation; new text re-indented)") in answer


def test_a_near_miss_then_undo_in_a_piped_session(fake, run_ayder, project):
    (project / "cart.py").write_text(SOURCE)
    fake.queue(Reply(text="", tool_calls=[{"name": "replace_string", "arguments": NEAR_MISS}]), Reply(text=FINAL))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="add the tax as its own line\n/undo\n")
    assert result.returncode == 0, result.stderr
    assert "matched ignoring indentation" in tool_results(fake)[0]
    assert "restored cart.py (replace_string)" in result.stderr
    assert (project / "cart.py").read_text() == SOURCE


def test_a_miss_answers_with_the_closest_lines_numbered_and_changes_nothing(fake, run_ayder, project):
    (project / "cart.py").write_text(SOURCE)
    retyped = dict(NEAR_MISS, old_string="subtotal = sum(self.items)\nreturn subtotal * 1.2\n")
    fake.queue(Reply(text="", tool_calls=[{"name": "replace_string", "arguments": retyped}]), Reply(text=FINAL))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "add the tax")
    assert result.returncode == 0, result.stderr
    assert (project / "cart.py").read_text() == SOURCE
    [answer] = tool_results(fake)
    assert "old_string not found in cart.py" in answer and "the closest text is at line 3" in answer
    assert "     3\t        subtotal = sum(self.prices)\n     4\t        return subtotal * 1.2" in answer


def test_two_places_are_refused_with_their_lines(fake, run_ayder, project):
    twice = SOURCE + "\n\nclass Basket:\n    def total(self):\n        subtotal = sum(self.prices)\n" \
                     "        return subtotal * 1.2\n"
    (project / "cart.py").write_text(twice)
    fake.queue(Reply(text="", tool_calls=[{"name": "replace_string", "arguments": NEAR_MISS}]), Reply(text=FINAL))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "add the tax")
    assert result.returncode == 0, result.stderr
    assert (project / "cart.py").read_text() == twice
    [answer] = tool_results(fake)
    assert "old_string is not in cart.py as written; ignoring indentation, old_string matches 2 places (lines 3, 9)" in answer


pexpect = pytest.importorskip("pexpect")


def test_the_confirmation_diff_shows_the_real_text_and_undo_restores_it(fake, ayder_on_pty, project):
    """Without -w, on a terminal: the diff is the file's own lines with the re-indented new text;
    yes writes it, /undo in the same REPL puts the file back."""
    (project / "cart.py").write_text(SOURCE)
    fake.queue(Reply(text="", tool_calls=[{"name": "replace_string", "arguments": NEAR_MISS, "id": "call_1"}]),
               Reply(text=FINAL))
    child = ayder_on_pty("--base-url", fake.url, color=False)
    expect_prompt(child)
    child.sendline("add the tax as its own line")
    child.expect_exact("ayder wants to write: replace_string(")
    child.expect_exact("-        return subtotal * 1.2\r\n+        tax = subtotal * 0.2\r\n"
                       "+        return subtotal + tax\r\n")
    child.expect_exact("[y/N/a/d]")
    assert (project / "cart.py").read_text() == SOURCE
    child.send("y")
    child.expect_exact(FINAL)
    expect_prompt(child)
    assert (project / "cart.py").read_text() == EDITED
    child.sendline("/undo")
    child.expect_exact("restored cart.py (replace_string)")
    expect_prompt(child)
    assert (project / "cart.py").read_text() == SOURCE
    child.sendline("/exit")
    assert finish(child) == 0
    assert "matched ignoring indentation" in tool_results(fake)[0]
