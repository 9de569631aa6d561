"""Edits written as text, through the real ayder and the fake server: a SEARCH/REPLACE block, and a whole
file under its path with edit_format "whole", pass the same pipeline as a native call (permission, the
confirmation diff, /undo), and none of their markup reaches stdout."""

from __future__ import annotations

import io

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.pty_harness import expect_prompt, finish
from support.requests_seen import activity_lines, messages

APP = "def total(items):\n    return sum(items)\n\n\ndef main():\n    print(total([1, 2]))\n"
FIXED = APP.replace("return sum(items)", "return sum(items, 0)")
BLOCK = "<<<<<<< SEARCH\n    return sum(items)\n=======\n    return sum(items, 0)\n>>>>>>> REPLACE"
EDIT_REPLY = f"I will make the start explicit.\n\nsrc/app.py\n```python\n{BLOCK}\n```\n\nThat should do it."
MARKUP = ("<<<<<<<", ">>>>>>>", "=======", "```")


@pytest.fixture
def app(project):
    path = project / "src" / "app.py"
    path.parent.mkdir()
    path.write_text(APP, encoding="utf-8")
    return path


def text_tools(project, **more) -> None:
    """Tools taught as text ([CALL] lines), as for a server without native tool calling."""
    write_json(project / ".ayder" / "config.json", {"native_tools": "off", **more})


def last_user_text(fake) -> str:
    return "\n".join(str(m.get("content")) for m in messages(fake.chat_requests()[-1])[-2:])


def test_a_search_replace_block_lands_with_w_and_stdout_holds_only_the_prose(fake, run_ayder, project, app,
                                                                               protocol):
    text_tools(project)
    fake.queue(Reply(text=EDIT_REPLY), Reply(text="Fixed."))
    result = run_ayder(*server_args(fake, protocol), "-w", "fix the sum")
    assert result.returncode == 0, result.stderr
    assert app.read_text() == FIXED
    assert result.stdout == "I will make the start explicit.\n\nsrc/app.py\n\nThat should do it.\nFixed.\n"
    assert not any(mark in result.stdout for mark in MARKUP)
    [line] = activity_lines(result.stderr)
    assert line.startswith('→ replace_string(file_path="src/app.py"') and "✓" in line
    assert "replaced 1 occurrence in src/app.py at line 2" in last_user_text(fake)


def test_without_w_the_diff_is_asked_on_the_terminal_and_undo_restores(fake, ayder_on_pty, project, app):
    text_tools(project)
    fake.queue(Reply(text=EDIT_REPLY), Reply(text="Fixed."))
    child = ayder_on_pty("--base-url", fake.url, color=False)
    child.logfile_read = seen = io.StringIO()  # all the terminal shows
    expect_prompt(child)
    child.sendline("fix the sum")
    child.expect_exact('ayder wants to write: replace_string(file_path="src/app.py"')
    child.expect_exact("-    return sum(items)\r\n+    return sum(items, 0)\r\n")
    child.expect_exact("[y/N/a/d]")
    assert app.read_text() == APP  # nothing written before the answer
    child.send("y")
    child.expect_exact("Fixed.")
    expect_prompt(child)
    assert app.read_text() == FIXED
    child.sendline("/undo")
    child.expect_exact("restored src/app.py (replace_string)")
    expect_prompt(child)
    assert app.read_text() == APP
    child.sendline("/exit")
    assert finish(child) == 0
    shown = seen.getvalue()
    assert "I will make the start explicit." in shown and "That should do it." in shown
    assert not any(mark in shown for mark in ("<<<<<<<", ">>>>>>>", "=======", "```"))


def test_a_whole_file_under_its_path_is_written_with_edit_format_whole(fake, run_ayder, project, app):
    text_tools(project, edit_format="whole")
    reply = f"Here is the whole file.\n\n**src/app.py**\n```python\n{FIXED}```\n\nDone."
    fake.queue(Reply(text=reply), Reply(text="Written."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "fix the sum")
    assert result.returncode == 0, result.stderr
    assert app.read_text() == FIXED
    assert result.stdout == "Here is the whole file.\n\n**src/app.py**\n\nDone.\nWritten.\n"
    assert activity_lines(result.stderr)[0].startswith('→ write_file(file_path="src/app.py"')


def test_a_whole_file_without_w_is_asked_with_its_diff_and_undo_restores(fake, ayder_on_pty, project, app):
    text_tools(project, edit_format="whole")
    reply = f"Here is the whole file.\n\nsrc/app.py\n```python\n{FIXED}```\n"
    fake.queue(Reply(text=reply), Reply(text="Written."))
    child = ayder_on_pty("--base-url", fake.url, color=False)
    child.logfile_read = seen = io.StringIO()
    expect_prompt(child)
    child.sendline("fix the sum")
    child.expect_exact('ayder wants to write: write_file(file_path="src/app.py"')
    child.expect_exact("-    return sum(items)\r\n+    return sum(items, 0)\r\n")
    child.expect_exact("[y/N/a/d]")
    assert app.read_text() == APP  # nothing written before the answer
    child.send("y")
    child.expect_exact("Written.")
    expect_prompt(child)
    assert app.read_text() == FIXED
    child.sendline("/undo")
    child.expect_exact("restored src/app.py (write_file)")
    expect_prompt(child)
    assert app.read_text() == APP
    child.sendline("/exit")
    assert finish(child) == 0
    assert "```" not in seen.getvalue()  # the fence of the edit never reaches the terminal


def test_without_the_whole_format_a_fence_under_a_path_is_only_shown(fake, run_ayder, project, app):
    text_tools(project)
    reply = f"It could read:\n\nsrc/app.py\n```python\n{FIXED}```\n"
    fake.queue(Reply(text=reply))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "how would it look?")
    assert result.returncode == 0, result.stderr
    assert app.read_text() == APP
    assert result.stdout == reply
    assert activity_lines(result.stderr) == []


def test_a_block_without_its_path_is_not_applied_and_the_model_is_told(fake, run_ayder, project, app):
    text_tools(project)
    fake.queue(Reply(text=f"Change:\n\n{BLOCK}\n"), Reply(text="Sorry."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "fix the sum")
    assert result.returncode == 0, result.stderr
    assert app.read_text() == APP
    assert "<<<<<<<" not in result.stdout
    assert "a SEARCH/REPLACE block needs the file path on the line before it" in last_user_text(fake)


def test_an_empty_search_part_creates_a_new_file_and_refuses_an_existing_one(fake, run_ayder, project, app):
    text_tools(project)
    new = "src/util.py\n<<<<<<< SEARCH\n=======\nHALF = 0.5\n>>>>>>> REPLACE\n"
    existing = "src/app.py\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n"
    fake.queue(Reply(text=new + "\n" + existing), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "add a util")
    assert result.returncode == 0, result.stderr
    assert (project / "src" / "util.py").read_text() == "HALF = 0.5\n"
    assert app.read_text() == APP
    assert "src/app.py exists" in last_user_text(fake)


def test_a_block_written_by_a_model_with_native_tools_is_applied_too(fake, run_ayder, project, app):
    fake.queue(Reply(text=EDIT_REPLY), Reply(text="Fixed."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "fix the sum")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"].get("tools")  # the tools went natively
    assert app.read_text() == FIXED
    assert not any(mark in result.stdout for mark in MARKUP)


def test_blocks_beside_native_tool_calls_are_not_applied_and_the_model_is_told(fake, run_ayder, project, app):
    call = {"name": "read_file", "arguments": {"file_path": "src/app.py"}, "id": "call_r"}
    fake.queue(Reply(text=EDIT_REPLY, tool_calls=[call]), Reply(text="Read it."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "fix the sum")
    assert result.returncode == 0, result.stderr
    assert app.read_text() == APP  # only the native call ran
    assert [line.split("(")[0] for line in activity_lines(result.stderr)] == ["→ read_file"]
    assert "not applied: 1 SEARCH/REPLACE block in the reply's text" in last_user_text(fake)


def test_with_the_search_replace_format_a_block_lands_though_no_replace_string_schema_is_sent(fake, run_ayder,
                                                                                            project, app):
    fake.queue(Reply(text=EDIT_REPLY), Reply(text="Fixed."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "search-replace", "-w", "fix the sum")
    assert result.returncode == 0, result.stderr
    first = fake.chat_requests()[0]["body"]
    assert "replace_string" not in [tool["function"]["name"] for tool in first.get("tools") or []]
    assert "<<<<<<< SEARCH" in messages(fake.chat_requests()[0])[0]["content"]  # taught in the system prompt
    assert app.read_text() == FIXED
    assert not any(mark in result.stdout for mark in MARKUP)


def test_auto_picking_whole_for_the_model_makes_a_fence_under_a_path_a_write(fake, run_ayder, project, app):
    reply = f"**src/app.py**\n```python\n{FIXED}```\n"
    fake.queue(Reply(text=reply), Reply(text="Written."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "auto", "-m", "qwen2.5-coder:7b", "-w",
                       "fix the sum")
    assert result.returncode == 0, result.stderr
    assert app.read_text() == FIXED
    assert result.stdout == "**src/app.py**\nWritten.\n"
