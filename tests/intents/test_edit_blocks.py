"""Edits written as text: SEARCH/REPLACE blocks and whole-file fences read from a reply, as parse() and the
live view see them (intents/dialects/edit_blocks.py)."""

from __future__ import annotations

import pytest

from ayder_cli.intents import StreamFilter, parse
from ayder_cli.intents.dialects.edit_blocks import NO_PATH

BLOCK = "<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE"
CALL = ("replace_string", {"file_path": "src/app.py", "old_string": "    return 1", "new_string": "    return 2"})


def calls(text: str, **options) -> list[tuple[str, dict]]:
    reply = parse(text, **options)
    assert reply.errors == [], reply.errors
    return [(c.name, c.arguments) for c in reply.calls]


def streamed(text: str, **options) -> str:
    """The live view, fed one character at a time."""
    flt = StreamFilter(think_open=False, **options)
    pieces = [pair for char in text for pair in flt.feed(char)] + flt.finish()
    return "".join(t for k, t in pieces if k == "text")


def shows(text: str, **options) -> str:
    display = parse(text, think_open=False, **options).display
    assert streamed(text, **options) == display
    return display


@pytest.mark.parametrize("text", [
    f"src/app.py\n{BLOCK}",
    f"src/app.py\n```python\n{BLOCK}\n```",
    f"```python src/app.py\n{BLOCK}\n```",
    f"```python\nsrc/app.py\n{BLOCK}\n```",
    f"**src/app.py**\n```\n{BLOCK}\n```",
    f"`src/app.py`\n{BLOCK}",
    f"### src/app.py\n{BLOCK}",
    f"src/app.py:\n~~~\n{BLOCK}".replace("~~~\n", "```\n") + "\n```",
])
def test_a_block_fenced_or_not_under_any_path_form_is_one_replace_string(text):
    reply_text = f"I will change it.\n\n{text}\n\nThat is all."
    assert calls(reply_text) == [CALL]
    display = shows(reply_text)
    assert display.startswith("I will change it.") and display.endswith("That is all.")
    assert "<<<<<<<" not in display and ">>>>>>>" not in display and "=======" not in display
    assert "```" not in display


def test_the_path_line_before_a_block_stays_as_its_caption():
    assert shows(f"Now:\nsrc/app.py\n```python\n{BLOCK}\n```\n\nDone.") == "Now:\nsrc/app.py\n\nDone."


def test_several_blocks_one_path_each_or_following_one_another():
    text = (f"src/app.py\n{BLOCK}\n\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"
            "And the test:\n\ntests/test_app.py\n```python\n<<<<<<< SEARCH\nassert f() == 1\n=======\n"
            "assert f() == 2\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nimport os\n=======\n>>>>>>> REPLACE\n```\n")
    assert calls(text) == [
        CALL,
        ("replace_string", {"file_path": "src/app.py", "old_string": "x = 1", "new_string": "x = 2"}),
        ("replace_string", {"file_path": "tests/test_app.py", "old_string": "assert f() == 1",
                            "new_string": "assert f() == 2"}),
        # an empty REPLACE part removes the lines, line breaks and all
        ("replace_string", {"file_path": "tests/test_app.py", "old_string": "import os\n", "new_string": ""}),
    ]
    assert shows(text) == "src/app.py\n\nAnd the test:\n\ntests/test_app.py"


def test_an_empty_search_part_is_a_new_file():
    text = "src/new.py\n<<<<<<< SEARCH\n=======\ndef f():\n    pass\n>>>>>>> REPLACE\n"
    assert calls(text) == [("replace_string", {"file_path": "src/new.py", "old_string": "",
                                               "new_string": "def f():\n    pass\n"})]


def test_a_reply_with_crlf_line_ends_gives_the_same_edit():
    assert calls(f"src/app.py\r\n```python\r\n{BLOCK}\r\n```\r\n".replace("\n", "\r\n").replace("\r\r", "\r")) == [CALL]


def test_a_block_without_a_path_is_not_applied_and_the_model_is_told():
    for text in (f"Here it is:\n\n{BLOCK}\nok", f"```\n{BLOCK}\n```"):
        reply = parse(text)
        assert reply.calls == []
        assert len(reply.errors) == 1 and reply.errors[0].startswith(NO_PATH)
        assert "<<<<<<<" not in reply.display


@pytest.mark.parametrize("cut", ["<<<<<<< SEARCH\n    return 1\n", "<<<<<<< SEARCH\n    return 1\n=======\n    ret"])
def test_a_block_cut_off_mid_stream_is_not_applied(cut):
    for hit_max_tokens in (False, True):
        reply = parse(f"src/app.py\n{cut}", hit_max_tokens=hit_max_tokens)
        assert reply.calls == []
        assert len(reply.errors) == 1 and "was not applied" in reply.errors[0]
    flt = StreamFilter(think_open=False)
    shown = "".join(t for k, t in flt.feed(f"src/app.py\n{cut}") if k == "text")
    assert "<<<<<<<" not in shown  # held while it streams: the block may yet end


@pytest.mark.parametrize("text", [
    "A merge conflict looks like this:\n\n```\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n```\n",
    "```python\nx = 1\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",  # not at the fence's start
    "Write `<<<<<<< SEARCH` on a line of its own.\n",
    "a.py\n<<<<<<< SEARCHING for it\n",
    "src/app.py\n```python\nprint('hello')\n```\n",  # an example under a path: the format is not `whole`
])
def test_markers_that_are_no_block_are_shown_as_written(text):
    reply = parse(text)
    assert reply.calls == [] and reply.errors == []
    assert shows(text) == text


def test_a_whole_file_under_its_path_is_written_in_the_whole_format():
    content = "def f():\n    return 2\n"
    for text in (f"**src/app.py**\n```python\n{content}```", f"```python src/app.py\n{content}```",
                 f"src/app.py\n```\n{content}```"):
        assert calls(f"The file:\n{text}\nDone.", whole_files=True) == [
            ("write_file", {"file_path": "src/app.py", "content": content})]
        assert shows(f"The file:\n{text}\nDone.", whole_files=True).endswith("Done.")
        assert "```" not in shows(f"The file:\n{text}\nDone.", whole_files=True)


@pytest.mark.parametrize("before", ["Example:", "", "Change", "run this", "1.5", "v2"])
def test_a_fence_under_a_line_that_is_no_file_path_stays_a_fence_in_the_whole_format(before):
    text = f"{before}\n```python\nprint(1)\n```\n"
    assert calls(text, whole_files=True) == []
    assert "```python\nprint(1)\n```" in shows(text, whole_files=True)


def test_a_whole_file_cut_off_at_max_tokens_is_not_written():
    reply = parse("src/app.py\n```python\ndef f():\n    ret", whole_files=True, hit_max_tokens=True)
    assert reply.calls == [] and "cut off" in reply.errors[0]


def test_search_replace_in_the_whole_format_is_still_a_replace():
    assert calls(f"src/app.py\n```python\n{BLOCK}\n```", whole_files=True) == [CALL]


@pytest.mark.parametrize("text", ["setup.py\n```bash\npython setup.py install\n```\n",
                                  "app.log\n```text\nstarted\n```\n", "```console app.py\n$ python app.py\n```\n"])
def test_a_command_or_output_fence_under_a_path_is_shown_in_the_whole_format(text):
    assert calls(text, whole_files=True) == []
    assert shows(text, whole_files=True) == text


def test_a_shell_script_under_its_path_is_written_in_the_whole_format():
    assert calls("deploy.sh\n```bash\necho hi\n```", whole_files=True) == [
        ("write_file", {"file_path": "deploy.sh", "content": "echo hi\n"})]


def test_blank_lines_may_stand_between_a_block_and_its_path_but_not_between_a_whole_file_and_its_path():
    assert calls(f"src/app.py\n\n{BLOCK}") == [CALL]
    assert calls(f"src/app.py\n\n```python\n{BLOCK}\n```") == [CALL]
    assert calls("src/app.py\n\n```python\nx = 1\n```", whole_files=True) == []
    reply = parse(f"src/app.py\nThe change:\n\n{BLOCK}")  # a line of prose between: not its path
    assert reply.calls == [] and reply.errors[0].startswith(NO_PATH)
