"""Replies cut at max_tokens in the middle of their calls (issue 28, item 4), through the real `ayder`
against the fake server in both protocols: the complete calls run, the cut one is reported to the user
and to the model, and never runs."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import activity_lines, messages

FIRST = '{"name": "read_file", "arguments": {"file_path": "a.txt"}}'
CUT = '{"name": "read_file", "arguments": {"file_path": "b.t'  # max_tokens ended it inside its arguments
INVOKE = '<invoke name="read_file">\n<parameter name="file_path">{}</parameter>\n</invoke>\n'
MM = "]<]minimax[>["

REPLIES = {  # the families whose calls share one container: cut in the second, the first was lost too
    "mistral": f"[TOOL_CALLS][{FIRST}, {CUT}",
    "hermes-list": f"<tool_call>\n[{FIRST}, {CUT}",
    "json-list": f"[{FIRST},\n {CUT}",
    "pythonic": '[read_file(file_path="a.txt"), read_file(file_path="b.t',
    "claude-invoke": ("<function_calls>\n" + INVOKE.format("a.txt")
                      + '<invoke name="read_file">\n<parameter name="fi'),
    "deepseek-v3.2": ("<｜DSML｜function_calls>\n"
                      + INVOKE.format("a.txt").replace("<", "<｜DSML｜").replace("<｜DSML｜/", "</｜DSML｜")
                      + '<｜DSML｜invoke name="read_file">\n<｜DSML｜parameter name="file_path" string="tr'),
    "minimax-m2": "<minimax:tool_call>\n" + INVOKE.format("a.txt") + '<invoke name="read_file">\n<parameter',
    "minimax-m3": (f'{MM}<tool_call>\n{MM}<invoke name="read_file">\n{MM}<file_path>a.txt{MM}</file_path>\n'
                   f'{MM}</invoke>\n{MM}<invoke name="read_file">\n{MM}<file_path>b.t'),
    "qwen3-xml": ("<tool_call>\n<function=read_file>\n<parameter=file_path>\na.txt\n</parameter>\n</function>\n"
                  "</tool_call>\n<tool_call>\n<function=read_file>\n<parameter=file_path>\nb.t"),
}


@pytest.fixture
def files(project):
    (project / "a.txt").write_text("alpha\n", encoding="utf-8")
    (project / "b.txt").write_text("bravo\n", encoding="utf-8")


@pytest.mark.parametrize("family", sorted(REPLIES))
def test_a_reply_cut_in_its_second_call_runs_the_first_and_reports_the_cut_one(fake, run_ayder, protocol, files,
                                                                              family):
    fake.queue(Reply(text=REPLIES[family], finish_reason="length"), Reply(text="a says alpha."))
    result = run_ayder(*server_args(fake, protocol), "read a.txt and b.txt")
    assert result.returncode == 0, result.stderr
    assert activity_lines(result.stderr) == ['→ read_file(file_path="a.txt")  ✓ 1 line']  # b.txt never read
    notices = [line for line in result.stderr.splitlines() if "max_tokens" in line]
    assert notices == ["the reply hit max_tokens inside a tool call, which was not run (the model is told); "
                       "1 complete call before it ran"]
    told = messages(fake.chat_requests()[1])[-1]["content"]
    assert "alpha" in told and "bravo" not in told and "cut off" in told
    assert result.stdout.endswith("a says alpha.\n")


def test_a_native_reply_cut_in_its_second_call_runs_the_first(fake, run_ayder, files):
    fake.queue(Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": "a.txt"}},
                                          {"name": "read_file", "arguments": '{"file_path": "b.t'}],
                     finish_reason="length"),
               Reply(text="a says alpha."))
    result = run_ayder(*server_args(fake, "openai"), "read a.txt and b.txt")
    assert result.returncode == 0, result.stderr
    assert activity_lines(result.stderr) == ['→ read_file(file_path="a.txt")  ✓ 1 line']
    assert "hit max_tokens inside a tool call" in result.stderr
    results = [m for m in messages(fake.chat_requests()[1]) if m["role"] == "tool"]
    assert "alpha" in results[0]["content"] and results[1]["content"].startswith("error: not run")


def test_a_reply_cut_inside_its_only_call_runs_nothing(fake, run_ayder, protocol, files):
    fake.queue(Reply(text=f"[TOOL_CALLS][{CUT}", finish_reason="length"), Reply(text="I will try again."))
    result = run_ayder(*server_args(fake, protocol), "read b.txt")
    assert result.returncode == 0, result.stderr
    assert not activity_lines(result.stderr)
    assert "bravo" not in messages(fake.chat_requests()[1])[-1]["content"]
