"""Calls written inside the reasoning (issue 28, item 3), through the real `ayder` against the fake
server in both protocols: Qwen3.5-style replies whose tool call ends the think block (or the server's
reasoning field) and no answer follows run that call, with one dim line saying where it was found; the
same call followed by an answer, or shown in a fence, does not run."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import activity_lines, messages

# Qwen3.5's call, as its template renders one (<tool_call><function=…><parameter=…>).
CALL = "<tool_call>\n<function=read_file>\n<parameter=file_path>\nnotes.txt\n</parameter>\n</function>\n</tool_call>"
REASONING = "The user wants the notes. I should read notes.txt first.\n"
FOUND = "found at the end of the model's reasoning"


@pytest.fixture
def notes_file(project):
    (project / "notes.txt").write_text("buy milk\n", encoding="utf-8")
    return project / "notes.txt"


def results_sent(fake) -> str:
    """What the second request told the model the calls gave."""
    return messages(fake.chat_requests()[1])[-1]["content"]


@pytest.mark.parametrize("reply", [
    Reply(text=f"<think>\n{REASONING}{CALL}\n</think>\n\n"),
    Reply(text=f"{REASONING}{CALL}\n</think>\n\n"),  # the template wrote <think>: a lone closer
    Reply(text=f"<think>\n{REASONING}{CALL}\n"),  # </think> never came
    Reply(text="", thinking=f"{REASONING}{CALL}\n"),  # the server moved it to reasoning_content / thinking
], ids=["think-block", "lone-closer", "unclosed", "reasoning-field"])
def test_a_call_ending_the_reasoning_of_a_reply_without_answer_runs(fake, run_ayder, protocol, notes_file, reply):
    fake.queue(reply, Reply(text="You need to buy milk."))
    result = run_ayder(*server_args(fake, protocol), "what is in my notes?")
    assert result.returncode == 0, result.stderr
    # (a lone closer cannot be known before it arrives: the reasoning before it streamed as text)
    assert result.stdout.endswith("You need to buy milk.\n") and "<tool_call>" not in result.stdout
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 1 line']
    assert [line for line in result.stderr.splitlines() if FOUND in line] == [f"1 call {FOUND} (no answer followed)"]
    assert "buy milk" in results_sent(fake)


def test_calls_in_the_reasoning_go_through_the_permission_step(fake, run_ayder, protocol, project):
    write = ("<tool_call>\n<function=write_file>\n<parameter=file_path>\nout.txt\n</parameter>\n"
             "<parameter=content>\nhello\n</parameter>\n</function>\n</tool_call>")
    fake.queue(Reply(text="", thinking=f"I will write it.\n{write}"), Reply(text="Could not write."))
    result = run_ayder(*server_args(fake, protocol), "write hello to out.txt")  # no -w: writing is not allowed
    assert result.returncode == 0, result.stderr
    assert not (project / "out.txt").exists()
    assert "error" in results_sent(fake) and FOUND in result.stderr


@pytest.mark.parametrize("reply", [
    Reply(text=f"<think>\n{REASONING}{CALL}\n</think>\n\nYour notes say: buy milk."),
    Reply(text="Your notes say: buy milk.", thinking=f"{REASONING}{CALL}\n"),
    Reply(text=f"<think>\n{REASONING}{CALL}\nNo, I remember it: buy milk.\n</think>\n\n"),
    Reply(text="", thinking=f"For example:\n```xml\n{CALL}\n```\n"),
], ids=["answer-after-block", "answer-after-field", "more-reasoning-after", "fenced-example"])
def test_a_call_in_the_reasoning_that_is_not_its_end_does_not_run(fake, run_ayder, protocol, notes_file, reply):
    fake.queue(reply, Reply(text="a second request was made"))
    result = run_ayder(*server_args(fake, protocol), "what is in my notes?")
    assert result.returncode == 0, result.stderr
    assert len(fake.chat_requests()) == 1
    assert not activity_lines(result.stderr) and FOUND not in result.stderr
    assert "second request" not in result.stdout


def test_a_mistral_think_reply_shows_the_answer_only(fake, run_ayder, protocol):
    fake.queue(Reply(text="[THINK]The user asks 2+2. Adding gives 4.[/THINK]The answer is 4."))
    result = run_ayder(*server_args(fake, protocol), "what is 2+2?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer is 4.\n"
    assert "THINK" not in result.stdout + result.stderr and "Adding" not in result.stdout


def test_mistral_reasoning_is_shown_dim_on_stderr_when_asked(fake, run_ayder):
    fake.queue(Reply(text="[THINK]Adding gives 4.[/THINK]The answer is 4."))
    result = run_ayder(*server_args(fake, "openai"), "--show-thinking", "what is 2+2?")
    assert result.stdout == "The answer is 4.\n"
    assert "Adding gives 4." in result.stderr
