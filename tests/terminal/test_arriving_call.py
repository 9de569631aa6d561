"""A native tool call names itself while its arguments stream (issue 23, item 3): on a terminal one
line on stderr grows (`→ write_file src/app.py …  1.5 KB`) and the activity line replaces it once the
call is whole; a pipe, a log and --json get only the activity line."""

from __future__ import annotations

import io
import json
import re
import threading

import pytest

from ayder_cli.agent.arriving import TAIL_CHARS, ArrivingCalls
from ayder_cli.llm.wire_types import ToolCallFragment
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.pty_harness import finish

pytest.importorskip("pexpect")

CONTENT = "x" * 3000
ARGUMENTS = {"file_path": "src/app.py", "content": CONTENT}


def held_call(release: threading.Event) -> Reply:
    """A line of text, then write_file in four fragments; the server waits after the text (five
    deltas), the name, the path and half the content."""
    return Reply(text="Writing the file.", tool_calls=[{"name": "write_file", "arguments": ARGUMENTS}],
                 argument_pieces=4, hold_after=7, release=release)


def test_the_call_shows_its_name_path_and_size_while_it_streams(fake, ayder_on_pty, project):
    release = threading.Event()
    fake.queue(held_call(release), Reply(text="done"))
    child = ayder_on_pty("-p", "openai", "--base-url", fake.openai_url, "-w", "--no-color", "write it",
                         term="xterm")
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect_exact("\r\x1b[K→ write_file src/app.py …  1.5 KB")
        assert "write_file(" not in seen.getvalue()  # the call is not whole yet: no activity line
        release.set()
        child.expect_exact("\r\x1b[K→ write_file(file_path=\"src/app.py\"")  # the activity line takes its place
        child.expect_exact("done")
        assert finish(child) == 0
    finally:
        release.set()
        child.close(force=True)
    shown = seen.getvalue()
    assert "Writing the file.\r\n" in shown  # the answer's line ended before the redrawn line began
    # One line redrawn in place as each fragment grows it, then taken off for the activity line.
    drawn = re.findall(r"\r\x1b\[K(→ write_file [^\r]*?)(?=\r)", shown)
    assert drawn[:4] == ["→ write_file src/app.py …  761 B", "→ write_file src/app.py …  1.5 KB",
                         "→ write_file src/app.py …  2.2 KB", "→ write_file src/app.py …  3.0 KB"]
    assert (project / "src" / "app.py").read_text() == CONTENT


def test_a_call_written_as_text_names_itself_too(fake, ayder_on_pty, project):
    release = threading.Event()
    line = "[CALL] write_file " + json.dumps(ARGUMENTS) + "\n"
    pieces = ["Writing it.\n", *(line[i : i + 800] for i in range(0, len(line), 800))]
    fake.queue(Reply(chunks=pieces, hold_after=3, release=release), Reply(text="done"))
    config = write_json(project / "text-calls.json", {"native_tools": "off"})
    child = ayder_on_pty("--base-url", fake.url, "-c", str(config), "-w", "--no-color", "write it", term="xterm")
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect_exact("\r\x1b[K→ write_file src/app.py …  1.6 KB")  # the [CALL] line so far
        assert "[CALL]" not in seen.getvalue()  # the markup itself is never shown
        release.set()
        child.expect_exact("\r\x1b[K→ write_file(file_path=\"src/app.py\"")
        child.expect_exact("done")
        assert finish(child) == 0
    finally:
        release.set()
        child.close(force=True)
    assert (project / "src" / "app.py").read_text() == CONTENT


def test_a_pipe_gets_only_the_activity_line(fake, run_ayder, protocol):
    fake.queue(Reply.calling("write_file", ARGUMENTS, argument_pieces=4), Reply(text="done"))
    result = run_ayder(*server_args(fake, protocol), "-w", "write it")
    assert result.returncode == 0, result.stderr
    assert "→ write_file(file_path=" in result.stderr
    assert "…  " not in result.stderr and "\r" not in result.stderr


def test_json_events_on_a_terminal_get_no_arriving_line(fake, ayder_on_pty):
    fake.queue(Reply.calling("write_file", ARGUMENTS, argument_pieces=4), Reply(text="done"))
    child = ayder_on_pty("-p", "openai", "--base-url", fake.openai_url, "-w", "--json", "write it", term="xterm")
    child.logfile_read = seen = io.StringIO()
    assert finish(child) == 0
    assert "→ write_file src/app.py …" not in seen.getvalue()
    events = [json.loads(line) for line in seen.getvalue().splitlines() if line.startswith("{")]
    assert [event["name"] for event in events if event["type"] == "tool_call"] == ["write_file"]


def test_a_path_split_across_fragments_is_read_once_whole_and_unescaped():
    calls = ArrivingCalls()
    text = json.dumps({"content": "y" * 5000, "file_path": 'dir/"q".py'})
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    call = calls.add([ToolCallFragment(index=0, name="write_file", arguments=pieces[0])])
    subjects = []
    for piece in pieces[1:]:
        call = calls.add([ToolCallFragment(index=0, arguments=piece)])
        subjects.append(call.subject)
        assert len(call._tail) <= TAIL_CHARS  # the work per fragment stays bounded however long the content
    assert subjects[-1] == 'dir/"q".py' and subjects.count("") == len(subjects) - 1
    assert call.name == "write_file" and call.size == len(text)
