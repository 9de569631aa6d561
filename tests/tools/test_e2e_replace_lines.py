"""replace_lines end to end through the real ayder and the fake server (edit_format lines).

The model edits by the numbers read_file showed it: the edit lands, is asked for with its
diff on a terminal, and /undo takes it back; lines that changed on disk since they were read,
and lines never read, are refused with what the model needs for its next try.
"""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.pty_harness import finish

FILE = "".join(f"line {n}\n" for n in range(1, 8))


def call(name: str, call_id: str = "c1", **arguments) -> Reply:
    return Reply(text="", tool_calls=[{"name": name, "arguments": arguments, "id": call_id}])


def tool_results(fake) -> list[str]:
    """Every tool result the model was sent, in order, once each."""
    seen: list[str] = []
    for request in fake.chat_requests():
        results = [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]
        seen.extend(results[len(seen):])
    return seen


@pytest.fixture
def target(project):
    path = project / "a.txt"  # not Python: named .py, its edits would get ruff server's new errors too
    path.write_text(FILE, encoding="utf-8")
    return path


def test_an_edit_on_read_lines_lands_and_undo_restores_the_file(fake, run_ayder, target):
    fake.queue(call("read_file", file_path="a.txt", start_line=2, end_line=4),
               call("replace_lines", "c2", file_path="a.txt", start_line=3, end_line=3, content="three\nand a half\n"),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "lines", "-w",
                       input="rename line 3\n/undo\n")
    assert result.returncode == 0, result.stderr
    read, edited = tool_results(fake)
    assert "     3\tline 3" in read
    assert edited == "ok:\nreplaced lines 3-3 with 2 lines in a.txt; lines after it moved by +1; it now has 8 lines"
    assert "restored a.txt (replace_lines)" in result.stderr
    assert target.read_text() == FILE  # /undo took it back


def test_without_w_the_terminal_shows_the_diff_and_asks(fake, ayder_on_pty, target):
    pytest.importorskip("pexpect")
    fake.queue(call("read_file", file_path="a.txt"),
               call("replace_lines", "c2", file_path="a.txt", start_line=2, end_line=2, content="TWO"),
               Reply(text="Final answer."))
    child = ayder_on_pty("--base-url", fake.url, "--edit-format", "lines", "edit it", color=False)
    child.expect_exact('ayder wants to write: replace_lines(file_path="a.txt"')
    child.expect_exact("--- a/a.txt\r\n+++ b/a.txt\r\n@@ -1,5 +1,5 @@\r\n line 1\r\n-line 2\r\n+TWO\r\n line 3\r\n")
    child.expect_exact("[y/N/a/d]")
    assert target.read_text() == FILE  # nothing written before the answer
    child.send("y")
    child.expect_exact("Final answer.")
    assert finish(child) == 0
    assert target.read_text() == FILE.replace("line 2\n", "TWO\n")


def test_lines_changed_on_disk_since_they_were_read_are_refused_with_the_lines_as_they_are_now(
        fake, run_ayder, target):
    # Another program changes the file between the read and the edit: a line is added above line 3.
    fake.queue(call("read_file", file_path="a.txt"),
               call("run_shell_command", "c2", command="sed -i '1i # added by someone else' a.txt"),
               call("replace_lines", "c3", file_path="a.txt", start_line=3, end_line=3, content="THREE"),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "lines", "-w", "-x", "edit line 3")
    assert result.returncode == 0, result.stderr
    refused = tool_results(fake)[2]
    assert refused.startswith("error: line 3 of a.txt changed since it was read")
    assert "     1\t# added by someone else\n     2\tline 1\n     3\tline 2\n     4\tline 3\n" in refused
    assert target.read_text() == "# added by someone else\n" + FILE  # the edit wrote nothing


def test_lines_never_read_are_refused_with_the_read_to_do_first(fake, run_ayder, target):
    fake.queue(call("replace_lines", file_path="a.txt", start_line=5, end_line=6, content=""), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "lines", "-w", "delete lines 5 and 6")
    assert result.returncode == 0, result.stderr
    [refused] = tool_results(fake)
    assert refused == ('error: lines 5-6 of a.txt were not read in this session; read them first: '
                       'read_file(file_path="a.txt", start_line=5, end_line=6)')
    assert target.read_text() == FILE
