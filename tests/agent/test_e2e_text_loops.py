"""Small models loop in text too (issue 23, item 4): a reply repeating a block is stopped and said
once; a max_tokens continuation that starts the answer again ends the continuing; an answer cut
short still ends its line on stdout."""

from __future__ import annotations

import json

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.requests_seen import sent_messages

BLOCK = ("The answer is the sum of the two numbers, which we compute by adding them together. "
         "This is a classic example of arithmetic that every student learns early on in school, "
         "and it shows how addition works for small whole numbers. ")


def test_a_reply_repeating_a_block_three_times_is_stopped_and_said_once(fake, run_ayder, protocol):
    pieces = [BLOCK[i : i + 10] for i in range(0, len(BLOCK), 10)]
    fake.queue(Reply(chunks=["Here it is. ", *pieces * 8]), Reply(text="next"))
    result = run_ayder(*server_args(fake, protocol), input="q\nagain\n")
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.split("\n", 1)[0], result.stdout.split("\n", 1)[1]
    assert first.startswith("Here it is. ") and 3 <= first.count(BLOCK) < 4  # stopped once it came a third time
    assert second == "next\n"
    said = [line for line in result.stderr.splitlines() if "repeat" in line]
    assert len(said) == 1 and f"{len(BLOCK)} characters" in said[0], result.stderr
    kept = sent_messages(fake.chat_requests()[1])[-2]
    assert kept["role"] == "assistant" and kept["content"].startswith("Here it is. ")
    assert kept["content"].count(BLOCK[20:120]) == 1 and len(kept["content"]) <= len("Here it is. " + BLOCK)


def test_a_short_or_varied_repeat_is_left_alone(fake, run_ayder):
    lines = "".join(f"- item {n}: the same words each time, but a new number on every line\n" for n in range(40))
    fake.queue(Reply(text="ok ok ok ok ok ok ok ok ok ok ok ok\n" + lines))
    result = run_ayder("--base-url", fake.url, "q")
    assert result.returncode == 0 and "repeat" not in result.stderr
    assert result.stdout.endswith("item 39: the same words each time, but a new number on every line\n")


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
def test_a_continuation_that_starts_the_answer_again_ends_the_continuing(fake, run_ayder, protocol, stream):
    cut = "2 + 2 = 4. This is a classic example of"
    fake.queue(*[Reply(text=cut, finish_reason="length") for _ in range(4)])
    result = run_ayder(*server_args(fake, protocol), "--max-tokens", "24", *([] if stream else ["--no-stream"]),
                       "what is 2+2")
    assert result.returncode == 0, result.stderr
    assert len(fake.chat_requests()) == 2  # the reply and the one continuation that started it again
    assert result.stdout == cut + "\n"  # the answer once: the continuation was stopped before it showed
    assert "started its answer again" in result.stderr
    assert "truncated" not in result.stderr  # one line says why the continuing ended


def test_a_continuation_that_goes_on_is_still_asked_for(fake, run_ayder):
    fake.queue(Reply(text="2 + 2 = 4. This is a classic", finish_reason="length"),
               Reply(text=" example of addition.", finish_reason="stop"))
    result = run_ayder("--base-url", fake.url, "what is 2+2")
    assert result.stdout == "2 + 2 = 4. This is a classic example of addition.\n"
    assert "again" not in result.stderr


def test_an_answer_cut_short_still_ends_its_line_in_a_piped_script(fake, run_ayder, protocol):
    fake.queue(*[Reply(text=f"part {n}, sum of two", finish_reason="length") for n in range(4)], Reply(text="Red"))
    result = run_ayder(*server_args(fake, protocol), input="add them\nname a colour\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("part 3, sum of two\nRed\n")  # not "...sum of twoRed"
    assert "truncated" in result.stderr


def test_a_file_written_in_a_call_as_text_may_repeat_itself(fake, run_ayder, project):
    content = "row,1,2,3\n" * 500  # data, not a loop: it is inside the call's markup
    call = '[CALL] write_file {"file_path": "data.csv", "content": ' + json.dumps(content) + "}\n"
    fake.queue(Reply(text=call), Reply(text="written"))
    config = write_json(project / "text-calls.json", {"native_tools": "off"})
    result = run_ayder("--base-url", fake.url, "-c", str(config), "-w", "write the data")
    assert result.returncode == 0, result.stderr
    assert "repeated" not in result.stderr
    assert (project / "data.csv").read_text() == content and result.stdout == "written\n"
